// aggr_cost2msg: ESMP's aggregation (aggr_H+ / aggr_V+, eq. 14 / 16 and the forward min-sum of
// eq. 17-19) and the cost2msg- that finishes its messages (eq. 20-21) in one kernel. Both walk
// one pixel's levels: the aggregation walks up, the backward pass down from the top, so the
// thread keeps its forward values as halves in shared memory ([k][thread], as cost2msg does),
// rounded as aggr_H+ stores them, then walks down writing the messages. The forward values and
// the truncation map never go to DRAM: a pass reads the messages once and writes them once
// (4 B a cell), where aggr_H+ then cost2msg- moved 8. aggr_msg.cu folded cost2msg- into the
// *next* pass instead, which has to finish the messages of three samples on a walk down before
// its walk up; here each pixel finishes only its own.
//
// Two pixels a thread as aggr_pair.cuh (an even width, < 2^32 cells); each cell's arithmetic is
// aggr_pair.cuh's then cost2msg_backward's, in the same order, so the messages are theirs bit
// for bit.

#include <cuda_fp16.h>

#include <string>
#include <type_traits>

#include "methods/esaw/cuda/aggr_pair.cuh"
#include "methods/esaw/cuda/pass_shape.cuh"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/cuda/weights.cuh"

namespace stereo::cu::esaw {
namespace {

constexpr int MSG_THREADS = 64;  // 128 pixels of a row
// The shared memory (levels x 256 B a block) leaves ~6 warps a SM, so a thread's own loads must
// cover the latency: MSG_GROUP levels of samples in flight (registers are plenty at this
// occupancy; one block a SM in __launch_bounds__ lets ptxas keep them, where its default
// schedule for full occupancy kept ~40 registers and a fraction of the loads in flight), the
// centre cells asked of the L2 MSG_AHEAD levels ahead.
constexpr int MSG_GROUP = 32;
constexpr int MSG_AHEAD = 64;

// PAIRED_SIDES: the side samples of a pair are one aligned pair too. Always along y; along x
// where the step is even and the border drops (x - s is then even, and both pixels' sides lie
// inside the image or both outside, where clamping would read one edge pixel twice).
// HALF_C: c is a half, eq. 18-19 in half2 (detail::forward_step).
template <int DX, int DY, bool PAIRED_SIDES, bool HALF_C>
__global__ void __launch_bounds__(MSG_THREADS, 1)
    aggr_cost2msg_kernel(const uchar4* __restrict__ guide, const __half* __restrict__ in, __half* __restrict__ out,
                         WeightTable table, detail::PassShape shape) {
  using namespace detail;
  const int width = shape.width, height = shape.height, levels = shape.planes, step = shape.step;
  const float c = shape.c, eta = shape.eta;
  extern __shared__ __half2 held[];  // held[k * MSG_THREADS + t]: the pair's forward values at level k
  __shared__ WeightTable shared_table;
  const int t = int(threadIdx.x);
  stage_table(shared_table, table, t, MSG_THREADS);

  const int x = 2 * (int(blockIdx.x) * MSG_THREADS + t);
  int y = int(blockIdx.y);
  if (DY) y = vertical_row_order(y, step, height);
  if (x >= width || y >= height) return;  // no barrier below: each thread owns its column of held
  std::size_t i, im0, ip0, i1, im1, ip1;
  bool in_m0, in_p0, in_m1, in_p1;
  pass_samples<DX, DY>(x, y, width, height, step, shape.clamp_border, i, im0, ip0, in_m0, in_p0);
  pass_samples<DX, DY>(x + 1, y, width, height, step, shape.clamp_border, i1, im1, ip1, in_m1, in_p1);
  const Weights w0 = pass_weights(shared_table, guide[i], guide[im0], guide[ip0], in_m0, in_p0);
  const Weights w1 = pass_weights(shared_table, guide[i1], guide[im1], guide[ip1], in_m1, in_p1);

  const unsigned plane = unsigned(width) * unsigned(height);
  const __half* const c_at = thread_base(in + i);
  const __half* const m0 = thread_base(in + (in_m0 ? im0 : i));  // a side not read: the centre
  const __half* const p0 = thread_base(in + (in_p0 ? ip0 : i));
  const __half* const m1 = PAIRED_SIDES ? nullptr : thread_base(in + (in_m1 ? im1 : i1));
  const __half* const p1 = PAIRED_SIDES ? nullptr : thread_base(in + (in_p1 ? ip1 : i1));
  const __half* const ahead = thread_base(in + i + std::size_t(MSG_AHEAD) * plane);
  const PairCells cells{c_at, m0, p0, m1, p1, ahead};
  __half* const o_at = thread_base(out + i);

  float lowest[2] = {0.0f, 0.0f}, forward[2] = {0.0f, 0.0f};
  __half2 low2 = {}, f2 = {};  // HALF_C: lowest and forward as halves
  const __half2 c2 = __float2half2_rn(c);
  // Level 0 is the first group's u = 0 (first = true; a constant once unrolled), so the walk up
  // carries no test of k == 0.
  const auto group = [&](auto count, auto first, int k0) {
    constexpr int N = decltype(count)::value;
    constexpr bool FIRST = decltype(first)::value;
    __half2 at_centre[N], at_minus[N], at_plus[N];
    load_pair_planes<N, MSG_AHEAD, PAIRED_SIDES>(cells, k0, unsigned(k0) * plane, levels, plane, at_centre, at_minus,
                                                 at_plus);
#pragma unroll
    for (int u = 0; u < N; ++u) {
      const int k = k0 + u;
      const __half2 v = __floats2half2_rn(
          weighted_value(w0, __low2float(at_centre[u]), __low2float(at_minus[u]), __low2float(at_plus[u])),
          weighted_value(w1, __high2float(at_centre[u]), __high2float(at_minus[u]), __high2float(at_plus[u])));
      const float value[2] = {__low2float(v), __high2float(v)};
      // Eq. 18's minimum and eq. 19, as aggr_pair.cuh's forward mode: each forward value rounded
      // to half (both of the pair by one __floats2half2_rn, as __float2half_rn rounds each).
      __half2 f = v;
      if constexpr (HALF_C) {
        if (!FIRST || u > 0) {
          low2 = __hmin2(low2, v);
          f = forward_step<true>(f2, c, c2, v);
        } else {
          low2 = v;
        }
        f2 = f;
      } else if (!FIRST || u > 0) {
        lowest[0] = fminf(lowest[0], value[0]);
        lowest[1] = fminf(lowest[1], value[1]);
        f = __floats2half2_rn(fminf(__fadd_rn(forward[0], c), value[0]), fminf(__fadd_rn(forward[1], c), value[1]));
      } else {
        lowest[0] = value[0];
        lowest[1] = value[1];
      }
      if constexpr (!HALF_C) {
        forward[0] = __low2float(f);
        forward[1] = __high2float(f);
      }
      held[k * MSG_THREADS + t] = f;
    }
  };
  int k0 = 0;
  if (levels >= MSG_GROUP) {
    group(std::integral_constant<int, MSG_GROUP>{}, std::true_type{}, 0);
    k0 = MSG_GROUP;
  } else {
    group(std::integral_constant<int, 1>{}, std::true_type{}, 0);
    k0 = 1;
  }
  for (; k0 + MSG_GROUP <= levels; k0 += MSG_GROUP)
    group(std::integral_constant<int, MSG_GROUP>{}, std::false_type{}, k0);
  for (; k0 < levels; ++k0) group(std::integral_constant<int, 1>{}, std::false_type{}, k0);

  if constexpr (HALF_C) {
    lowest[0] = __low2float(low2);
    lowest[1] = __high2float(low2);
  }
  // eq. 20 at the top level, eq. 21 below it, as cost2msg_backward (h = min + eta, eq. 18).
  const float h[2] = {__fadd_rn(lowest[0], eta), __fadd_rn(lowest[1], eta)};
  float next[2];
  {
    const __half2 f = held[(levels - 1) * MSG_THREADS + t];
    next[0] = fminf(__low2float(f), h[0]);
    next[1] = fminf(__high2float(f), h[1]);
    store_pair(o_at, unsigned(levels - 1) * plane, __floats2half2_rn(next[0], next[1]));
  }
#pragma unroll 8
  for (int k = levels - 2; k >= 0; --k) {
    const __half2 f = held[k * MSG_THREADS + t];
    next[0] = fminf(fminf(__fadd_rn(next[0], c), __low2float(f)), h[0]);
    next[1] = fminf(fminf(__fadd_rn(next[1], c), __high2float(f)), h[1]);
    store_pair(o_at, unsigned(k) * plane, __floats2half2_rn(next[0], next[1]));
  }
}

std::size_t held_bytes(int levels) { return std::size_t(levels) * MSG_THREADS * sizeof(__half2); }

}  // namespace

bool aggr_cost2msg_fits(int width, int height, int levels) {
  if (levels < 1 || !detail::pairs_fit(unsigned(width), detail::volume_cells(width, height, levels))) return false;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  return held_bytes(levels) + sizeof(WeightTable) <= shared_memory_optin_limit(device);
}

void aggr_cost2msg(const PassWeights& weights, bool vertical, const PassInputs& in, float c, float eta,
                   std::uint16_t* out, cudaStream_t stream, bool half_forward) {
  const DeviceImage<uchar4>& guide = weights.guide;
  const int step = weights.step, levels = in.planes;
  const auto prefix = std::string("esaw/cuda: aggr_") + (vertical ? "V" : "H") + "+cost2msg-: ";
  require(step >= 1, [&] { return prefix + "step must be >= 1, got " + std::to_string(step); });
  require(in.centre == in.side, [&] { return prefix + "the messages are both the centre and the side samples"; });
  require(out != nullptr && out != in.centre, [&] { return prefix + "needs an output that aliases no input"; });
  require(aggr_cost2msg_fits(guide.width, guide.height, levels), [&] {
    return prefix + std::to_string(guide.width) + "x" + std::to_string(guide.height) + " with " +
           std::to_string(levels) + " levels does not fit (an even width, < 2^32 cells, " +
           std::to_string(held_bytes(levels)) + " B of shared memory a block)";
  });
  const detail::PassShape shape{guide.width, guide.height, levels, step, weights.border == Border::clamp, 0, c, eta};
  const std::size_t smem = held_bytes(levels);
  const auto* from = reinterpret_cast<const __half*>(in.centre);
  auto* to = reinterpret_cast<__half*>(out);
  const auto launch = [&](auto kernel, int rows) {
    if (smem + sizeof(WeightTable) > 48 * 1024)
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    const dim3 grid(unsigned(div_up(guide.width / 2, MSG_THREADS)), unsigned(rows));
    kernel<<<grid, MSG_THREADS, smem, stream>>>(guide.get(), from, to, weights.table, shape);
  };
  const auto geometry = [&](auto half) {
    constexpr bool HALF = decltype(half)::value;
    if (vertical)
      launch(aggr_cost2msg_kernel<0, 1, true, HALF>, detail::vertical_row_slots(step, guide.height));
    else if (step % 2 == 0 && weights.border == Border::drop)
      launch(aggr_cost2msg_kernel<1, 0, true, HALF>, guide.height);
    else
      launch(aggr_cost2msg_kernel<1, 0, false, HALF>, guide.height);
  };
  if (half_forward && detail::c_is_half(c))
    geometry(std::true_type{});
  else
    geometry(std::false_type{});
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
