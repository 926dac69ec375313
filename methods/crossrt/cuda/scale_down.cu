// SD (Table II): grey conversion and eq. 2. Both are integer and tiny (one read of the input,
// one write of the full and the scaled grey); two kernels so that the full-size grey, which the
// scale-up needs, is written once and the 3x3 mean reads it through L1/L2.

#include <string>

#include "cuda/shared/grey.cuh"
#include "methods/crossrt/cuda/stages.h"

namespace stereo::cu::crossrt {
namespace {

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

__global__ void grey_kernel(const std::uint8_t* __restrict__ raw, int width, int height, int channels,
                            std::uint8_t* __restrict__ grey) {
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x >= width || y >= height) return;
  const std::size_t i = std::size_t(y) * std::size_t(width) + std::size_t(x);
  if (channels == 1) {
    grey[i] = raw[i];
    return;
  }
  const std::uint8_t* p = raw + i * std::size_t(channels);
  grey[i] = std::uint8_t(bt601_luma(p[0], p[1], p[2]));
}

__global__ void mean3x3_kernel(const std::uint8_t* __restrict__ grey, int width, int height,
                               std::uint8_t* __restrict__ scaled, int scaled_width, int scaled_height) {
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x >= scaled_width || y >= scaled_height) return;
  int sum = 0;
  for (int j = -1; j <= 1; ++j) {
    const int gy = min(max(2 * y + j, 0), height - 1);
    for (int i = -1; i <= 1; ++i) sum += grey[std::size_t(gy) * std::size_t(width) + std::size_t(min(max(2 * x + i, 0), width - 1))];
  }
  scaled[std::size_t(y) * std::size_t(scaled_width) + std::size_t(x)] = std::uint8_t((sum + 4) / 9);
}

}  // namespace

void scale_down(const std::uint8_t* raw, int channels, int scale, DeviceImage<std::uint8_t>& grey_full,
                DeviceImage<std::uint8_t>& scaled, cudaStream_t stream) {
  require(channels == 1 || channels == 3 || channels == 4,
          [&] { return "crossrt/cuda: scale_down needs 1, 3 or 4 channels, got " + std::to_string(channels); });
  require(scale == 1 || scale == 2,
          [&] { return "crossrt/cuda: scale_down supports K = 1 or 2, got " + std::to_string(scale); });
  const int w = grey_full.width;
  const int h = grey_full.height;
  const int sw = (w + scale - 1) / scale;
  const int sh = (h + scale - 1) / scale;
  require(scaled.width == sw && scaled.height == sh, [&] {
    return "crossrt/cuda: scale_down output is " + std::to_string(scaled.width) + "x" + std::to_string(scaled.height) +
           ", needs " + std::to_string(sw) + "x" + std::to_string(sh);
  });
  const dim3 block(BLOCK_X, BLOCK_Y);
  grey_kernel<<<dim3(unsigned(div_up(w, BLOCK_X)), unsigned(div_up(h, BLOCK_Y))), block, 0, stream>>>(
      raw, w, h, channels, grey_full.get());
  CUDA_CHECK_LAUNCH();
  if (scale == 1) {
    CUDA_CHECK(cudaMemcpyAsync(scaled.get(), grey_full.get(), grey_full.count(), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  mean3x3_kernel<<<dim3(unsigned(div_up(sw, BLOCK_X)), unsigned(div_up(sh, BLOCK_Y))), block, 0, stream>>>(
      grey_full.get(), w, h, scaled.get(), sw, sh);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::crossrt
