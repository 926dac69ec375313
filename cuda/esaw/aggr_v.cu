// aggr_V: eq. 6 (ESMP eq. 16), the three-sample pass along y over a slab of disparity planes. The
// weights depend on the pixel only: each thread computes them once and applies them to every plane
// of the slab, so the exp() work is per pixel, not per cell. The rows y - s and y + s are read as
// whole coalesced rows; with the WTA fused, the last pass of an iteration never writes its volume
// (the paper's select_disparity folded in).

#include <cuda_fp16.h>

#include "cuda/esaw/stages.h"
#include "cuda/esaw/weights.cuh"

namespace stereo::cu::esaw {
namespace {

constexpr int BLOCK_X = 64;
constexpr int BLOCK_Y = 4;
constexpr int DX = 0;
constexpr int DY = 1;

__global__ void aggr_v_kernel(const uchar4* rgba, int width, int height, const __half* centre,
                                  const __half* side, int planes, int step, WeightTable table, bool clamp_border,
                                  __half* out, float* winner_cost, float* winner_disparity, int first_disparity,
                                  float c, float eta, float* truncation) {
  __shared__ WeightTable shared_table;  // dynamic indexing into kernel parameters would go to local memory
  for (int i = threadIdx.y * BLOCK_X + threadIdx.x; i < 256; i += BLOCK_X * BLOCK_Y)
    shared_table.colour[i] = table.colour[i];
  if (threadIdx.x == 0 && threadIdx.y == 0) shared_table.spatial = table.spatial;
  __syncthreads();

  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x >= width || y >= height) return;
  const int xm = x - DX * step, ym = y - DY * step, xp = x + DX * step, yp = y + DY * step;
  // Border::drop reads no sample outside; Border::clamp reads the edge pixel instead.
  const bool in_minus = clamp_border || (xm >= 0 && ym >= 0);
  const bool in_plus = clamp_border || (xp < width && yp < height);
  const std::size_t w = std::size_t(width);
  const std::size_t i = std::size_t(y) * w + std::size_t(x);
  const std::size_t im = std::size_t(max(ym, 0)) * w + std::size_t(max(xm, 0));
  const std::size_t ip = std::size_t(min(yp, height - 1)) * w + std::size_t(min(xp, width - 1));
  const detail::Weights wt = detail::pass_weights(shared_table, rgba[i], rgba[im], rgba[ip], in_minus, in_plus);

  const std::size_t plane = w * std::size_t(height);
  float best = winner_cost ? winner_cost[i] : 0.0f;
  float best_d = winner_cost ? winner_disparity[i] : 0.0f;
  float lowest = 0.0f, forward = 0.0f;  // aggr_V+ (ESMP): the min-sum's forward pass, eq. 17-19
  for (int k = 0; k < planes; ++k) {
    const std::size_t o = std::size_t(k) * plane;
    // (Not named c: that is eq. 10's slope, a parameter of this kernel.)
    const float at_centre = __half2float(centre[o + i]);
    const float at_minus = wt.minus > 0.0f ? __half2float(side[o + im]) : 0.0f;
    const float at_plus = wt.plus > 0.0f ? __half2float(side[o + ip]) : 0.0f;
    const __half v = detail::weighted_sum(wt, at_centre, at_minus, at_plus);
    if (truncation) {
      // Eq. 18's minimum over the stored outputs; eq. 19 on them, each forward value rounded
      // as reference::cost2msg rounds it.
      const float value = __half2float(v);
      lowest = k == 0 ? value : fminf(lowest, value);
      forward = k == 0 ? value : __half2float(__float2half_rn(fminf(__fadd_rn(forward, c), value)));
      out[o + i] = __float2half_rn(forward);
    } else if (out) {
      out[o + i] = v;
    }
    if (winner_cost) {
      const float stored = __half2float(v);
      if (stored < best) {
        best = stored;
        best_d = float(first_disparity + k);
      }
    }
  }
  if (winner_cost) {
    winner_cost[i] = best;
    winner_disparity[i] = best_d;
  }
  if (truncation) truncation[i] = __fadd_rn(lowest, eta);  // eq. 18's h
}

}  // namespace

void aggr_V(const DeviceImage<uchar4>& rgba, const std::uint16_t* centre, const std::uint16_t* side, int planes,
            int step, const WeightTable& table, reference::Border border, std::uint16_t* out,
            Winner* winner, int first_disparity, cudaStream_t stream, const ForwardMinSum* forward) {
  require(step >= 1, "esaw/cuda: aggr_V: step must be >= 1, got " + std::to_string(step));
  require(planes >= 1, "esaw/cuda: aggr_V: needs at least one plane, got " + std::to_string(planes));
  require(out || winner, "esaw/cuda: aggr_V: neither an output volume nor a winner to update");
  require(out != centre && out != side, "esaw/cuda: aggr_V: the output may not alias an input");
  if (winner)
    require(winner->cost.width == rgba.width && winner->cost.height == rgba.height,
            "esaw/cuda: aggr_V: winner map size differs from the image");
  if (forward) {
    require(out && !winner, "esaw/cuda: aggr_V+: the forward min-sum needs an output volume and no fused WTA");
    require(forward->truncation && forward->truncation->width == rgba.width &&
                forward->truncation->height == rgba.height,
            "esaw/cuda: aggr_V+: the truncation map is missing or differs in size from the image");
  }
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid(unsigned(div_up(rgba.width, BLOCK_X)), unsigned(div_up(rgba.height, BLOCK_Y)));
  aggr_v_kernel<<<grid, block, 0, stream>>>(
      rgba.get(), rgba.width, rgba.height, reinterpret_cast<const __half*>(centre),
      reinterpret_cast<const __half*>(side), planes, step, table, border == reference::Border::clamp,
      reinterpret_cast<__half*>(out), winner ? winner->cost.get() : nullptr,
      winner ? winner->disparity.get() : nullptr, first_disparity, forward ? forward->c : 0.0f,
      forward ? forward->eta : 0.0f, forward ? forward->truncation->get() : nullptr);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
