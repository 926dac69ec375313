// Stage 1 (unfused path): the truncated absolute difference of paper Sec. 2, normalised by
// tau (methods/salap/params.h), for one disparity. Written per channel, not with __vsadu4, so that it
// checks the fused kernel's packed arithmetic instead of repeating it.

#include "methods/salap/cuda/stages.h"

namespace stereo::cu::salap {
namespace {

constexpr int COST_BLOCK_X = 32;
constexpr int COST_BLOCK_Y = 8;

// |I_L - I_R| in intensity levels, and the divisor that turns its truncation into [0,1]:
// rgb_mean is (sum of 3 channel differences) / 3, so min(sum/3, tau)/tau = min(sum, 3 tau)/(3 tau).
__device__ float pixel_difference(std::uint32_t a, std::uint32_t b, PixelCode code) {
  if (code == PixelCode::luma) return fabsf(__uint_as_float(a) - __uint_as_float(b));
  float sum = 0.0f;
  for (int c = 0; c < 3; ++c) {
    const int va = int((a >> (8 * c)) & 0xFFu);
    const int vb = int((b >> (8 * c)) & 0xFFu);
    sum += float(abs(va - vb));
  }
  return code == PixelCode::rgb ? sum / 3.0f : sum;
}

__global__ void tad_kernel(const std::uint32_t* __restrict__ left, const std::uint32_t* __restrict__ right,
                           int width, int height, int d, PixelCode code, float tau, float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const int xr = min(max(x - d, 0), width - 1);  // clamp-to-edge on both sides (at_clamped)
  const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(width);
  const float diff = pixel_difference(left[row + x], right[row + xr], code);
  out[row + x] = fminf(diff, tau) / tau;
}

}  // namespace

void tad_cost(const DevicePair& pair, int d, const SalapParams& params, DeviceImage<float>& out, cudaStream_t stream) {
  require(out.width == pair.width && out.height == pair.height, "salap/cuda tad_cost: output size differs");
  require(d > -pair.width && d < pair.width, [&] {
    return "salap/cuda tad_cost: disparity " + std::to_string(d) + " outside " + std::to_string(1 - pair.width) + ".." +
           std::to_string(pair.width - 1);
  });
  const dim3 block(COST_BLOCK_X, COST_BLOCK_Y);
  const dim3 grid(unsigned(div_up(pair.width, COST_BLOCK_X)), unsigned(div_up(pair.height, COST_BLOCK_Y)));
  tad_kernel<<<grid, block, 0, stream>>>(pair.left.get(), pair.right.get(), pair.width, pair.height, d, pair.code,
                                         params.tau, out.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::salap
