// Stage 3: the enhanced cross of Sec. 2.2 and the pixel count of every support region.
// One thread per pixel walks its four arms; the rules are those of reference::cross_arms
// (strict thresholds: an arm stops at the first pixel with D_c >= tau1 to p or to its
// predecessor, at length L1, or beyond L2 at D_c >= tau2 to p).

#include "cuda/shared/colour_difference.cuh"
#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {
namespace {

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

// The rules' parameters (Sec. 2.2): the arm limits L1 and L2, the colour thresholds tau1, tau2.
struct ArmRules {
  int l1;
  int l2;
  int tau1;
  int tau2;
};

__device__ int arm_length(const uchar4* __restrict__ rgb, int width, int height, int x, int y, int dx, int dy,
                          const ArmRules& rules) {
  const int l1 = rules.l1;
  const int l2 = rules.l2;
  const int tau1 = rules.tau1;
  const int tau2 = rules.tau2;
  const uchar4 p = rgb[static_cast<std::size_t>(y) * width + x];
  uchar4 predecessor = p;
  int length = 0;
  for (int k = 1; k < l1; ++k) {
    const int x1 = x + k * dx;
    const int y1 = y + k * dy;
    if (x1 < 0 || y1 < 0 || x1 >= width || y1 >= height) break;
    const uchar4 q = rgb[static_cast<std::size_t>(y1) * width + x1];
    const int to_p = max_channel_difference(q, p);
    if (to_p >= tau1 || max_channel_difference(q, predecessor) >= tau1) break;  // rule 1
    if (k > l2 && to_p >= tau2) break;                                     // rule 3
    length = k;
    predecessor = q;
  }
  return length;
}

__global__ void arms_kernel(const uchar4* __restrict__ rgb, int width, int height, int l1, int l2, int tau1,
                            int tau2, uchar4* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const ArmRules rules{l1, l2, tau1, tau2};
  out[static_cast<std::size_t>(y) * width + x] =
      make_uchar4(std::uint8_t(arm_length(rgb, width, height, x, y, -1, 0, rules)),
                  std::uint8_t(arm_length(rgb, width, height, x, y, +1, 0, rules)),
                  std::uint8_t(arm_length(rgb, width, height, x, y, 0, -1, rules)),
                  std::uint8_t(arm_length(rgb, width, height, x, y, 0, +1, rules)));
}

// Integer sums, so both counts are exact (the reference sums ones in double: also exact).
__global__ void region_size_kernel(const uchar4* __restrict__ arms, int width, int height,
                                   float* __restrict__ h_then_v, float* __restrict__ v_then_h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const std::size_t i = static_cast<std::size_t>(y) * width + x;
  const uchar4 a = arms[i];
  int hv = 0;
  for (int yy = y - a.z; yy <= y + a.w; ++yy) {
    const uchar4 q = arms[static_cast<std::size_t>(yy) * width + x];
    hv += int(q.x) + int(q.y) + 1;
  }
  int vh = 0;
  for (int xx = x - a.x; xx <= x + a.y; ++xx) {
    const uchar4 q = arms[static_cast<std::size_t>(y) * width + xx];
    vh += int(q.z) + int(q.w) + 1;
  }
  h_then_v[i] = float(hv);
  v_then_h[i] = float(vh);
}

dim3 grid_for(int width, int height) {
  return dim3(unsigned(div_up(width, BLOCK_X)), unsigned(div_up(height, BLOCK_Y)));
}

}  // namespace

void cross_arms(const DeviceImage<uchar4>& rgb, const AdCensusParams& params, DeviceImage<uchar4>& out,
                cudaStream_t stream) {
  require(out.width == rgb.width && out.height == rgb.height, "adcensus/cuda cross_arms: output size differs");
  require(params.arm_l1 >= 1 && params.arm_l1 <= 256, [&] {
    return "adcensus/cuda cross_arms: arm_l1 must be in 1..256 (arms are bytes), got " + std::to_string(params.arm_l1);
  });
  arms_kernel<<<grid_for(rgb.width, rgb.height), dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(
      rgb.get(), rgb.width, rgb.height, params.arm_l1, params.arm_l2, params.tau1, params.tau2, out.get());
  CUDA_CHECK_LAUNCH();
}

void region_sizes(const DeviceImage<uchar4>& arms, DeviceImage<float>& h_then_v, DeviceImage<float>& v_then_h,
                  cudaStream_t stream) {
  require(h_then_v.width == arms.width && h_then_v.height == arms.height && v_then_h.width == arms.width &&
              v_then_h.height == arms.height,
          "adcensus/cuda region_sizes: output size differs");
  region_size_kernel<<<grid_for(arms.width, arms.height), dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(
      arms.get(), arms.width, arms.height, h_then_v.get(), v_then_h.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::adcensus
