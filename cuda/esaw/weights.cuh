#pragma once
// The adaptive weights of one three-sample pass (reference/esaw.cpp sample_weights), shared by
// aggr_h.cu and aggr_v.cu. The operations are the reference's, one by one, with explicit
// round-to-nearest intrinsics so that nvcc does not fuse them: the weights come out bit-equal.

#include <cuda_fp16.h>

#include "cuda/esaw/stages.h"

namespace stereo::cu::esaw::detail {

__device__ __forceinline__ int colour_distance(uchar4 a, uchar4 b) {
  return max(max(abs(int(a.x) - int(b.x)), abs(int(a.y) - int(b.y))), abs(int(a.z) - int(b.z)));
}

struct Weights {
  float minus, centre, plus;
};

// in_minus / in_plus: whether the sample is read at all (inside the image, or clamped).
__device__ __forceinline__ Weights pass_weights(const WeightTable& table, uchar4 p, uchar4 q_minus, uchar4 q_plus,
                                                bool in_minus, bool in_plus) {
  const float minus = in_minus ? __fmul_rn(table.colour[colour_distance(p, q_minus)], table.spatial) : 0.0f;
  const float plus = in_plus ? __fmul_rn(table.colour[colour_distance(p, q_plus)], table.spatial) : 0.0f;
  const float norm = __fdiv_rn(1.0f, __fadd_rn(__fadd_rn(1.0f, minus), plus));
  return Weights{__fmul_rn(minus, norm), norm, __fmul_rn(plus, norm)};
}

// One output cell, in the reference's order (centre, minus, plus), rounded to half.
__device__ __forceinline__ __half weighted_sum(const Weights& w, float centre, float minus, float plus) {
  float sum = __fmul_rn(w.centre, centre);
  if (w.minus > 0.0f) sum = __fadd_rn(sum, __fmul_rn(w.minus, minus));
  if (w.plus > 0.0f) sum = __fadd_rn(sum, __fmul_rn(w.plus, plus));
  return __float2half_rn(sum);
}

}  // namespace stereo::cu::esaw::detail
