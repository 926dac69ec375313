#pragma once
// The winner-takes-all reduction of one warp, shared by the stand-alone WTA (wta.cu) and the
// WTA fused into the eq. 5 mean (scanline.cu), so both break ties the same way.

#include <cuda_runtime.h>

namespace stereo::cu::adcensus {

/// The level with the smallest cost over the (cost, level) candidates of each aligned group of
/// GROUP lanes (a power of two up to 32; every lane of the warp takes part); ties go to the
/// smaller level ((v, k) compared lexicographically), as reference::winner_takes_all.
template <int GROUP>
__device__ inline int group_argmin(float v, int k) {
  static_assert(GROUP >= 1 && GROUP <= 32 && (GROUP & (GROUP - 1)) == 0, "a power-of-two group of lanes");
  for (int offset = GROUP / 2; offset > 0; offset /= 2) {
    const float v_other = __shfl_xor_sync(0xFFFFFFFFu, v, offset);
    const int k_other = __shfl_xor_sync(0xFFFFFFFFu, k, offset);
    if (v_other < v || (v_other == v && k_other < k)) {
      v = v_other;
      k = k_other;
    }
  }
  return k;
}

/// group_argmin over the whole warp.
__device__ inline int warp_argmin(float v, int k) { return group_argmin<32>(v, k); }

}  // namespace stereo::cu::adcensus
