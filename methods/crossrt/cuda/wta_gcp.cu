// CC (Table II): the cross-check of eq. 10, the shared left-right consistency test. The WTA itself is fused into the CA stage
// (aggregate_y.cu); this stage reads the two maps and marks the ground control points. One
// thread per pixel; the read of D_R at x - k is data dependent but lands in the same row,
// which L1 holds.

#include <cmath>

#include "methods/crossrt/cuda/stages.h"
#include "cuda/shared/lr_consistency.cuh"

namespace stereo::cu::crossrt {
namespace {

constexpr int BLOCK_X = 128;

__global__ void gcp_kernel(const float* __restrict__ left, const float* __restrict__ right, int width, int height,
                           std::uint8_t* __restrict__ mask) {
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= width) return;
  const std::size_t row = std::size_t(y) * std::size_t(width);
  mask[row + x] = std::uint8_t(lr_consistent(right, width, x, y, left[row + x]));
}

}  // namespace

void gcp(const DeviceImage<float>& left_disparity, const DeviceImage<float>& right_disparity,
         DeviceImage<std::uint8_t>& gcp_mask, cudaStream_t stream) {
  const int w = left_disparity.width;
  const int h = left_disparity.height;
  require(right_disparity.width == w && right_disparity.height == h && gcp_mask.width == w && gcp_mask.height == h,
          "crossrt/cuda: gcp needs two maps and a mask of one size");
  gcp_kernel<<<dim3(unsigned(div_up(w, BLOCK_X)), unsigned(h)), BLOCK_X, 0, stream>>>(
      left_disparity.get(), right_disparity.get(), w, h, gcp_mask.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::crossrt
