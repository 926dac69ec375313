#pragma once
// The winner-takes-all reduction of one warp, shared by the stand-alone WTA (wta.cu) and the
// WTA fused into the eq. 5 mean (scanline.cu), so both break ties the same way.

#include <cuda_runtime.h>

namespace stereo::cu::adcensus {

/// The level with the smallest cost over the 32 lanes' (cost, level) candidates; ties go to
/// the smaller level ((v, k) compared lexicographically), as reference::winner_takes_all.
__device__ inline int warp_argmin(float v, int k) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float v_other = __shfl_xor_sync(0xFFFFFFFFu, v, offset);
    const int k_other = __shfl_xor_sync(0xFFFFFFFFu, k, offset);
    if (v_other < v || (v_other == v && k_other < k)) {
      v = v_other;
      k = k_other;
    }
  }
  return k;
}

}  // namespace stereo::cu::adcensus
