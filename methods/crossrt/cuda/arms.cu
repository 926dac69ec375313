// arms x / arms y (Table II W+-LR, W*+-LR): the brightness runs of Sec. III-C, once per view.
// One thread per pixel and direction pair; a run reads at most W_x (W_y) neighbours, which
// neighbouring threads share through L1, so both kernels sit at a few microseconds.

#include <string>

#include "methods/crossrt/cuda/stages.h"

namespace stereo::cu::crossrt {
namespace {

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

// reference arm_run: the run of q = p + s * step within tc of p, at most `limit` long.
__device__ int arm_run(const std::uint8_t* __restrict__ grey, int width, int height, int x, int y, int dx, int dy,
                       int limit, int tc) {
  const int centre = grey[std::size_t(y) * std::size_t(width) + std::size_t(x)];
  int length = 0;
  for (int s = 1; s <= limit; ++s) {
    const int qx = x + s * dx;
    const int qy = y + s * dy;
    if (qx < 0 || qy < 0 || qx >= width || qy >= height) break;
    if (abs(int(grey[std::size_t(qy) * std::size_t(width) + std::size_t(qx)]) - centre) >= tc) break;
    length = s;
  }
  return length;
}

__global__ void arms_kernel(const std::uint8_t* __restrict__ grey, int width, int height, int dx, int dy, int limit,
                            int tc, uchar2* __restrict__ arms) {
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x >= width || y >= height) return;
  arms[std::size_t(y) * std::size_t(width) + std::size_t(x)] =
      make_uchar2(std::uint8_t(arm_run(grey, width, height, x, y, -dx, -dy, limit, tc)),
                  std::uint8_t(arm_run(grey, width, height, x, y, dx, dy, limit, tc)));
}

void launch(const DeviceImage<std::uint8_t>& grey, int dx, int dy, int limit, int tc, DeviceImage<uchar2>& arms,
            cudaStream_t stream, const char* name) {
  require(limit >= 0 && limit <= 255, [&] {
    return std::string("crossrt/cuda: ") + name + " limit must be in 0..255, got " + std::to_string(limit);
  });
  require(arms.width == grey.width && arms.height == grey.height,
          [&] { return std::string("crossrt/cuda: ") + name + " output must have the image's size"; });
  arms_kernel<<<dim3(unsigned(div_up(grey.width, BLOCK_X)), unsigned(div_up(grey.height, BLOCK_Y))),
                dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(grey.get(), grey.width, grey.height, dx, dy, limit, tc,
                                                     arms.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void arms_x(const DeviceImage<std::uint8_t>& grey, int limit, int tc, DeviceImage<uchar2>& arms, cudaStream_t stream) {
  launch(grey, 1, 0, limit, tc, arms, stream, "arms_x");
}

void arms_y(const DeviceImage<std::uint8_t>& grey, int limit, int tc, DeviceImage<uchar2>& arms, cudaStream_t stream) {
  launch(grey, 0, 1, limit, tc, arms, stream, "arms_y");
}

}  // namespace stereo::cu::crossrt
