// One ESAW iteration in one launch: aggr_H then aggr_V with the same step s (eq. 5 then eq. 6),
// the H result of a tile kept in shared memory and never stored. A block writes a tile of
// TILE_Y x TILE_X output pixels; their vertical samples lie at most s rows away, so the block
// first runs the H pass over the TILE_Y + 2s rows around its tile (plane by plane, GROUP planes
// between two barriers) into shared memory, then the V pass from there into the output.
//
// What it saves (NOTES.md, "Round 3"): an unfused iteration moves the volume through DRAM four
// times (H reads and writes it, V reads and writes it); this one twice, plus the 2s halo rows it
// re-reads (neighbouring blocks' rows, mostly L2 hits). With init_cost fused in as well (the
// iteration 1 form, from the grey images as init_aggr_H), once: it only writes. The halo costs
// H work too (TILE_Y + 2s rows for TILE_Y), which bounds the step it is used for (HV_MAX_STEP).
//
// Measured on the H100 (1920 x 1080 x 256, ESAW-9): before the passes prefetched into the L2 it
// won (29.2 ms with steps <= 4 fused against 31.0); since, it loses (24.0 against 23.1): the
// fused kernel is latency-bound (a thread walks its 16 + 2s rows between two barriers per four
// planes), the passes it replaces are not any more. So the matcher leaves it off by default
// (EsawCudaOptions::fuse_hv_max_step = 0); NOTES.md has the sweeps.
//
// Each cell's arithmetic is aggr_pass.cuh's / init_aggr_h.cu's (weights.cuh, the reference's
// order, explicit _rn intrinsics) and the H result is rounded to half before V reads it, as the
// stored volume was, so the output equals aggr_H then aggr_V bit for bit.
//
// Shared memory per block: the H weights of the region ([rows][TILE_X], 12 B each) and GROUP
// planes of its H result (2 B each): 22.5 KB at s = 1, 61.4 KB at s = 16. The V weights of a
// thread's TILE_Y / THREAD_ROWS output pixels stay in registers.

#include <cuda_fp16.h>

#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/cuda/weights.cuh"

namespace stereo::cu::esaw {
namespace {

constexpr int TILE_X = 64;       // columns of a block, one per thread
constexpr int THREAD_ROWS = 4;   // threads per column
constexpr int TILE_Y = 16;       // output rows of a block
constexpr int ROWS_PER_THREAD = TILE_Y / THREAD_ROWS;
constexpr int GROUP = 4;         // planes through both passes between two barriers
// 4 blocks of 256 a SM: 64 registers a thread at most (no spills at sm_90), the shared memory of 4
// blocks fits up to step 14 (the H100's 228 KB). Chosen by a sweep on the H100 (NOTES.md, "Round 3").
constexpr int MIN_BLOCKS = 4;

// eq. 3's inputs when the H samples are computed from the grey images (init_aggr_HV).
struct GreyInputs {
  const std::uint8_t* left = nullptr;
  const std::uint8_t* right = nullptr;
  int first_disparity = 0;
  float lambda = 0.0f;
  float tau = 0.0f;
};

// The kernel's sizes: the image's, the planes, the step and the border.
struct HvShape {
  int width;
  int height;
  int planes;
  int step;
  bool clamp_border;
};

std::size_t shared_bytes(int step) {
  const std::size_t rows = std::size_t(TILE_Y + 2 * step);
  return rows * TILE_X * (sizeof(detail::Weights) + GROUP * sizeof(__half));
}

template <bool FROM_GREY>
__global__ void __launch_bounds__(TILE_X * THREAD_ROWS, MIN_BLOCKS)
    aggr_hv_kernel(const uchar4* __restrict__ guide, const __half* __restrict__ in, GreyInputs grey, HvShape shape,
                   WeightTable table, __half* __restrict__ out) {
  const int width = shape.width, height = shape.height, planes = shape.planes, step = shape.step;
  const bool clamp_border = shape.clamp_border;
  extern __shared__ float4 shared_words[];
  __shared__ WeightTable shared_table;
  const int tx = threadIdx.x, ty = threadIdx.y;
  detail::stage_table(shared_table, table, ty * TILE_X + tx, TILE_X * THREAD_ROWS);

  const int rows = TILE_Y + 2 * step;  // region row r is image row top + r
  detail::Weights* h_weights = reinterpret_cast<detail::Weights*>(shared_words);      // [rows][TILE_X]
  __half* h_result = reinterpret_cast<__half*>(h_weights + std::size_t(rows) * TILE_X);  // [GROUP][rows][TILE_X]

  const int x = blockIdx.x * TILE_X + tx;
  const int y0 = blockIdx.y * TILE_Y;
  const int top = y0 - step;
  const bool column = x < width;
  const std::size_t w = std::size_t(width);
  const std::size_t plane = w * std::size_t(height);

  // The H samples of column x, the same on every row (aggr_pass.cuh with DX = 1).
  const int xm = x - step, xp = x + step;
  const bool h_minus = clamp_border || xm >= 0;
  const bool h_plus = clamp_border || xp < width;
  const int cm = max(xm, 0), cp = min(xp, width - 1);

  // Weights, once per block: H over the region's rows inside the image (shared memory), V over
  // this thread's output rows (registers).
  for (int r = ty; r < rows; r += THREAD_ROWS) {
    const int y = top + r;
    if (!column || y < 0 || y >= height) continue;
    const std::size_t row = std::size_t(y) * w;
    h_weights[r * TILE_X + tx] =
        detail::pass_weights(shared_table, guide[row + x], guide[row + cm], guide[row + cp], h_minus, h_plus);
  }
  detail::Weights v_weights[ROWS_PER_THREAD];
#pragma unroll
  for (int j = 0; j < ROWS_PER_THREAD; ++j) {
    const int y = y0 + ty + j * THREAD_ROWS;
    v_weights[j] = detail::Weights{0.0f, 0.0f, 0.0f};
    if (!column || y >= height) continue;
    const int ym = y - step, yp = y + step;
    v_weights[j] = detail::pass_weights(shared_table, guide[std::size_t(y) * w + x],
                                        guide[std::size_t(max(ym, 0)) * w + x],
                                        guide[std::size_t(min(yp, height - 1)) * w + x],
                                        clamp_border || ym >= 0, clamp_border || yp < height);
  }
  __syncthreads();

  for (int k0 = 0; k0 < planes; k0 += GROUP) {
    // The centre cells of this thread's region rows PREFETCH_AHEAD planes ahead, into the L2
    // (aggr_pass.cuh says why).
    if constexpr (!FROM_GREY) {
      for (int r = ty; r < rows; r += THREAD_ROWS) {
        const int y = top + r;
        if (!column || y < 0 || y >= height) continue;
#pragma unroll
        for (int u = 0; u < GROUP; ++u) {
          const int k = k0 + detail::PREFETCH_AHEAD + u;
          if (k < planes) detail::prefetch_l2(in + std::size_t(k) * plane + std::size_t(y) * w + std::size_t(x));
        }
      }
    }
    // aggr_H over the region, GROUP planes at a time (all loads of a row issued before use).
#pragma unroll 2
    for (int r = ty; r < rows; r += THREAD_ROWS) {
      const int y = top + r;
      if (!column || y < 0 || y >= height) continue;
      const std::size_t row = std::size_t(y) * w;
      float at_centre[GROUP], at_minus[GROUP], at_plus[GROUP];
      if constexpr (FROM_GREY) {
        const int left_c = grey.left[row + x], left_m = grey.left[row + cm], left_p = grey.left[row + cp];
        const std::uint8_t* right_row = grey.right + row;
#pragma unroll
        for (int u = 0; u < GROUP; ++u) {
          const bool live = k0 + u < planes;
          const int d = grey.first_disparity + k0 + u;
          at_centre[u] = live ? detail::grey_cost(left_c, right_row, x, d, width, grey.lambda, grey.tau) : 0.0f;
          at_minus[u] =
              live && h_minus ? detail::grey_cost(left_m, right_row, cm, d, width, grey.lambda, grey.tau) : 0.0f;
          at_plus[u] =
              live && h_plus ? detail::grey_cost(left_p, right_row, cp, d, width, grey.lambda, grey.tau) : 0.0f;
        }
      } else {
#pragma unroll
        for (int u = 0; u < GROUP; ++u) {
          const bool live = k0 + u < planes;
          const std::size_t o = std::size_t(live ? k0 + u : k0) * plane + row;
          at_centre[u] = live ? __half2float(in[o + std::size_t(x)]) : 0.0f;
          at_minus[u] = live && h_minus ? __half2float(in[o + std::size_t(cm)]) : 0.0f;
          at_plus[u] = live && h_plus ? __half2float(in[o + std::size_t(cp)]) : 0.0f;
        }
      }
      const detail::Weights wt = h_weights[r * TILE_X + tx];
#pragma unroll
      for (int u = 0; u < GROUP; ++u)
        h_result[(u * rows + r) * TILE_X + tx] = detail::weighted_sum(wt, at_centre[u], at_minus[u], at_plus[u]);
    }
    __syncthreads();

    // aggr_V of the tile from shared memory. The sample rows are clamped into the image as in
    // aggr_pass.cuh, so they lie in the region and were computed above; a dropped sample
    // (weight 0) is not used by weighted_sum.
#pragma unroll
    for (int j = 0; j < ROWS_PER_THREAD; ++j) {
      const int y = y0 + ty + j * THREAD_ROWS;
      if (!column || y >= height) continue;
      const int rc = y - top, rm = max(y - step, 0) - top, rp = min(y + step, height - 1) - top;
      const std::size_t i = std::size_t(y) * w + std::size_t(x);
#pragma unroll
      for (int u = 0; u < GROUP; ++u) {
        if (k0 + u >= planes) break;
        const float centre = __half2float(h_result[(u * rows + rc) * TILE_X + tx]);
        const float minus = __half2float(h_result[(u * rows + rm) * TILE_X + tx]);
        const float plus = __half2float(h_result[(u * rows + rp) * TILE_X + tx]);
        out[std::size_t(k0 + u) * plane + i] = detail::weighted_sum(v_weights[j], centre, minus, plus);
      }
    }
    __syncthreads();  // the next group overwrites h_result
  }
}

template <bool FROM_GREY>
void launch(const PassWeights& weights, const std::uint16_t* in, const GreyInputs& grey, int planes, std::uint16_t* out,
            cudaStream_t stream, const char* what) {
  const DeviceImage<uchar4>& guide = weights.guide;
  const int step = weights.step;
  const auto name = [what] { return std::string("esaw/cuda: ") + what + ": "; };  // made only for an error
  require(step >= 1 && step <= HV_MAX_STEP, [&] {
    return name() + "step must be in 1.." + std::to_string(HV_MAX_STEP) + ", got " + std::to_string(step);
  });
  require(planes >= 1, [&] { return name() + "needs at least one plane, got " + std::to_string(planes); });
  require(out != nullptr, [&] { return name() + "no output volume"; });
  const std::size_t bytes = shared_bytes(step);
  require(step <= aggr_hv_max_step(), [&] {
    return name() + "step " + std::to_string(step) + " needs " + std::to_string(bytes) +
           " bytes of shared memory per block, more than this GPU allows";
  });
  if (bytes + sizeof(WeightTable) > 48 * 1024)  // the static table counts against the default 48 KB
    CUDA_CHECK(cudaFuncSetAttribute(aggr_hv_kernel<FROM_GREY>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(bytes)));
  const dim3 block(TILE_X, THREAD_ROWS);
  const dim3 grid(unsigned(div_up(guide.width, TILE_X)), unsigned(div_up(guide.height, TILE_Y)));
  const HvShape shape{guide.width, guide.height, planes, step, weights.border == Border::clamp};
  aggr_hv_kernel<FROM_GREY><<<grid, block, bytes, stream>>>(guide.get(), reinterpret_cast<const __half*>(in), grey,
                                                            shape, weights.table, reinterpret_cast<__half*>(out));
  CUDA_CHECK_LAUNCH();
}

}  // namespace

int aggr_hv_max_step() {
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  int step = HV_MAX_STEP;
  // (+ the static WeightTable copy, ~1 KB)
  while (step > 0 && shared_bytes(step) + sizeof(WeightTable) > std::size_t(optin)) --step;
  return step;
}

void aggr_HV(const PassWeights& weights, const std::uint16_t* in, int planes, std::uint16_t* out, cudaStream_t stream) {
  require(in != nullptr && in != out, "esaw/cuda: aggr_H+aggr_V: needs an input volume other than the output");
  launch<false>(weights, in, GreyInputs{}, planes, out, stream, "aggr_H+aggr_V");
}

void init_aggr_HV(const CostSlab& cost, const PassWeights& weights, std::uint16_t* out, cudaStream_t stream) {
  const DeviceImage<std::uint8_t>& grey_left = cost.grey_left;
  const DeviceImage<std::uint8_t>& grey_right = cost.grey_right;
  const DeviceImage<uchar4>& guide = weights.guide;
  require(grey_left.width == grey_right.width && grey_left.height == grey_right.height &&
              guide.width == grey_left.width && guide.height == grey_left.height,
          "esaw/cuda: init_cost+aggr_H+aggr_V: the grey and guide images differ in size");
  const GreyInputs grey{grey_left.get(), grey_right.get(), cost.first_disparity, cost.lambda, cost.tau};
  launch<true>(weights, nullptr, grey, cost.planes, out, stream, "init_cost+aggr_H+aggr_V");
}

}  // namespace stereo::cu::esaw
