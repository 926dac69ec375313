#pragma once
/// \file reference/lr_consistency.h
/// The left-right consistency test that several methods share: AD-Census's outlier detection
/// (Mei et al. Sec. 2.4, methods/adcensus/reference/adcensus_refine.h) and Chang and Maruyama's
/// ground control points (eq. 10, methods/crossrt/reference/crossrt.h). One definition here, one
/// CUDA twin in cuda/shared/lr_consistency.cuh.

#include <cmath>

#include "core/image.h"

namespace stereo::reference {

/// True when the right view sees the match of left pixel (x, y) at disparity d the same way:
/// d is finite, x - d is an integer column inside the right map, and D_R(x - d, y) == d.
inline bool lr_consistent(const ImageF& right_disparity, int x, int y, float d) {
  if (!std::isfinite(d)) return false;
  const float xr = float(x) - d;
  if (xr != std::floor(xr) || xr < 0.0f || xr >= float(right_disparity.width)) return false;
  return right_disparity.at(int(xr), y) == d;
}

}  // namespace stereo::reference
