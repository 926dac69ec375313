// 3x3 median, one thread per pixel: nine clamped loads and a sorting network in registers.

#include <cstddef>
#include <string>

#include "cuda/shared/median.h"

namespace stereo::cu {
namespace {

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

// Puts the smaller of a and b in a.
__device__ __forceinline__ void order(float& a, float& b) {
  const float lo = fminf(a, b);
  b = fmaxf(a, b);
  a = lo;
}

__global__ void median_kernel(const float* __restrict__ disparity, int width, int height, float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float v[9];
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = min(max(y + dy, 0), height - 1);
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = min(max(x + dx, 0), width - 1);
      v[(dy + 1) * 3 + dx + 1] = disparity[static_cast<std::size_t>(yy) * width + xx];
    }
  }
  // The fifth smallest by a fixed network of 19 compare-exchanges (sort each triple, then the
  // columns of the sorted triples, then the diagonal that holds the median): fixed indices, so
  // v stays in registers. An insertion sort's data-dependent indices had put v in local memory
  // (23 us for Teddy's map on the H100). The median of nine numbers is one value whatever the
  // order of equal ones, so this is the reference's std::nth_element result for maps without NaN.
  order(v[1], v[2]); order(v[4], v[5]); order(v[7], v[8]);
  order(v[0], v[1]); order(v[3], v[4]); order(v[6], v[7]);
  order(v[1], v[2]); order(v[4], v[5]); order(v[7], v[8]);
  order(v[0], v[3]); order(v[5], v[8]); order(v[4], v[7]);
  order(v[3], v[6]); order(v[1], v[4]); order(v[2], v[5]);
  order(v[4], v[7]); order(v[4], v[2]); order(v[6], v[4]);
  order(v[4], v[2]);
  out[static_cast<std::size_t>(y) * width + x] = v[4];
}

}  // namespace

void median_3x3(const DeviceImage<float>& disparity, DeviceImage<float>& out, cudaStream_t stream) {
  require(disparity.width == out.width && disparity.height == out.height, [&] {
    return "cuda median_3x3: input " + std::to_string(disparity.width) + "x" + std::to_string(disparity.height) +
           " and output " + std::to_string(out.width) + "x" + std::to_string(out.height) + " differ in size";
  });
  require(out.get() != disparity.get(), "cuda median_3x3: the output must differ from the input");
  const int w = disparity.width;
  const int h = disparity.height;
  if (w == 0 || h == 0) return;
  const dim3 grid(unsigned((w + BLOCK_X - 1) / BLOCK_X), unsigned((h + BLOCK_Y - 1) / BLOCK_Y));
  median_kernel<<<grid, dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(disparity.get(), w, h, out.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu
