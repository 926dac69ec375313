// aggr_msg: ESMP's pass with cost2msg- folded in (methods/esaw/cuda/NOTES.md, "ESMP: one volume pass per
// aggregation"). The literal reading's pass t reads messages M = cost2msg-(F, h) of the previous
// pass's forward values F and truncations h, aggregates them (eq. 14 / 16) and stores the forward
// min-sum of its output (eq. 17-19). The backward pass (eq. 20-21) runs from the top level down
// and the forward pass from the bottom up, so they cannot share one walk over the levels: this
// kernel walks down, finishing the messages of its three samples on the fly (three running
// values, each sample's recurrence exactly cost2msg_backward's), keeps its pixel's outputs as
// halves in shared memory ([k][thread], as cost2msg does), then walks up for the forward pass.
// The volume is read once and written once per pass, and the stand-alone cost2msg- (a full
// read and write of the volume per pass) disappears. Every value is the old path's bit for bit:
// a message is rounded to half before it is aggregated, as the old path stored it.
//
// With a winner, the walk down also runs eq. 7 (<=, walking down, so the lowest disparity of a
// tie wins, as the reference's strict < walking up) and nothing is stored.

#include <cuda_fp16.h>

#include <cmath>

#include "methods/esaw/cuda/aggr_pass.cuh"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/cuda/weights.cuh"

namespace stereo::cu::esaw {
namespace {

constexpr int THREADS = 64;  // a row segment: coalesced 128-byte rows, and levels x 128 B of shared memory
constexpr int IN_FLIGHT = 8;  // levels loaded ahead (Little's law, NOTES.md)

// The kernel's sizes and scalars: the image's size, the levels, the step and the border, eq. 10's
// c and eta, the disparity of level 0 (winner).
struct MsgShape {
  int width;
  int height;
  int levels;
  int step;
  bool clamp_border;
  float c;
  float eta;
  int first_disparity;
};

// The running arg-min a last pass writes instead of its messages (null: none).
struct MsgWinner {
  float* cost;
  float* disparity;
};

template <int DX, int DY>
__global__ void __launch_bounds__(THREADS)
    aggr_msg_kernel(const uchar4* __restrict__ guide, const __half* __restrict__ forward_in,
                    const float* __restrict__ h_in, __half* __restrict__ forward_out, float* __restrict__ h_out,
                    WeightTable table, MsgShape shape, MsgWinner winner) {
  const int width = shape.width, height = shape.height, levels = shape.levels, step = shape.step;
  const bool clamp_border = shape.clamp_border;
  const float c = shape.c, eta = shape.eta;
  const int first_disparity = shape.first_disparity;
  float* __restrict__ winner_cost = winner.cost;
  float* __restrict__ winner_disparity = winner.disparity;
  extern __shared__ __half held[];  // held[k * THREADS + t]: this pixel's outputs, level k
  __shared__ WeightTable shared_table;
  const int t = threadIdx.x;
  detail::stage_table(shared_table, table, t, THREADS);

  const int x = blockIdx.x * THREADS + t;
  // Vertical: block rows run in the order q, q + s, q + 2s, ... for q = 0 .. s - 1, so the rows a
  // block reads as sides (y +- s) are the centre rows of the blocks just before and after it and
  // stay in L2 for all levels (in plain order they are s rows apart: at s > ~20 rows, beyond
  // what 50 MB holds of 256 levels, and read from DRAM three times).
  int y = blockIdx.y;
  if (DY) y = detail::vertical_row_order(y, step, height);
  if (x >= width || y >= height) return;  // no barrier below: each thread owns its column of held
  std::size_t i, im, ip;
  bool in_minus, in_plus;
  detail::pass_samples<DX, DY>(x, y, width, height, step, clamp_border, i, im, ip, in_minus, in_plus);
  const std::size_t w = std::size_t(width);
  const detail::Weights wt = detail::pass_weights(shared_table, guide[i], guide[im], guide[ip], in_minus, in_plus);
  const std::size_t plane = w * std::size_t(height);

  // Eq. 20-21 for the three samples: running messages and their truncations.
  const float h_c = h_in[i];
  const float h_m = in_minus ? h_in[im] : 0.0f;
  const float h_p = in_plus ? h_in[ip] : 0.0f;
  float m_c = 0.0f, m_m = 0.0f, m_p = 0.0f;
  float best = INFINITY, best_d = INFINITY, lowest = 0.0f;
  for (int top = levels - 1; top >= 0; top -= IN_FLIGHT) {
    float f_c[IN_FLIGHT], f_m[IN_FLIGHT], f_p[IN_FLIGHT];
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; ++u) {
      const int k = top - u;
      const std::size_t o = std::size_t(k >= 0 ? k : 0) * plane;
      f_c[u] = k >= 0 ? __half2float(forward_in[o + i]) : 0.0f;
      f_m[u] = k >= 0 && in_minus ? __half2float(forward_in[o + im]) : 0.0f;
      f_p[u] = k >= 0 && in_plus ? __half2float(forward_in[o + ip]) : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; ++u) {
      const int k = top - u;
      if (k < 0) break;
      if (k == levels - 1) {  // eq. 20
        m_c = fminf(f_c[u], h_c);
        m_m = fminf(f_m[u], h_m);
        m_p = fminf(f_p[u], h_p);
      } else {  // eq. 21
        m_c = fminf(fminf(__fadd_rn(m_c, c), f_c[u]), h_c);
        m_m = fminf(fminf(__fadd_rn(m_m, c), f_m[u]), h_m);
        m_p = fminf(fminf(__fadd_rn(m_p, c), f_p[u]), h_p);
      }
      // The messages as the separate cost2msg- stored them (rounded to half).
      const __half v = detail::weighted_sum(wt, __half2float(__float2half_rn(m_c)),
                                            __half2float(__float2half_rn(m_m)), __half2float(__float2half_rn(m_p)));
      const float value = __half2float(v);
      if (winner_cost) {
        if (value <= best && value < INFINITY) {  // as wta_reset's +inf then strict < walking up
          best = value;
          best_d = float(first_disparity + k);
        }
      } else {
        held[k * THREADS + t] = v;
        lowest = k == levels - 1 ? value : fminf(lowest, value);  // eq. 18's minimum (order-free)
      }
    }
  }
  if (winner_cost) {
    winner_cost[i] = best;
    winner_disparity[i] = best_d;
    return;
  }
  // Eq. 17-19 on the stored outputs, each forward value rounded as reference::cost2msg rounds it.
  float forward = __half2float(held[t]);
  forward_out[i] = held[t];
  for (int k = 1; k < levels; ++k) {
    forward = __half2float(__float2half_rn(fminf(__fadd_rn(forward, c), __half2float(held[k * THREADS + t]))));
    forward_out[std::size_t(k) * plane + i] = __float2half_rn(forward);
  }
  h_out[i] = __fadd_rn(lowest, eta);  // eq. 18's h
}

template <int DX, int DY>
void launch(const PassWeights& weights, const __half* forward_in, const float* h_in, __half* forward_out, float* h_out,
            const MsgShape& shape, const MsgWinner& winner, cudaStream_t stream) {
  const DeviceImage<uchar4>& guide = weights.guide;
  const int levels = shape.levels;
  const std::size_t smem = winner.cost ? 0 : std::size_t(levels) * THREADS * sizeof(__half);
  if (smem + sizeof(WeightTable) > 48 * 1024) {  // static + dynamic beyond the default 48 KB: opt in
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    const std::size_t limit = shared_memory_optin_limit(device) - sizeof(WeightTable);
    require(smem <= limit, [&] {
      return "esaw/cuda: aggr_msg: " + std::to_string(levels) + " levels need " + std::to_string(smem) +
             " B of shared memory per block, the device allows " + std::to_string(limit);
    });
    CUDA_CHECK(cudaFuncSetAttribute(aggr_msg_kernel<DX, DY>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  }
  const int rows = DY ? detail::vertical_row_slots(shape.step, guide.height) : guide.height;
  const dim3 grid(unsigned(div_up(guide.width, THREADS)), unsigned(rows));
  aggr_msg_kernel<DX, DY><<<grid, THREADS, smem, stream>>>(guide.get(), forward_in, h_in, forward_out, h_out,
                                                           weights.table, shape, winner);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void aggr_msg(const PassWeights& weights, bool vertical, const ForwardMessages& in, float c, float eta,
              const MessageOutputs& out, cudaStream_t stream) {
  const DeviceImage<uchar4>& guide = weights.guide;
  const int step = weights.step, levels = in.levels;
  const std::uint16_t* forward_in = in.forward;
  const DeviceImage<float>& truncation_in = in.truncation;
  std::uint16_t* forward_out = out.forward;
  DeviceImage<float>* truncation_out = out.truncation;
  Winner* winner = out.winner;
  require(step >= 1, [&] { return "esaw/cuda: aggr_msg: step must be >= 1, got " + std::to_string(step); });
  require(levels >= 1, [&] { return "esaw/cuda: aggr_msg: needs at least one level, got " + std::to_string(levels); });
  require(truncation_in.width == guide.width && truncation_in.height == guide.height,
          "esaw/cuda: aggr_msg: the input truncation map differs in size from the image");
  if (winner) {
    require(!forward_out && !truncation_out, "esaw/cuda: aggr_msg: with a fused WTA nothing else is written");
    require(winner->cost.width == guide.width && winner->cost.height == guide.height,
            "esaw/cuda: aggr_msg: winner map size differs from the image");
  } else {
    require(forward_out && truncation_out, "esaw/cuda: aggr_msg: needs an output volume and truncation map");
    require(forward_out != forward_in && truncation_out->get() != truncation_in.get(),
            "esaw/cuda: aggr_msg: the outputs may not alias the inputs (neighbours read them)");
    require(truncation_out->width == guide.width && truncation_out->height == guide.height,
            "esaw/cuda: aggr_msg: the output truncation map differs in size from the image");
  }
  const MsgShape shape{guide.width, guide.height, levels, step, weights.border == Border::clamp, c, eta,
                       out.first_disparity};
  const MsgWinner win{winner ? winner->cost.get() : nullptr, winner ? winner->disparity.get() : nullptr};
  const auto* h_in = truncation_in.get();
  const auto* f_in = reinterpret_cast<const __half*>(forward_in);
  auto* f_out = reinterpret_cast<__half*>(forward_out);
  float* h_out = truncation_out ? truncation_out->get() : nullptr;
  if (vertical)
    launch<0, 1>(weights, f_in, h_in, f_out, h_out, shape, win, stream);
  else
    launch<1, 0>(weights, f_in, h_in, f_out, h_out, shape, win, stream);
}

}  // namespace stereo::cu::esaw
