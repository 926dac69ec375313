// 3x3 median, one thread per pixel: nine clamped loads and an insertion sort in registers.

#include <cstddef>
#include <string>

#include "cuda/shared/median.h"

namespace stereo::cu {
namespace {

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

__global__ void median_kernel(const float* __restrict__ disparity, int width, int height, float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float v[9];
  int n = 0;
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = min(max(y + dy, 0), height - 1);
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = min(max(x + dx, 0), width - 1);
      v[n++] = disparity[static_cast<std::size_t>(yy) * width + xx];
    }
  }
  // Insertion sort of nine values: the median is the fifth whatever the order of equal ones.
  for (int a = 1; a < 9; ++a) {
    const float key = v[a];
    int b = a - 1;
    while (b >= 0 && v[b] > key) {
      v[b + 1] = v[b];
      --b;
    }
    v[b + 1] = key;
  }
  out[static_cast<std::size_t>(y) * width + x] = v[4];
}

}  // namespace

void median_3x3(const DeviceImage<float>& disparity, DeviceImage<float>& out, cudaStream_t stream) {
  require(disparity.width == out.width && disparity.height == out.height,
          "cuda median_3x3: input " + std::to_string(disparity.width) + "x" + std::to_string(disparity.height) +
              " and output " + std::to_string(out.width) + "x" + std::to_string(out.height) + " differ in size");
  require(out.get() != disparity.get(), "cuda median_3x3: the output must differ from the input");
  const int w = disparity.width;
  const int h = disparity.height;
  if (w == 0 || h == 0) return;
  const dim3 grid(unsigned((w + BLOCK_X - 1) / BLOCK_X), unsigned((h + BLOCK_Y - 1) / BLOCK_Y));
  median_kernel<<<grid, dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(disparity.get(), w, h, out.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu
