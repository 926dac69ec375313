// init_cost: eq. 3 on a slab of disparity planes. One thread per pixel walks the slab's
// planes, so its left grey value is read once; the right row is read through L1.

#include <cuda_fp16.h>

#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/cuda/weights.cuh"

namespace stereo::cu::esaw {
namespace {

constexpr int BLOCK_X = 64;
constexpr int BLOCK_Y = 4;

__global__ void init_cost_kernel(const std::uint8_t* grey_left, const std::uint8_t* grey_right, detail::SlabShape slab,
                                 __half* out) {
  const int width = slab.width, height = slab.height, first_disparity = slab.first_disparity, planes = slab.planes;
  const float lambda = slab.lambda, tau = slab.tau;
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x >= width || y >= height) return;
  const std::size_t plane = std::size_t(width) * std::size_t(height);
  const std::size_t i = std::size_t(y) * std::size_t(width) + std::size_t(x);
  const int left = grey_left[i];
  const std::uint8_t* right = grey_right + std::size_t(y) * std::size_t(width);
  for (int k = 0; k < planes; ++k) {
    const int xr = min(max(x - (first_disparity + k), 0), width - 1);  // the reference's clamp to edge
    const float diff = float(abs(left - int(right[xr])));
    out[std::size_t(k) * plane + i] = __float2half_rn(__fmul_rn(lambda, fminf(diff, tau)));
  }
}

}  // namespace

void init_cost(const CostSlab& cost, std::uint16_t* out, cudaStream_t stream) {
  const DeviceImage<std::uint8_t>& grey_left = cost.grey_left;
  const DeviceImage<std::uint8_t>& grey_right = cost.grey_right;
  const int planes = cost.planes;
  require(grey_left.width == grey_right.width && grey_left.height == grey_right.height,
          "esaw/cuda: init_cost: left and right grey images differ in size");
  require(planes >= 1, [&] { return "esaw/cuda: init_cost: needs at least one plane, got " + std::to_string(planes); });
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid(unsigned(div_up(grey_left.width, BLOCK_X)), unsigned(div_up(grey_left.height, BLOCK_Y)));
  const detail::SlabShape slab{grey_left.width, grey_left.height, cost.first_disparity, planes, cost.lambda, cost.tau};
  init_cost_kernel<<<grid, block, 0, stream>>>(grey_left.get(), grey_right.get(), slab, reinterpret_cast<__half*>(out));
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
