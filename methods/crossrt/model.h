#pragma once
/// \file methods/crossrt/model.h
/// What Chang and Maruyama's method specifies, shared by the CPU reference and the CUDA stages:
/// the quantised terms of eq. 3-5 and their tables, the mini-census window, and the scaled
/// disparity range of eq. 2's scale-down. Both backends include this header and neither
/// includes the other; only the tests see both (tests/test_crossrt_model.cpp checks it against
/// the paper).

#include <cmath>
#include <cstdint>

#include "core/disparity_range.h"
#include "core/error.h"
#include "core/host_device.h"
#include "methods/crossrt/params.h"

namespace stereo::crossrt {

/// Each term of eq. 3 is quantised to 0..COST_SCALE, so a cost is an integer 0..2 * COST_SCALE
/// and the sums of eq. 7-8 are exact. 128 resolves the AD term to better than one grey level
/// where it is steepest (128 / 76.5 = 1.7 steps per grey level at lambda_AD = 0.3 on [0, 1]).
inline constexpr int COST_SCALE = 128;
/// The cost of a match outside the other image (not in the paper: a choice): above every
/// in-image cost, so such a match never wins while any in-image one is possible.
inline constexpr int COST_OUTSIDE = 2 * COST_SCALE;

/// One quantised term, round(COST_SCALE * (1 - exp(-x / lambda))), in double.
inline std::uint8_t quantised_term(double x, double lambda) {
  return static_cast<std::uint8_t>(std::lround(double(COST_SCALE) * (1.0 - std::exp(-x / lambda))));
}

/// The quantised terms of eq. 4 (by grey difference 0..255) and eq. 5 (by Hamming distance
/// 0..6). Plain arrays: the CUDA kernels take the struct by value and copy it to shared memory
/// word by word; mc[7] is padding (always 0) that makes it 264 bytes.
struct CostTables {
  std::uint8_t ad[256];
  std::uint8_t mc[8];
};

/// The tables of `params`. lambda_AD applies to intensities on [0, 1], so eq. 4 is evaluated at
/// |L - R| / 255 (methods/crossrt/params.h says why).
inline CostTables cost_tables(const CrossRtParams& params) {
  CostTables t{};
  for (int a = 0; a < 256; ++a) t.ad[a] = quantised_term(double(a) / 255.0, double(params.lambda_ad));
  for (int h = 0; h <= 6; ++h) t.mc[h] = quantised_term(double(h), double(params.lambda_mc));
  return t;
}

/// The bits of the mini-census (Fig. 3 is a picture; our six): bit i is set when neighbour i is
/// darker than the centre.
inline constexpr int MINI_CENSUS_BITS = 6;

struct Offset {
  int dx;
  int dy;
};

/// Neighbour i of the mini-census: (-1,-2), (1,-2), (-2,0), (2,0), (-1,2), (1,2), a hexagon two
/// pixels out that spreads the six samples over the 5x5 window of Zhang et al.'s mini-census
/// (the paper's [14]) in every direction. Called with a constant i (an unrolled loop), it folds
/// to two immediates in a kernel.
STEREO_HOST_DEVICE constexpr Offset mini_census_offset(int i) {
  constexpr int DX[MINI_CENSUS_BITS] = {-1, 1, -2, 2, -1, 1};
  constexpr int DY[MINI_CENSUS_BITS] = {-2, -2, 0, 0, 2, 2};
  return Offset{DX[i], DY[i]};
}

/// The range at scale K: [floor(min / K), ceil(max / K)], so every full-size disparity of
/// `range` has its half-size level.
inline DisparityRange scaled_range(DisparityRange range, int scale) {
  require(scale >= 1 && range.count >= 1, "crossrt: scaled_range needs scale >= 1 and a non-empty range");
  const auto floor_div = [scale](int v) { return v >= 0 ? v / scale : -((-v + scale - 1) / scale); };
  const int lo = floor_div(range.min);
  const int hi = -floor_div(-range.max());  // ceil
  return {lo, hi - lo + 1};
}

}  // namespace stereo::crossrt
