// Stage 2: the AD-Census matching cost, eq. 1-3 (Sec. 2.1), one thread per cell.
//
// The right view's volume is computed afresh rather than read from the left's through
// C_R(x, y, d) = C_L(x + d, y, d): that identity holds, but the read is a skewed gather (for a
// fixed pixel the levels sit D + 1 cells apart), while recomputing costs one popcount, three
// byte differences and two exponentials per cell against cached census and colour words.

#include <cuda_fp16.h>

#include "cuda/adcensus/stages.h"

namespace stereo::cu::adcensus {
namespace {

constexpr int COST_BLOCK = 256;

__global__ void cost_kernel(const uchar4* __restrict__ ref_rgb, const uchar4* __restrict__ other_rgb,
                            const std::uint64_t* __restrict__ ref_census, const std::uint64_t* __restrict__ other_census,
                            int width, int height, int min_d, int levels, int sign, float inv_lambda_census,
                            float inv_lambda_ad, float out_of_image, __half* __restrict__ out) {
  const std::size_t cell = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t cells = static_cast<std::size_t>(width) * height * levels;
  if (cell >= cells) return;
  const std::size_t pixel = cell / static_cast<std::size_t>(levels);
  const int k = static_cast<int>(cell - pixel * static_cast<std::size_t>(levels));
  const int y = static_cast<int>(pixel / static_cast<std::size_t>(width));
  const int x = static_cast<int>(pixel - static_cast<std::size_t>(y) * width);
  const int xm = x + sign * (min_d + k);  // left view: p - d; right view: p + d
  if (xm < 0 || xm >= width) {
    out[cell] = __float2half_rn(out_of_image);
    return;
  }
  const std::size_t match = static_cast<std::size_t>(y) * width + xm;
  const int hamming = __popcll(ref_census[pixel] ^ other_census[match]);
  const uchar4 a = ref_rgb[pixel];
  const uchar4 b = other_rgb[match];
  const int sad = abs(int(a.x) - int(b.x)) + abs(int(a.y) - int(b.y)) + abs(int(a.z) - int(b.z));
  // rho(c, lambda) = 1 - exp(-c / lambda), eq. 3; C_AD is the mean over the channels, eq. 1.
  const float census_term = 1.0f - expf(-float(hamming) * inv_lambda_census);
  const float ad_term = 1.0f - expf(-(float(sad) / 3.0f) * inv_lambda_ad);
  out[cell] = __float2half_rn(census_term + ad_term);
}

}  // namespace

void ad_census_cost(const DeviceImage<uchar4>& left_rgb, const DeviceImage<uchar4>& right_rgb,
                    const DeviceImage<std::uint64_t>& left_census, const DeviceImage<std::uint64_t>& right_census,
                    const AdCensusParams& params, bool right_view, DeviceVolume& out, cudaStream_t stream) {
  const int w = left_rgb.width;
  const int h = left_rgb.height;
  require(right_rgb.width == w && right_rgb.height == h && left_census.width == w && left_census.height == h &&
              right_census.width == w && right_census.height == h && out.width == w && out.height == h,
          "adcensus/cuda ad_census_cost: images, census images and volume must have one size");
  require(out.range.count >= 1, "adcensus/cuda ad_census_cost: disparity count must be >= 1");
  const std::size_t blocks = (out.count() + COST_BLOCK - 1) / COST_BLOCK;
  require(blocks <= 0x7FFFFFFFu, "adcensus/cuda ad_census_cost: volume of " + std::to_string(out.count()) +
                                     " cells exceeds one grid");
  const uchar4* ref = right_view ? right_rgb.get() : left_rgb.get();
  const uchar4* other = right_view ? left_rgb.get() : right_rgb.get();
  const std::uint64_t* ref_census = right_view ? right_census.get() : left_census.get();
  const std::uint64_t* other_census = right_view ? left_census.get() : right_census.get();
  cost_kernel<<<static_cast<unsigned>(blocks), COST_BLOCK, 0, stream>>>(
      ref, other, ref_census, other_census, w, h, out.range.min, out.range.count, right_view ? +1 : -1,
      1.0f / params.lambda_census, 1.0f / params.lambda_ad, params.out_of_image_cost,
      reinterpret_cast<__half*>(out.get()));
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::adcensus
