#pragma once
/// \file methods/crossrt/model.h
/// What Chang and Maruyama's method specifies, shared by the CPU reference and the CUDA stages:
/// the scaled disparity range of eq. 2's scale-down (and, as they move here, the cost tables and
/// window offsets). Only the tests see both backends.

#include "core/disparity_range.h"
#include "core/error.h"

namespace stereo::crossrt {

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
