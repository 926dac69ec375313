// init_cost + aggr_H fused: ESAW's first horizontal pass (eq. 5) computing its three samples of
// eq. 3 on the fly from the grey rows instead of reading a stored C0, so C0 is never written
// and read back (4 B a cell, ~0.8 ms at 1920 x 1080 x 256). Each sample is rounded to half
// before it is weighted, as the stored C0 was, so the output equals aggr_H(init_cost(...)) bit
// for bit. The grey rows are read through L1 (one byte per sample per plane); the weights once
// per pixel, as in aggr_pass.cuh.

#include <cuda_fp16.h>

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
  detail::stage_table(shared_table, table, threadIdx.y * BLOCK_X + threadIdx.x, BLOCK_X * BLOCK_Y);

  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
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
  const dim3 grid(unsigned(div_up(guide.width, BLOCK_X)), unsigned(div_up(guide.height, BLOCK_Y)));
  const detail::SlabShape slab{guide.width, guide.height, cost.first_disparity, planes, cost.lambda, cost.tau};
  init_aggr_h_kernel<<<grid, block, 0, stream>>>(guide.get(), grey_left.get(), grey_right.get(), slab, step,
                                                 weights.table, weights.border == Border::clamp,
                                                 reinterpret_cast<__half*>(out));
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
