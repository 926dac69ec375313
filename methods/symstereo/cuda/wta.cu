// Winner-takes-all over the DSI: the largest joint energy wins (E_S and E_A are 1 for a perfectly
// symmetric / anti-symmetric signal, which a true match makes of the left row and the mirrored
// right row; docs/methods/symstereo.md). One thread per pixel walks the levels; for a fixed level
// the threads of a warp read consecutive x, so every read is coalesced.

#include <string>

#include "methods/symstereo/cuda/stages.h"

namespace stereo::cu::symstereo {
namespace {

constexpr int THREADS = 256;

__global__ void wta_kernel(const float* __restrict__ dsi, int width, int height, int levels, int min_disparity,
                           float* __restrict__ disparity) {
  const std::size_t plane = std::size_t(width) * std::size_t(height);
  const std::size_t p = std::size_t(blockIdx.x) * THREADS + threadIdx.x;
  if (p >= plane) return;
  float best = dsi[p];
  int best_k = 0;
  for (int k = 1; k < levels; ++k) {
    const float e = dsi[std::size_t(k) * plane + p];
    if (e > best) {  // strictly greater: the first level wins a tie, as in the reference
      best = e;
      best_k = k;
    }
  }
  disparity[p] = float(min_disparity + best_k);
}

}  // namespace

void wta(const float* dsi, int width, int height, DisparityRange range, float* disparity, cudaStream_t stream) {
  require(width >= 1 && height >= 1 && range.count >= 1, "symstereo/cuda: wta on an empty DSI");
  const std::size_t plane = std::size_t(width) * std::size_t(height);
  wta_kernel<<<blocks_1d(plane, THREADS, "symstereo/cuda"), THREADS, 0, stream>>>(dsi, width, height, range.count,
                                                                                range.min, disparity);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::symstereo
