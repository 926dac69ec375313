#pragma once
/// \file cuda/shared/colour_difference.cuh
/// The CUDA twin of reference/colour_difference.h: the colour distance AD-Census's cross arms,
/// scanline penalties and interpolation (Mei et al. Sec. 2.2-2.4, D_c) and ESAW's max_rgb
/// weight share, on the packed RGBA words both methods' kernels read.

#include <cuda_runtime.h>

namespace stereo::cu {

/// The largest absolute difference of the R, G and B bytes of two pixels (alpha ignored).
__device__ __forceinline__ int max_channel_difference(uchar4 a, uchar4 b) {
  return max(max(abs(int(a.x) - int(b.x)), abs(int(a.y) - int(b.y))), abs(int(a.z) - int(b.z)));
}

}  // namespace stereo::cu
