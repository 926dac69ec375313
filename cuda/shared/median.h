#pragma once
/// \file
/// The CUDA twin of reference/median.h: a 3x3 median of a float map, bit-identical to
/// reference::median_3x3 (both pick the fifth of the same nine clamped samples).

#include <cuda_runtime.h>

#include "cuda/common.h"

namespace stereo::cu {

/// out = 3x3 median of `disparity`, clamp-to-edge. `out` must be a different buffer of the
/// same size.
void median_3x3(const DeviceImage<float>& disparity, DeviceImage<float>& out, cudaStream_t stream = nullptr);

}  // namespace stereo::cu
