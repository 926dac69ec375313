// Step 4 of Algorithm 1 (I' mirrored left-right) fused with the conversion of the raw 8-bit
// pixels to float grey, so each view is read once and written once before its FFT. The luma is
// the integer BT.601 of reference::grey_image, so the result is bit-exact with the reference.

#include <string>

#include "cuda/symstereo/stages.h"

namespace stereo::cu::symstereo {
namespace {

constexpr int THREADS = 256;

__global__ void flip_rows_kernel(const std::uint8_t* raw, int width, int height, int channels, bool mirror,
                                 float* grey) {
  const int x = int(blockIdx.x) * THREADS + int(threadIdx.x);
  const int y = int(blockIdx.y);
  if (x >= width || y >= height) return;
  const int source = mirror ? width - 1 - x : x;
  const std::uint8_t* p = raw + (std::size_t(y) * std::size_t(width) + std::size_t(source)) * std::size_t(channels);
  const int luma = channels == 1 ? int(p[0]) : (77 * int(p[0]) + 150 * int(p[1]) + 29 * int(p[2]) + 128) >> 8;
  grey[std::size_t(y) * std::size_t(width) + std::size_t(x)] = float(luma);
}

}  // namespace

void flip_rows(const std::uint8_t* raw, int width, int height, int channels, bool mirror, float* grey,
               cudaStream_t stream) {
  require(width >= 1 && height >= 1, "symstereo/cuda: flip_rows on an empty image");
  require(channels == 1 || channels == 3 || channels == 4,
          "symstereo/cuda: flip_rows needs 1, 3 or 4 channels, got " + std::to_string(channels));
  require(height <= 65535, "symstereo/cuda: flip_rows: height " + std::to_string(height) + " exceeds 65535");
  const dim3 grid(unsigned(div_up(width, THREADS)), unsigned(height));
  flip_rows_kernel<<<grid, THREADS, 0, stream>>>(raw, width, height, channels, mirror, grey);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::symstereo
