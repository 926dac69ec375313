// Step 4 of Algorithm 1 (I' mirrored left-right) fused with the conversion of the raw 8-bit
// pixels to float grey and the symmetric row extension of reference::pad_rows, so each view is
// read once and written once before its FFT. The luma is the integer BT.601 of
// reference::grey_image, so the result is bit-exact with the reference.

#include <string>

#include "cuda/shared/grey.cuh"
#include "methods/symstereo/cuda/stages.h"

namespace stereo::cu::symstereo {
namespace {

constexpr int THREADS = 256;

__global__ void flip_rows_kernel(const std::uint8_t* raw, int width, int height, int channels, bool mirror,
                                 int padded_width, float* grey) {
  const int x = int(blockIdx.x) * THREADS + int(threadIdx.x);
  const int y = int(blockIdx.y);
  if (x >= padded_width || y >= height) return;
  // The extension: its first half mirrors the row's end, its second half the row's start.
  int column = x;
  if (x >= width) {
    const int t = x - width;
    column = t < (padded_width - width) / 2 ? width - 1 - t : padded_width - 1 - x;
  }
  const int source = mirror ? width - 1 - column : column;
  const std::uint8_t* p = raw + (std::size_t(y) * std::size_t(width) + std::size_t(source)) * std::size_t(channels);
  const int luma = channels == 1 ? int(p[0]) : bt601_luma(p[0], p[1], p[2]);
  grey[std::size_t(y) * std::size_t(padded_width) + std::size_t(x)] = float(luma);
}

}  // namespace

void flip_rows(const std::uint8_t* raw, int width, int height, int channels, bool mirror, int padded_width,
               float* grey, cudaStream_t stream) {
  require(padded_width >= width && padded_width <= 2 * width, [&] {
    return "symstereo/cuda: flip_rows: padded width " + std::to_string(padded_width) + " is outside " +
           std::to_string(width) + ".." + std::to_string(2 * width) + " (the row and its mirror image)";
  });
  require(width >= 1 && height >= 1, "symstereo/cuda: flip_rows on an empty image");
  require(channels == 1 || channels == 3 || channels == 4,
          [&] { return "symstereo/cuda: flip_rows needs 1, 3 or 4 channels, got " + std::to_string(channels); });
  require(height <= 65535,
          [&] { return "symstereo/cuda: flip_rows: height " + std::to_string(height) + " exceeds 65535"; });
  const dim3 grid(unsigned(div_up(padded_width, THREADS)), unsigned(height));
  flip_rows_kernel<<<grid, THREADS, 0, stream>>>(raw, width, height, channels, mirror, padded_width, grey);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::symstereo
