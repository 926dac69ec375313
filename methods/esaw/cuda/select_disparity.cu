// select_disparity: eq. 7 as a running arg-min, so a volume processed in slabs of disparity
// planes never has to exist whole. The matchers fuse this into the last aggr_V; the stand-alone
// kernel is the stage the tests compare and what a zero-iteration run uses.

#include <cuda_fp16.h>

#include <cmath>

#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {
namespace {

constexpr int THREADS = 256;

__global__ void wta_reset_kernel(std::size_t pixels, float* cost, float* disparity) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  cost[i] = INFINITY;
  disparity[i] = INFINITY;
}

__global__ void select_disparity_kernel(const __half* volume, std::size_t pixels, int planes, int first_disparity,
                                        float* cost, float* disparity) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  float best = cost[i];
  float best_d = disparity[i];
  for (int k = 0; k < planes; ++k) {
    const float v = __half2float(volume[std::size_t(k) * pixels + i]);
    if (v < best) {  // strictly smaller: over increasing disparities the first wins a tie
      best = v;
      best_d = float(first_disparity + k);
    }
  }
  cost[i] = best;
  disparity[i] = best_d;
}

}  // namespace

void wta_reset(Winner& winner, cudaStream_t stream) {
  const std::size_t pixels = winner.cost.count();
  wta_reset_kernel<<<blocks_1d(pixels, THREADS, "esaw/cuda wta_reset"), THREADS, 0, stream>>>(
      pixels, winner.cost.get(), winner.disparity.get());
  CUDA_CHECK_LAUNCH();
}

void select_disparity(const std::uint16_t* volume, int width, int height, int planes, int first_disparity,
                      Winner& winner, cudaStream_t stream) {
  require(winner.cost.width == width && winner.cost.height == height, [&] {
    return "esaw/cuda: select_disparity: winner map " + std::to_string(winner.cost.width) + "x" +
           std::to_string(winner.cost.height) + " does not match the volume " + std::to_string(width) + "x" +
           std::to_string(height);
  });
  const std::size_t pixels = std::size_t(width) * std::size_t(height);
  select_disparity_kernel<<<blocks_1d(pixels, THREADS, "esaw/cuda select_disparity"), THREADS, 0, stream>>>(
      reinterpret_cast<const __half*>(volume), pixels, planes, first_disparity, winner.cost.get(),
      winner.disparity.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
