// aggr_VH: ESAW's aggr_V of iteration t and aggr_H of iteration t + 1 in one launch. The H pass
// reads only its own row (samples x - s, x, x + s), so a block that owns a whole row can keep the
// V result of that row in shared memory and run the H pass from there: the V result never goes
// to DRAM, and the two passes move 4 B a cell where they moved 8. (aggr_hv.cu fuses the other
// way round, H then V of one iteration, which needs 2 s halo rows of H results around a tile;
// here no halo is needed at all.)
//
// A block is one row slot of the V pass's step order (aggr_pass.cuh: the side rows y +- s are the
// centre rows of the blocks just before and after it, so they come from L2) and its threads
// cover the row two pixels at a time (PPT pairs each; aggr_pair.cuh's loads, 32-bit offsets).
// Planes run in groups of PLANES: the V phase loads a group's samples, writes the V cells of the
// row into one of two shared buffers, a barrier, then the H phase reads that buffer and stores
// the output pairs; the two buffers alternate, so the next group's V phase needs no second
// barrier (a thread reaching it has passed the barrier that every thread reached after the H
// phase before). Each cell's arithmetic is weights.cuh's in the reference's order, and a V cell
// is rounded to half before the H pass reads it, as when it was stored: equal bit for bit to
// aggr_V then aggr_H.

#include <cuda_fp16.h>

#include <string>
#include <type_traits>

#include "methods/esaw/cuda/aggr_pair.cuh"
#include "methods/esaw/cuda/pass_shape.cuh"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/cuda/weights.cuh"

namespace stereo::cu::esaw {
namespace {

constexpr int PLANES = 4;  // planes a V phase loads before it uses the first
constexpr int MAX_THREADS = 1024;

struct VhShape {
  int width;
  int height;
  int planes;
  int step_v;  // aggr_V's step (iteration t)
  int step_h;  // aggr_H's step (iteration t + 1)
  bool clamp_border;
};

// The H samples of one pixel of the row: the columns read (a side not read reads the centre) and
// the weights.
struct RowSamples {
  int minus, plus;
  detail::Weights w;
};

template <int PPT>
__global__ void __launch_bounds__(MAX_THREADS, 1)
    aggr_vh_kernel(const uchar4* __restrict__ guide, const __half* __restrict__ in, __half* __restrict__ out,
                   WeightTable table_v, WeightTable table_h, VhShape shape) {
  using namespace detail;
  const int width = shape.width, height = shape.height, planes = shape.planes;
  extern __shared__ __half2 row_buffer[];  // [2][PLANES][width / 2]: V cells of this row, as pairs
  __shared__ WeightTable shared_v, shared_h;
  const int t = int(threadIdx.x), threads = int(blockDim.x);
  stage_table(shared_v, table_v, t, threads);
  stage_table(shared_h, table_h, t, threads);
  const int y = vertical_row_order(int(blockIdx.x), shape.step_v, height);
  if (y >= height) return;  // the whole block: no barrier is left waiting
  const int pairs = width / 2;

  const unsigned plane = unsigned(width) * unsigned(height);
  const __half* c_at[PPT];
  const __half* m_at[PPT];
  const __half* p_at[PPT];
  __half* o_at[PPT];
  Weights wv[PPT][2];
  RowSamples h[PPT][2];
  bool live[PPT];
#pragma unroll
  for (int j = 0; j < PPT; ++j) {
    const int pair = t + j * threads;
    live[j] = pair < pairs;
    const int x = live[j] ? 2 * pair : 0;
    std::size_t i, im, ip, i1, im1, ip1;
    bool in_m, in_p, in_m1, in_p1;
    pass_samples<0, 1>(x, y, width, height, shape.step_v, shape.clamp_border, i, im, ip, in_m, in_p);
    pass_samples<0, 1>(x + 1, y, width, height, shape.step_v, shape.clamp_border, i1, im1, ip1, in_m1, in_p1);
    wv[j][0] = pass_weights(shared_v, guide[i], guide[im], guide[ip], in_m, in_p);
    wv[j][1] = pass_weights(shared_v, guide[i1], guide[im1], guide[ip1], in_m1, in_p1);
    c_at[j] = thread_base(in + i);
    m_at[j] = thread_base(in + (in_m ? im : i));
    p_at[j] = thread_base(in + (in_p ? ip : i));
    o_at[j] = thread_base(out + i);
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      std::size_t hi, hm, hp;
      bool h_in_m, h_in_p;
      pass_samples<1, 0>(x + q, y, width, height, shape.step_h, shape.clamp_border, hi, hm, hp, h_in_m, h_in_p);
      h[j][q].w = pass_weights(shared_h, guide[hi], guide[hm], guide[hp], h_in_m, h_in_p);
      const std::size_t row = std::size_t(y) * std::size_t(width);
      h[j][q].minus = int((h_in_m ? hm : hi) - row);
      h[j][q].plus = int((h_in_p ? hp : hi) - row);
    }
  }
  const __half* const row_halves = reinterpret_cast<const __half*>(row_buffer);

  int buffer = 0;
  const auto group = [&](auto count, int k0) {
    constexpr int N = decltype(count)::value;
    const unsigned kp0 = unsigned(k0) * plane;
    __half2 at_c[PPT][N], at_m[PPT][N], at_p[PPT][N];
#pragma unroll
    for (int j = 0; j < PPT; ++j)
      if (live[j]) {
#pragma unroll
        for (int u = 0; u < N; ++u) {
          const unsigned kp = kp0 + unsigned(u) * plane;
          if (PREFETCH_AHEAD > 0 && k0 + PREFETCH_AHEAD + u < planes)
            prefetch_l2(c_at[j] + (kp + unsigned(PREFETCH_AHEAD) * plane));
          at_c[j][u] = load_pair(c_at[j], kp);
          at_m[j][u] = load_pair(m_at[j], kp);
          at_p[j][u] = load_pair(p_at[j], kp);
        }
      }
    __half2* const v_rows = row_buffer + std::size_t(buffer) * PLANES * pairs;
#pragma unroll
    for (int j = 0; j < PPT; ++j)
      if (live[j]) {
#pragma unroll
        for (int u = 0; u < N; ++u)
          v_rows[u * pairs + t + j * threads] = __floats2half2_rn(
              weighted_value(wv[j][0], __low2float(at_c[j][u]), __low2float(at_m[j][u]), __low2float(at_p[j][u])),
              weighted_value(wv[j][1], __high2float(at_c[j][u]), __high2float(at_m[j][u]),
                             __high2float(at_p[j][u])));
      }
    __syncthreads();
    const __half* const v_halves = row_halves + std::size_t(buffer) * PLANES * width;
#pragma unroll
    for (int j = 0; j < PPT; ++j)
      if (live[j]) {
#pragma unroll
        for (int u = 0; u < N; ++u) {
          const __half* const v_row = v_halves + u * width;
          const __half2 centre = v_rows[u * pairs + t + j * threads];
          const float value0 = weighted_value(h[j][0].w, __low2float(centre), __half2float(v_row[h[j][0].minus]),
                                              __half2float(v_row[h[j][0].plus]));
          const float value1 = weighted_value(h[j][1].w, __high2float(centre), __half2float(v_row[h[j][1].minus]),
                                              __half2float(v_row[h[j][1].plus]));
          store_pair(o_at[j], kp0 + unsigned(u) * plane, __floats2half2_rn(value0, value1));
        }
      }
    buffer ^= 1;
  };
  int k0 = 0;
  for (; k0 + PLANES <= planes; k0 += PLANES) group(std::integral_constant<int, PLANES>{}, k0);
  for (; k0 < planes; ++k0) group(std::integral_constant<int, 1>{}, k0);
}

// The fewest pairs a thread takes so that a row fits one block (0: none of 1, 2, 4 does).
int pairs_per_thread(int width) {
  for (const int ppt : {1, 2, 4})
    if (div_up(width / 2, ppt) <= MAX_THREADS) return ppt;
  return 0;
}

std::size_t buffer_bytes(int width) { return std::size_t(2) * PLANES * std::size_t(width) * sizeof(__half); }

}  // namespace

bool aggr_VH_fits(int width, int height, int planes) {
  if (planes < 1 || !detail::pairs_fit(unsigned(width), detail::volume_cells(width, height, planes)) ||
      pairs_per_thread(width) == 0)
    return false;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  return buffer_bytes(width) + 2 * sizeof(WeightTable) <= shared_memory_optin_limit(device);
}

void aggr_VH(const PassWeights& v, const PassWeights& h, const std::uint16_t* in, int planes, std::uint16_t* out,
             cudaStream_t stream) {
  const DeviceImage<uchar4>& guide = v.guide;
  const int width = guide.width, height = guide.height;
  require(&h.guide == &v.guide && h.border == v.border,
          "esaw/cuda: aggr_V+aggr_H: the passes read one guide and border");
  require(v.step >= 1 && h.step >= 1, [&] {
    return "esaw/cuda: aggr_V+aggr_H: steps must be >= 1, got " + std::to_string(v.step) + " and " +
           std::to_string(h.step);
  });
  require(out != nullptr && out != in, "esaw/cuda: aggr_V+aggr_H: needs an output that is not the input");
  require(aggr_VH_fits(width, height, planes), [&] {
    return "esaw/cuda: aggr_V+aggr_H: " + std::to_string(width) + "x" + std::to_string(height) + " with " +
           std::to_string(planes) + " planes does not fit (an even width of at most 8192, < 2^32 cells, " +
           std::to_string(buffer_bytes(width)) + " B of shared memory a block)";
  });
  const int ppt = pairs_per_thread(width);
  const int threads = div_up(div_up(width / 2, ppt), 32) * 32;
  const VhShape shape{width, height, planes, v.step, h.step, v.border == Border::clamp};
  const std::size_t smem = buffer_bytes(width);
  const auto* from = reinterpret_cast<const __half*>(in);
  auto* to = reinterpret_cast<__half*>(out);
  const auto launch = [&](auto kernel) {
    if (smem + 2 * sizeof(WeightTable) > 48 * 1024)
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    kernel<<<unsigned(detail::vertical_row_slots(v.step, height)), unsigned(threads), smem, stream>>>(
        guide.get(), from, to, v.table, h.table, shape);
  };
  if (ppt == 1)
    launch(aggr_vh_kernel<1>);
  else if (ppt == 2)
    launch(aggr_vh_kernel<2>);
  else
    launch(aggr_vh_kernel<4>);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
