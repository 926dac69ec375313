// init_cost + aggr_H fused: ESAW's first horizontal pass (eq. 5) computing its three samples of
// eq. 3 on the fly from the grey rows instead of reading a stored C0, so C0 is never written
// and read back (4 B a cell, ~0.8 ms at 1920 x 1080 x 256). Each sample is rounded to half
// before it is weighted, as the stored C0 was, so the output equals aggr_H(init_cost(...)) bit
// for bit. The grey rows are read through L1 (one byte per sample per plane); the weights once
// per pixel, as in aggr_pass.cuh.

#include <cuda_fp16.h>

#include <cstdint>

#include "methods/esaw/cuda/aggr_pair.cuh"
#include "methods/esaw/cuda/pass_shape.cuh"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/cuda/weights.cuh"

namespace stereo::cu::esaw {
namespace {

constexpr int BLOCK_X = 64;
constexpr int BLOCK_Y = 4;

__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
    init_aggr_h_kernel(const uchar4* __restrict__ guide, const std::uint8_t* __restrict__ grey_left,
                       const std::uint8_t* __restrict__ grey_right, detail::SlabShape slab, int step,
                       WeightTable table, bool clamp_border, __half* __restrict__ out) {
  const int width = slab.width, height = slab.height, first_disparity = slab.first_disparity, planes = slab.planes;
  const float lambda = slab.lambda, tau = slab.tau;
  __shared__ WeightTable shared_table;
  const auto [x, y] = detail::pass_pixel<BLOCK_X, BLOCK_Y, 1>(shared_table, table);
  if (x >= width || y >= height) return;
  const int xm = x - step, xp = x + step;
  const bool in_minus = clamp_border || xm >= 0;
  const bool in_plus = clamp_border || xp < width;
  const int cm = max(xm, 0), cp = min(xp, width - 1);
  const std::size_t row = std::size_t(y) * std::size_t(width);
  const detail::Weights wt =
      detail::pass_weights(shared_table, guide[row + x], guide[row + cm], guide[row + cp], in_minus, in_plus);
  const int left_c = grey_left[row + x], left_m = grey_left[row + cm], left_p = grey_left[row + cp];
  const std::uint8_t* right_row = grey_right + row;
  const std::size_t plane = std::size_t(width) * std::size_t(height);
#pragma unroll 4
  for (int k = 0; k < planes; ++k) {
    const int d = first_disparity + k;
    const float at_centre = detail::grey_cost(left_c, right_row, x, d, width, lambda, tau);
    const float at_minus = in_minus ? detail::grey_cost(left_m, right_row, cm, d, width, lambda, tau) : 0.0f;
    const float at_plus = in_plus ? detail::grey_cost(left_p, right_row, cp, d, width, lambda, tau) : 0.0f;
    out[std::size_t(k) * plane + row + std::size_t(x)] = detail::weighted_sum(wt, at_centre, at_minus, at_plus);
  }
}

// Two pixels a thread (x, x + 1; x even), where the width is even and the slab has fewer than
// 2^32 cells: one 32-bit store a pair (aggr_pair.cuh says why). With UNIT (step 1, every ESAW's
// first iteration) pixel x + 1's left sample is pixel x's centre and pixel x's right sample is
// x + 1's centre, so a pair computes four samples of eq. 3, not six (the same calls, so the same
// values).
template <bool UNIT>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
    init_aggr_h_pair_kernel(const uchar4* __restrict__ guide, const std::uint8_t* __restrict__ grey_left,
                            const std::uint8_t* __restrict__ grey_right, detail::SlabShape slab, int step,
                            WeightTable table, bool clamp_border, __half* __restrict__ out) {
  const int width = slab.width, height = slab.height, first_disparity = slab.first_disparity, planes = slab.planes;
  const float lambda = slab.lambda, tau = slab.tau;
  __shared__ WeightTable shared_table;
  const auto [x, y] = detail::pass_pixel<BLOCK_X, BLOCK_Y, 2>(shared_table, table);
  if (x >= width || y >= height) return;  // the width is even: x + 1 is inside too
  const std::size_t row = std::size_t(y) * std::size_t(width);
  bool in_minus[2], in_plus[2];
  int cm[2], cp[2], left_m[2], left_p[2];
  detail::Weights wt[2];
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const int xm = x + j - step, xp = x + j + step;
    in_minus[j] = clamp_border || xm >= 0;
    in_plus[j] = clamp_border || xp < width;
    cm[j] = max(xm, 0);
    cp[j] = min(xp, width - 1);
    wt[j] = detail::pass_weights(shared_table, guide[row + x + j], guide[row + cm[j]], guide[row + cp[j]], in_minus[j],
                                 in_plus[j]);
    left_m[j] = grey_left[row + cm[j]];
    left_p[j] = grey_left[row + cp[j]];
  }
  const int left_c0 = grey_left[row + x], left_c1 = grey_left[row + x + 1];
  const std::uint8_t* right_row = grey_right + row;
  const unsigned plane = unsigned(width) * unsigned(height);
  __half* const o_at = detail::thread_base(out + row + x);
#pragma unroll 4
  for (int k = 0; k < planes; ++k) {
    const int d = first_disparity + k;
    const float c0 = detail::grey_cost(left_c0, right_row, x, d, width, lambda, tau);
    const float c1 = detail::grey_cost(left_c1, right_row, x + 1, d, width, lambda, tau);
    const float m0 = in_minus[0] ? detail::grey_cost(left_m[0], right_row, cm[0], d, width, lambda, tau) : 0.0f;
    const float p1 = in_plus[1] ? detail::grey_cost(left_p[1], right_row, cp[1], d, width, lambda, tau) : 0.0f;
    float m1 = c0, p0 = c1;
    if constexpr (!UNIT) {
      m1 = in_minus[1] ? detail::grey_cost(left_m[1], right_row, cm[1], d, width, lambda, tau) : 0.0f;
      p0 = in_plus[0] ? detail::grey_cost(left_p[0], right_row, cp[0], d, width, lambda, tau) : 0.0f;
    }
    detail::store_pair(o_at, unsigned(k) * plane,
                       __floats2half2_rn(detail::weighted_value(wt[0], c0, m0, p0),
                                         detail::weighted_value(wt[1], c1, m1, p1)));
  }
}

}  // namespace

void init_aggr_H(const CostSlab& cost, const PassWeights& weights, std::uint16_t* out, cudaStream_t stream) {
  const DeviceImage<std::uint8_t>& grey_left = cost.grey_left;
  const DeviceImage<std::uint8_t>& grey_right = cost.grey_right;
  const DeviceImage<uchar4>& guide = weights.guide;
  const int planes = cost.planes, step = weights.step;
  require(grey_left.width == grey_right.width && grey_left.height == grey_right.height &&
              guide.width == grey_left.width && guide.height == grey_left.height,
          "esaw/cuda: init_cost+aggr_H: the grey and guide images differ in size");
  require(step >= 1, [&] { return "esaw/cuda: init_cost+aggr_H: step must be >= 1, got " + std::to_string(step); });
  require(planes >= 1,
          [&] { return "esaw/cuda: init_cost+aggr_H: needs at least one plane, got " + std::to_string(planes); });
  require(out != nullptr, "esaw/cuda: init_cost+aggr_H: no output volume");
  const dim3 block(BLOCK_X, BLOCK_Y);
  const detail::SlabShape slab{guide.width, guide.height, cost.first_disparity, planes, cost.lambda, cost.tau};
  const bool clamp = weights.border == Border::clamp;
  auto* to = reinterpret_cast<__half*>(out);
  if (detail::pairs_fit(unsigned(guide.width), detail::volume_cells(guide.width, guide.height, planes), {out})) {
    const dim3 grid(unsigned(div_up(guide.width / 2, BLOCK_X)), unsigned(div_up(guide.height, BLOCK_Y)));
    if (step == 1)
      init_aggr_h_pair_kernel<true><<<grid, block, 0, stream>>>(guide.get(), grey_left.get(), grey_right.get(), slab,
                                                                step, weights.table, clamp, to);
    else
      init_aggr_h_pair_kernel<false><<<grid, block, 0, stream>>>(guide.get(), grey_left.get(), grey_right.get(), slab,
                                                                 step, weights.table, clamp, to);
  } else {
    const dim3 grid(unsigned(div_up(guide.width, BLOCK_X)), unsigned(div_up(guide.height, BLOCK_Y)));
    init_aggr_h_kernel<<<grid, block, 0, stream>>>(guide.get(), grey_left.get(), grey_right.get(), slab, step,
                                                   weights.table, clamp, to);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
