#pragma once
// The adaptive weights of one three-sample pass (reference/esaw.cpp sample_weights) and the
// cell arithmetic, shared by the pass kernels (aggr_pass.cuh, init_aggr_h.cu, aggr_hv.cu, ...). The operations are the reference's, one by one, with explicit
// round-to-nearest intrinsics so that nvcc does not fuse them: the weights come out bit-equal.

#include <cuda_fp16.h>

#include <cstdint>

#include "cuda/shared/colour_difference.cuh"
#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw::detail {

// lab8: the squared Euclidean distance of two lab8 pixels, exact in int, lab8_colour[]'s index.
// (The reference takes the float root of the same exact sum; the table holds the factor of that
// root, so no root is taken here.)
__device__ __forceinline__ int squared_lab8_distance(uchar4 a, uchar4 b) {
  const int dl = int(a.x) - int(b.x), da = int(a.y) - int(b.y), db = int(a.z) - int(b.z);
  return dl * dl + da * da + db * db;
}

// exp(-Delta_c(p, q) / gamma_c) as the table of the pass's colour reading holds it. The branch
// is the same for every thread of a launch.
__device__ __forceinline__ float colour_factor(const WeightTable& table, uchar4 p, uchar4 q) {
  if (table.lab8_colour) return __ldg(table.lab8_colour + squared_lab8_distance(p, q));
  return table.colour[max_channel_difference(p, q)];  // max_rgb: colour[]'s index
}

// A kernel's copy of the table in shared memory (a dynamic index into the kernel's parameters
// would go to local memory), written by the block's `threads` threads, `thread` this one's index;
// ends with a barrier. lab8's colour factors stay in global memory (763 KB).
__device__ __forceinline__ void stage_table(WeightTable& shared, const WeightTable& table, int thread, int threads) {
  if (!table.lab8_colour)
    for (int i = thread; i < 256; i += threads) shared.colour[i] = table.colour[i];
  if (thread == 0) {
    shared.spatial = table.spatial;
    shared.lab8_colour = table.lab8_colour;
  }
  __syncthreads();
}

// Eq. 3 over a slab as the kernels that compute it take it (the grey images stay __restrict__
// kernel parameters): the images' size, the slab's first disparity and plane count, lambda, tau.
struct SlabShape {
  int width;
  int height;
  int first_disparity;
  int planes;
  float lambda;
  float tau;
};

struct Weights {
  float minus, centre, plus;
};

// in_minus / in_plus: whether the sample is read at all (inside the image, or clamped). p and the
// q's are pixels of the guide image (RGBA for max_rgb, rgb2lab8's for lab8).
__device__ __forceinline__ Weights pass_weights(const WeightTable& table, uchar4 p, uchar4 q_minus, uchar4 q_plus,
                                                bool in_minus, bool in_plus) {
  const float minus = in_minus ? __fmul_rn(colour_factor(table, p, q_minus), table.spatial) : 0.0f;
  const float plus = in_plus ? __fmul_rn(colour_factor(table, p, q_plus), table.spatial) : 0.0f;
  const float norm = __fdiv_rn(1.0f, __fadd_rn(__fadd_rn(1.0f, minus), plus));
  return Weights{__fmul_rn(minus, norm), norm, __fmul_rn(plus, norm)};
}

// One output cell, in the reference's order (centre, minus, plus), before its rounding to half
// (the paired kernels round two cells with one instruction, __floats2half2_rn).
__device__ __forceinline__ float weighted_value(const Weights& w, float centre, float minus, float plus) {
  float sum = __fmul_rn(w.centre, centre);
  if (w.minus > 0.0f) sum = __fadd_rn(sum, __fmul_rn(w.minus, minus));
  if (w.plus > 0.0f) sum = __fadd_rn(sum, __fmul_rn(w.plus, plus));
  return sum;
}

// One output cell, rounded to half.
__device__ __forceinline__ __half weighted_sum(const Weights& w, float centre, float minus, float plus) {
  return __float2half_rn(weighted_value(w, centre, minus, plus));
}

// Eq. 3 at (x, row) for disparity d, the match column clamped to the image (init_cost.cu),
// rounded to half as stored: the samples of the passes that compute C0 on the fly
// (init_aggr_h.cu, aggr_hv.cu).
__device__ __forceinline__ float grey_cost(int left, const std::uint8_t* __restrict__ right_row, int x, int d,
                                           int width, float lambda, float tau) {
  const int xr = min(max(x - d, 0), width - 1);
  const float diff = float(abs(left - int(right_row[xr])));
  return __half2float(__float2half_rn(__fmul_rn(lambda, fminf(diff, tau))));
}

// The three samples of a pass along (DX, DY) at (x, y): the indices of p, p - s and p + s in an
// image (the sides clamped to it, so always valid addresses) and whether each side is read at
// all: Border::drop reads no sample outside, Border::clamp reads the edge pixel instead. Shared
// by the pass kernels that read their samples from stored volumes (aggr_pass.cuh, aggr_msg.cu).
// Out-parameters rather than a struct: plain bools keep the vertical aggr_msg kernel's code
// exactly as it was written inline (a struct's bools cost it its loop versioning).
template <int DX, int DY>
__device__ __forceinline__ void pass_samples(int x, int y, int width, int height, int step, bool clamp_border,
                                             std::size_t& i, std::size_t& im, std::size_t& ip, bool& in_minus,
                                             bool& in_plus) {
  const int xm = x - DX * step, ym = y - DY * step, xp = x + DX * step, yp = y + DY * step;
  in_minus = clamp_border || (xm >= 0 && ym >= 0);
  in_plus = clamp_border || (xp < width && yp < height);
  const std::size_t w = std::size_t(width);
  i = std::size_t(y) * w + std::size_t(x);
  im = std::size_t(max(ym, 0)) * w + std::size_t(max(xm, 0));
  ip = std::size_t(min(yp, height - 1)) * w + std::size_t(min(xp, width - 1));
}

// Planes ahead whose centre cells a pass kernel asks the L2 to fetch (prefetch_l2) before it
// loads its current group of planes: DRAM bytes in flight without registers to hold them
// (aggr_pass.cuh, aggr_hv.cu; NOTES.md "Round 3"). 0 = none.
constexpr int PREFETCH_AHEAD = 8;

// Asks the L2 to fetch the line of `p` (no register, no wait); a hint only.
__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

}  // namespace stereo::cu::esaw::detail
