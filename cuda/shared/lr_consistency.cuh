#pragma once
/// \file cuda/shared/lr_consistency.cuh
/// The CUDA twin of reference/lr_consistency.h: the left-right consistency test of AD-Census's
/// outlier detection and of Chang and Maruyama's ground control points.

#include <cuda_runtime.h>

#include <cstddef>

namespace stereo::cu {

/// D_R(x - d, y) == d with d finite and x - d an integer column inside the `width`-wide map.
__device__ inline bool lr_consistent(const float* __restrict__ right, int width, int x, int y, float d) {
  if (!isfinite(d)) return false;
  const float xr = float(x) - d;
  if (xr != floorf(xr) || xr < 0.0f || xr >= float(width)) return false;
  return right[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(int(xr))] == d;
}

}  // namespace stereo::cu
