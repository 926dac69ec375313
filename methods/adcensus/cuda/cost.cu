// Stage 2: the AD-Census matching cost, eq. 1-3 (Sec. 2.1), one thread per cell.
//
// With right_view the right view's cost (for the stage tests and aggregation_iterations = 0
// alike); the matcher takes the right view's aggregated volume from the left's instead
// (right_view.cu), since C_R(x, y, d) = C_L(x + d, y, d) holds through the aggregation too.

#include <cuda_fp16.h>

#include "methods/adcensus/cuda/cost_device.cuh"
#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {
namespace {

constexpr int COST_BLOCK = 256;

__global__ void cost_kernel(CostInputs in, int height, int levels, __half* __restrict__ out) {
  const std::size_t cell = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t cells = static_cast<std::size_t>(in.width) * height * levels;
  if (cell >= cells) return;
  const std::size_t pixel = cell / static_cast<std::size_t>(levels);
  const int k = static_cast<int>(cell - pixel * static_cast<std::size_t>(levels));
  const int y = static_cast<int>(pixel / static_cast<std::size_t>(in.width));
  const int x = static_cast<int>(pixel - static_cast<std::size_t>(y) * in.width);
  out[cell] = __float2half_rn(ad_census_cost_at(in, x, y, k));
}

}  // namespace

void ad_census_cost(const CostImages& images, const AdCensusParams& params, bool right_view, DeviceVolume& out,
                    cudaStream_t stream) {
  const int w = images.left_rgb.width;
  const int h = images.left_rgb.height;
  require(images.right_rgb.width == w && images.right_rgb.height == h && images.left_census.width == w &&
              images.left_census.height == h && images.right_census.width == w && images.right_census.height == h &&
              out.width == w && out.height == h,
          "adcensus/cuda ad_census_cost: images, census images and volume must have one size");
  require(out.range.count >= 1, "adcensus/cuda ad_census_cost: disparity count must be >= 1");
  const std::size_t blocks = (out.count() + COST_BLOCK - 1) / COST_BLOCK;
  require(blocks <= 0x7FFFFFFFu, [&] {
    return "adcensus/cuda ad_census_cost: volume of " + std::to_string(out.count()) + " cells exceeds one grid";
  });
  const CostInputs in = make_cost_inputs(images, params, right_view, out.range.min);
  cost_kernel<<<static_cast<unsigned>(blocks), COST_BLOCK, 0, stream>>>(in, h, out.range.count,
                                                                       reinterpret_cast<__half*>(out.get()));
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::adcensus
