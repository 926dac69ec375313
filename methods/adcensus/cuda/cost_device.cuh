#pragma once
// The AD-Census cost of one cell (eq. 1-3) as a device function, shared by the cost kernel
// (cost.cu) and the aggregation kernel's fused first pass (aggregate.cu), which computes the
// cost while it loads its tile instead of reading a stored volume.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {

/// Everything the cost of a cell reads, for one view.
struct CostInputs {
  const uchar4* ref = nullptr;    // the view's own image
  const uchar4* other = nullptr;  // the image it is matched against
  const std::uint64_t* ref_census = nullptr;
  const std::uint64_t* other_census = nullptr;
  int width = 0;
  int min_d = 0;
  int sign = -1;  // left view: p - d; right view: p + d
  float inv_lambda_census = 0.0f;
  float inv_three_lambda_ad = 0.0f;  // eq. 1's mean over three channels folded into 1 / lambda_AD
  float out_of_image = 0.0f;
};

inline CostInputs make_cost_inputs(const CostImages& images, const AdCensusParams& params, bool right_view,
                                   int min_d) {
  require_int_pixels(images.left_rgb.width, images.left_rgb.height, "adcensus/cuda cost");
  CostInputs in;
  in.ref = right_view ? images.right_rgb.get() : images.left_rgb.get();
  in.other = right_view ? images.left_rgb.get() : images.right_rgb.get();
  in.ref_census = right_view ? images.right_census.get() : images.left_census.get();
  in.other_census = right_view ? images.left_census.get() : images.right_census.get();
  in.width = images.left_rgb.width;
  in.min_d = min_d;
  in.sign = right_view ? +1 : -1;
  in.inv_lambda_census = 1.0f / params.lambda_census;
  in.inv_three_lambda_ad = 1.0f / (3.0f * params.lambda_ad);
  in.out_of_image = params.out_of_image_cost;
  return in;
}

/// C(p, d) of p's pixel `pixel` (its census word and packed colour given) against the other
/// image's pixel `match`, in fp32.
__device__ __forceinline__ float ad_census_cost_of(const CostInputs& in, std::uint64_t ref_census, unsigned ref_rgb,
                                                   int match) {
  const int hamming = __popcll(ref_census ^ in.other_census[match]);
  // |dR| + |dG| + |dB| in one byte-wise SAD: byte 3 (w) is 0 in both images (census.cu's
  // pack_kernel writes it so).
  const int sad = int(__vsadu4(ref_rgb, reinterpret_cast<const unsigned*>(in.other)[match]));
  // rho(c, lambda) = 1 - exp(-c / lambda), eq. 3; C_AD is the mean over the channels, eq. 1.
  // The fast exponential (ex2.approx, a few ulp for these arguments in [-7, 0]) and no IEEE
  // division: the aggregation's fused first pass evaluates this 1.5 times per cell, and both
  // errors are far below the fp16 rounding of the stored volumes (2^-11 relative).
  const float census_term = 1.0f - __expf(-float(hamming) * in.inv_lambda_census);
  const float ad_term = 1.0f - __expf(-float(sad) * in.inv_three_lambda_ad);
  return census_term + ad_term;
}

/// C(p, d) for p = (x, y), d = min_d + k, in fp32.
__device__ inline float ad_census_cost_at(const CostInputs& in, int x, int y, int k) {
  const int xm = x + in.sign * (in.min_d + k);
  if (xm < 0 || xm >= in.width) return in.out_of_image;
  // 32-bit indices (make_cost_inputs checks the pixel count): one IMAD.WIDE per load.
  const int pixel = y * in.width + x;
  return ad_census_cost_of(in, in.ref_census[pixel], reinterpret_cast<const unsigned*>(in.ref)[pixel],
                           pixel + (xm - x));
}

/// C(p, d) for the VEC levels k .. k + VEC - 1 of p = (x, y): the same values as
/// ad_census_cost_at, with p's census word and colour loaded once for all of them.
template <int VEC>
__device__ inline void ad_census_costs_at(const CostInputs& in, int x, int y, int k, float (&cost)[std::size_t{VEC}]) {
  const int pixel = y * in.width + x;
  const std::uint64_t ref_census = in.ref_census[pixel];
  const unsigned ref_rgb = reinterpret_cast<const unsigned*>(in.ref)[pixel];
#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    const int xm = x + in.sign * (in.min_d + k + j);
    cost[j] = xm < 0 || xm >= in.width ? in.out_of_image : ad_census_cost_of(in, ref_census, ref_rgb, pixel + (xm - x));
  }
}

}  // namespace stereo::cu::adcensus
