// Stage 6: winner-takes-all over a stored volume, one warp per pixel (the levels of a pixel
// are contiguous, so each step of the warp reads 64 contiguous bytes). The matcher normally
// takes the fused WTA of scanline_optimize instead; this stage is the one the tests compare
// with reference::winner_takes_all bit for bit.

#include <cuda_fp16.h>

#include <cfloat>

#include "methods/adcensus/cuda/stages.h"
#include "methods/adcensus/cuda/warp_argmin.cuh"

namespace stereo::cu::adcensus {
namespace {

constexpr int WARP = 32;
constexpr int WTA_WARPS = 8;

__global__ void __launch_bounds__(WARP * WTA_WARPS)
    wta_kernel(const __half* __restrict__ cost, std::size_t pixels, int levels, int min_d,
               float* __restrict__ disparity) {
  const std::size_t pixel = static_cast<std::size_t>(blockIdx.x) * WTA_WARPS + threadIdx.x / WARP;
  if (pixel >= pixels) return;
  const int lane = static_cast<int>(threadIdx.x) % WARP;
  float best = FLT_MAX;
  int best_k = levels;
  for (int k = lane; k < levels; k += WARP) {
    const float v = __half2float(cost[pixel * levels + k]);
    if (v < best) {  // strict, and k grows: each lane keeps its smallest k of a tie
      best = v;
      best_k = k;
    }
  }
  const int k = warp_argmin(best, best_k);
  if (lane == 0) disparity[pixel] = float(min_d + (k < levels ? k : 0));
}

}  // namespace

void winner_takes_all(const DeviceVolume& cost, DeviceImage<float>& out, cudaStream_t stream) {
  require(out.width == cost.width && out.height == cost.height,
          "adcensus/cuda winner_takes_all: output size differs");
  require(cost.range.count >= 1, "adcensus/cuda winner_takes_all: disparity count must be >= 1");
  const std::size_t pixels = static_cast<std::size_t>(cost.width) * static_cast<std::size_t>(cost.height);
  const std::size_t blocks = (pixels + WTA_WARPS - 1) / WTA_WARPS;
  wta_kernel<<<static_cast<unsigned>(blocks), WARP * WTA_WARPS, 0, stream>>>(
      reinterpret_cast<const __half*>(cost.get()), pixels, cost.range.count, cost.range.min, out.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::adcensus
