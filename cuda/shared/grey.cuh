#pragma once
/// \file cuda/shared/grey.cuh
/// The CUDA twin of reference/grey.h: the integer BT.601 luma every method that matches grey
/// levels converts colour with (AD-Census's census input, ESAW's rgb2grey, SymStereo's and the
/// cross-based method's grey images). Integer arithmetic, so bit-identical with the reference.

#include <cuda_runtime.h>

namespace stereo::cu {

/// (77 R + 150 G + 29 B + 128) >> 8 of 8-bit channels; the weights sum to 256, so a grey
/// (R = G = B) is its own luma.
__device__ __forceinline__ int bt601_luma(int r, int g, int b) { return (77 * r + 150 * g + 29 * b + 128) >> 8; }

}  // namespace stereo::cu
