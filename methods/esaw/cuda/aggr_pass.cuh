#pragma once
// The three-sample pass of eq. 5/6 (ESMP eq. 14/16) as one kernel template over its direction,
// with its checks and launch (run_pass), shared by aggr_h.cu (DX = 1) and aggr_v.cu (DY = 1).
//
// Why it is written this way (NOTES.md, "Memory-level parallelism"):
//  - every pointer is __restrict__ (centre and side may be equal: both are only read), so the
//    loads of a plane need not wait for the store of the plane before;
//  - the plane loop runs in groups of PLANES_IN_FLIGHT: all loads of a group are issued before
//    the first value is used. One pixel per thread reads 2-byte values, so one load in flight per
//    thread cannot cover DRAM or L2 latency (Little's law: 2.9 TB/s x ~0.7 us = 2 MB in flight);
//  - resident warps matter as much as loads per warp: at 60 registers (groups of 8, no cap) only
//    half the warp slots were filled and a pass ran at 31 % of the copy rate. Capped at 40
//    registers (6 blocks of 256 per SM, 75 % of the slots) with groups of 4, 1920 x 1080 x 256
//    on the H100: ESAW-9 40.3 -> 31.0 ms, ESMP-8 48.8 -> 40.7 ms; the sweep (min blocks 0/6/8 x
//    groups 4/8) is in NOTES.md. 32 registers (8 blocks) spill and lose. With the prefetch below,
//    48 registers (5 blocks, no spills) beat 40 (22.5 against 23.2 ms);
//  - more bytes in flight than registers can hold: before loading a group, each thread asks the
//    L2 to fetch its centre cells PREFETCH_AHEAD planes ahead (prefetch.global.L2, no register, no
//    wait), so DRAM works on the next groups while this one is summed. ESAW-9 28.0 -> 24.1 ms,
//    ESMP-8 39.6 -> 37.2 ms (16 planes ahead: the same; 32: lines evicted before use, slower);
//  - what a pass does with its outputs (store, fused WTA, ESMP's forward min-sum) is a template
//    argument, so a plain pass carries no registers or branches for the others;
//  - the arithmetic of a cell is exactly the old kernel's (weights.cuh, the reference's order,
//    explicit _rn intrinsics), so the stage tests stay bit-exact.

#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "methods/esaw/cuda/aggr_pair.cuh"
#include "methods/esaw/cuda/pass_shape.cuh"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/cuda/weights.cuh"

namespace stereo::cu::esaw::detail {

constexpr int AGGR_BLOCK_X = 64;
constexpr int AGGR_BLOCK_Y = 4;
constexpr int PLANES_IN_FLIGHT = 4;
// 5 blocks of 256 a SM: 48 registers, no spills (6 blocks, 40 registers, spill a few bytes in the
// vertical pass: 23.2 against 22.5 ms for ESAW-9 at 1080p x 256 on the H100, NOTES.md).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
constexpr int AGGR_MIN_BLOCKS = 4;  // Turing holds at most 1024 threads per SM
#else
constexpr int AGGR_MIN_BLOCKS = 5;
#endif

template <int DX, int DY, PassOutput MODE>
__global__ void __launch_bounds__(AGGR_BLOCK_X * AGGR_BLOCK_Y, AGGR_MIN_BLOCKS)
    aggr_pass_kernel(const uchar4* __restrict__ guide, const __half* __restrict__ centre,
                     const __half* __restrict__ side, __half* __restrict__ out, WeightTable table, PassShape shape,
                     PassSinks sinks) {
  const int width = shape.width, height = shape.height, planes = shape.planes, step = shape.step;
  const bool clamp_border = shape.clamp_border;
  __shared__ WeightTable shared_table;
  const int2 pixel = pass_pixel<AGGR_BLOCK_X, AGGR_BLOCK_Y, 1>(shared_table, table);
  const int x = pixel.x;
  int y = pixel.y;
  if (DY) y = vertical_row_order(y, step, height);
  if (x >= width || y >= height) return;
  std::size_t i, im, ip;
  bool in_minus, in_plus;
  pass_samples<DX, DY>(x, y, width, height, step, clamp_border, i, im, ip, in_minus, in_plus);
  const std::size_t w = std::size_t(width);
  const Weights wt = pass_weights(shared_table, guide[i], guide[im], guide[ip], in_minus, in_plus);
  // The side loads are predicated on the geometry only, not on the weights, so that they need not
  // wait for the RGBA loads and the weights' arithmetic: every thread issues its RGBA loads and
  // the first group's volume loads at once. (im, ip are clamped, so the addresses are valid;
  // weighted_sum ignores a side whose weight came out 0, as the reference does.)
  const bool read_minus = in_minus, read_plus = in_plus;

  const std::size_t plane = w * std::size_t(height);
  float best = 0.0f, best_d = 0.0f;
  if constexpr (MODE == PassOutput::winner) {
    best = sinks.winner_cost[i];
    best_d = sinks.winner_disparity[i];
  }
  float lowest = 0.0f, forward = 0.0f;  // aggr_H+/aggr_V+ (ESMP): the min-sum's forward pass, eq. 17-19
  constexpr int GROUP = PLANES_IN_FLIGHT;
  for (int k0 = 0; k0 < planes; k0 += GROUP) {
    if constexpr (PREFETCH_AHEAD > 0) {
#pragma unroll
      for (int u = 0; u < GROUP; ++u) {
        const int k = k0 + PREFETCH_AHEAD + u;
        if (k < planes) prefetch_l2(centre + std::size_t(k) * plane + i);
      }
    }
    // (Not named c: that is eq. 10's slope, a parameter of this kernel.)
    float at_centre[GROUP], at_minus[GROUP], at_plus[GROUP];
#pragma unroll
    for (int u = 0; u < GROUP; ++u) {
      const bool live = k0 + u < planes;
      const std::size_t o = std::size_t(live ? k0 + u : k0) * plane;
      at_centre[u] = live ? __half2float(centre[o + i]) : 0.0f;
      at_minus[u] = live && read_minus ? __half2float(side[o + im]) : 0.0f;
      at_plus[u] = live && read_plus ? __half2float(side[o + ip]) : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < GROUP; ++u) {
      const int k = k0 + u;
      if (k >= planes) break;
      const std::size_t o = std::size_t(k) * plane;
      const __half v = weighted_sum(wt, at_centre[u], at_minus[u], at_plus[u]);
      if constexpr (MODE == PassOutput::forward) {
        // Eq. 18's minimum over the stored outputs; eq. 19 on them, each forward value rounded
        // as reference::cost2msg rounds it.
        const float value = __half2float(v);
        lowest = k == 0 ? value : fminf(lowest, value);
        forward = k == 0 ? value : __half2float(__float2half_rn(fminf(__fadd_rn(forward, shape.c), value)));
        out[o + i] = __float2half_rn(forward);
      } else if (out) {
        out[o + i] = v;
      }
      if constexpr (MODE == PassOutput::winner) {
        const float stored = __half2float(v);
        if (stored < best) {  // strictly smaller: over increasing disparities the first wins a tie
          best = stored;
          best_d = float(shape.first_disparity + k);
        }
      }
    }
  }
  if constexpr (MODE == PassOutput::winner) {
    sinks.winner_cost[i] = best;
    sinks.winner_disparity[i] = best_d;
  }
  if constexpr (MODE == PassOutput::forward) sinks.truncation[i] = __fadd_rn(lowest, shape.eta);  // eq. 18's h
}

// Launches the pass in the mode its arguments ask for (winner: a fused WTA; truncation: the
// forward min-sum; neither: a plain pass), two pixels a thread where pairs_fit (aggr_pair.cuh).
// Vertical passes visit their rows in step order (vertical_row_order).
template <int DX, int DY>
void launch_pass(cudaStream_t stream, const uchar4* guide, const __half* centre, const __half* side, __half* out,
                 const WeightTable& table, const PassShape& shape, const PassSinks& sinks) {
  const int rows = DY ? vertical_row_slots(shape.step, shape.height) : shape.height;
  if (pairs_fit(unsigned(shape.width), volume_cells(shape.width, shape.height, shape.planes), {centre, side, out})) {
    const dim3 grid(unsigned(div_up(shape.width / 2, PAIR_BLOCK_X)), unsigned(div_up(rows, PAIR_BLOCK_Y)));
    const dim3 block(PAIR_BLOCK_X, PAIR_BLOCK_Y);
    if (sinks.winner_cost)
      aggr_pair_kernel<DX, DY, PassOutput::winner><<<grid, block, 0, stream>>>(guide, centre, side, out, table, shape,
                                                                               sinks);
    else if (sinks.truncation)
      aggr_pair_kernel<DX, DY, PassOutput::forward><<<grid, block, 0, stream>>>(guide, centre, side, out, table,
                                                                                shape, sinks);
    else
      aggr_pair_kernel<DX, DY, PassOutput::plain><<<grid, block, 0, stream>>>(guide, centre, side, out, table, shape,
                                                                              sinks);
    return;
  }
  const dim3 grid(unsigned(div_up(shape.width, AGGR_BLOCK_X)), unsigned(div_up(rows, AGGR_BLOCK_Y)));
  const dim3 block(AGGR_BLOCK_X, AGGR_BLOCK_Y);
  if (sinks.winner_cost)
    aggr_pass_kernel<DX, DY, PassOutput::winner><<<grid, block, 0, stream>>>(guide, centre, side, out, table, shape,
                                                                             sinks);
  else if (sinks.truncation)
    aggr_pass_kernel<DX, DY, PassOutput::forward><<<grid, block, 0, stream>>>(guide, centre, side, out, table, shape,
                                                                              sinks);
  else
    aggr_pass_kernel<DX, DY, PassOutput::plain><<<grid, block, 0, stream>>>(guide, centre, side, out, table, shape,
                                                                            sinks);
}

// aggr_H and aggr_V (aggr_h.cu, aggr_v.cu): the checks of their arguments and the launch of one
// pass along (DX, DY); `stage` names it in the errors. The checks run every pass of every match,
// so their messages are made only when one fails.
template <int DX, int DY>
void run_pass(const char* stage, const PassWeights& weights, const PassInputs& in, std::uint16_t* out, Winner* winner,
              int first_disparity, cudaStream_t stream, const ForwardMinSum* forward) {
  const DeviceImage<uchar4>& guide = weights.guide;
  const std::uint16_t* centre = in.centre;
  const std::uint16_t* side = in.side;
  const int planes = in.planes, step = weights.step;
  const auto prefix = [stage](const char* suffix) { return std::string("esaw/cuda: ") + stage + suffix; };
  require(step >= 1, [&] { return prefix(": step must be >= 1, got ") + std::to_string(step); });
  require(planes >= 1, [&] { return prefix(": needs at least one plane, got ") + std::to_string(planes); });
  require(out || winner, [&] { return prefix(": neither an output volume nor a winner to update"); });
  require(out != centre && out != side, [&] { return prefix(": the output may not alias an input"); });
  if (winner)
    require(winner->cost.width == guide.width && winner->cost.height == guide.height,
            [&] { return prefix(": winner map size differs from the image"); });
  if (forward) {
    require(out && !winner,
            [&] { return prefix("+: the forward min-sum needs an output volume and no fused WTA"); });
    require(forward->truncation && forward->truncation->width == guide.width &&
                forward->truncation->height == guide.height,
            [&] { return prefix("+: the truncation map is missing or differs in size from the image"); });
  }
  const PassShape shape{guide.width, guide.height, planes, step, weights.border == Border::clamp, first_disparity,
                        forward ? forward->c : 0.0f, forward ? forward->eta : 0.0f};
  const PassSinks sinks{winner ? winner->cost.get() : nullptr, winner ? winner->disparity.get() : nullptr,
                        forward ? forward->truncation->get() : nullptr};
  launch_pass<DX, DY>(stream, guide.get(), reinterpret_cast<const __half*>(centre),
                      reinterpret_cast<const __half*>(side), reinterpret_cast<__half*>(out), weights.table, shape,
                      sinks);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw::detail
