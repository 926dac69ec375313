#pragma once
// Device helpers of the arm-sum pass (arm_sum.cu): the combined region's arms of a lane's
// levels, the count's division, a lane's fp16 levels as fixed-point integral words, and the
// block's scan of the integral.

#include <cuda_fp16.h>

#include <cstddef>
#include <type_traits>

#include "methods/adcensus/cuda/arm_sum.h"

namespace stereo::cu::adcensus {
namespace {

// PRMT selectors that spread two arms of a packed uchar4 (left, right, up, down in bytes 0-3)
// into the two 16-bit lanes of a word (byte, zero, byte, zero): the row's arms, the column's.
constexpr unsigned ROW_ARMS = 0x4140u;
constexpr unsigned COLUMN_ARMS = 0x4342u;
// And back: bytes 0 and 2 of such a pair (before, after) as before | after << 8, zeros above.
constexpr unsigned PAIR_TO_BYTES = 0x4420u;

// pd's packed arms where pd, `xd` columns along the row from p (`pixel` at column x), lies
// inside the image, else none (0: the region of an unmatched cell is the cell itself, which
// keeps its cost, as reference::aggregate_cost). Read at the clamped column: no branch around
// the load, so that the callers' unrolled loops can issue several loads before the first one
// returns.
__device__ __forceinline__ unsigned pd_arms_or_none(const uchar4* __restrict__ other, int width, int pixel, int x,
                                                    int xd) {
  const unsigned loaded = reinterpret_cast<const unsigned*>(other)[pixel - x + min(max(xd, 0), width - 1)];
  return (xd >= 0 && xd < width) ? loaded : 0u;
}

// The PRMT selectors of this pass's axis and of the first pass's, and max_arm in each 16-bit lane.
struct ArmSelect {
  unsigned own;
  unsigned first;
  unsigned clip2;
};

// What the load loop of a count pass keeps of the combined arms at one position and level: the
// first pass's arm width (1 + before + after along the other axis) and this axis's arms as
// before | after << 8. Each arm is the shorter of p's and pd's (none where pd lies outside),
// clipped to max_arm; the minima per 16-bit lane (__vminu2, one instruction on sm_90, where the
// byte-wise __vminu4 is emulated in six).
struct CountArms {
  unsigned width;
  unsigned own;
};

__device__ __forceinline__ CountArms count_arms(const uchar4* __restrict__ arms, const uchar4* __restrict__ other,
                                                int width, int pixel, int x, int xd, const ArmSelect& select) {
  const unsigned a = reinterpret_cast<const unsigned*>(arms)[pixel];
  const unsigned own_p = __vminu2(__byte_perm(a, 0u, select.own), select.clip2);
  const unsigned first_p = __vminu2(__byte_perm(a, 0u, select.first), select.clip2);
  const unsigned b = pd_arms_or_none(other, width, pixel, x, xd);
  const unsigned first = __vminu2(first_p, __byte_perm(b, 0u, select.first));
  const unsigned own = __vminu2(own_p, __byte_perm(b, 0u, select.own));
  return CountArms{1u + (first & 0xFFFFu) + (first >> 16), __byte_perm(own, 0u, PAIR_TO_BYTES)};
}

// v / c for a count or region size c in [1, 2^126]: what __fdividef gives there (the
// approximate reciprocal, then one multiplication), without its guard for divisors outside
// that range, which costs three instructions a cell.
__device__ __forceinline__ float divide_by_count(float v, float c) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(c));
  return __fmul_rn(v, r);
}

// This axis's two arms of a lane's VEC levels (bytes `shift` and `shift` + 1 of the packed
// arms, combined and clipped as count_arms's `own`): what the passes without a count column
// read. Byte-wise in 32-bit registers: the 16-bit pairs measured slower here at 1080p (45.9
// against 45.5 ms).
template <int VEC>
struct OwnArms {
  int before[std::size_t{VEC}];
  int after[std::size_t{VEC}];
};

template <int VEC>
__device__ __forceinline__ OwnArms<VEC> own_arms(const uchar4* __restrict__ arms, const uchar4* __restrict__ other,
                                                 bool has_other, int width, int pixel, int x, int xd, int sign,
                                                 int shift, int max_arm) {
  // (A select of pd's arms before the minima, as in pd_arms_or_none, measured 1.1 ms slower at
  // 1080p than the selects after them.) Where pd lies outside the other image: no arms (the
  // cell alone).
  const unsigned a = reinterpret_cast<const unsigned*>(arms)[pixel] >> shift;
  const int before = min(int(a & 0xFFu), max_arm);
  const int after = min(int((a >> 8) & 0xFFu), max_arm);
  OwnArms<VEC> o;
#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    o.before[j] = before;
    o.after[j] = after;
    if (has_other) {
      const int xj = xd + j * sign;
      const unsigned b = reinterpret_cast<const unsigned*>(other)[pixel - x + min(max(xj, 0), width - 1)] >> shift;
      const bool inside = xj >= 0 && xj < width;
      o.before[j] = inside ? min(before, int(b & 0xFFu)) : 0;
      o.after[j] = inside ? min(after, int((b >> 8) & 0xFFu)) : 0;
    }
  }
  return o;
}

// A lane's VEC levels as one shared-memory word of the integral, and their sum.
template <int VEC>
using Word = std::conditional_t<VEC == 1, unsigned, uint2>;
__device__ __forceinline__ unsigned plus(unsigned a, unsigned b) { return a + b; }
__device__ __forceinline__ unsigned short plus(unsigned short a, unsigned short b) {
  return static_cast<unsigned short>(a + b);
}
__device__ __forceinline__ uint2 plus(uint2 a, uint2 b) { return make_uint2(a.x + b.x, a.y + b.y); }

// A lane's VEC consecutive fp16 levels, converted, and their fixed-point words (0 outside the line).
template <int VEC>
__device__ __forceinline__ void load_levels(const __half* p, float (&v)[std::size_t{VEC}]) {
  if constexpr (VEC == 1) {
    v[0] = __half2float(*p);
  } else {
    const float2 f = __half22float2(*reinterpret_cast<const __half2*>(p));
    v[0] = f.x;
    v[1] = f.y;
  }
}

template <int VEC>
__device__ __forceinline__ Word<VEC> fixed_point(const float (&v)[std::size_t{VEC}], float scale, bool inside) {
  if constexpr (VEC == 1)
    return inside ? __float2uint_rn(v[0] * scale) : 0u;
  else
    return inside ? make_uint2(__float2uint_rn(v[0] * scale), __float2uint_rn(v[1] * scale)) : make_uint2(0u, 0u);
}

// Turns rows 1..rows of `prefix` ([rows + 1][LANES], row 0 zero) into running sums along the
// rows, each warp scanning its own run and then adding the totals of the runs before it. Every
// thread of the block must call it (it holds block barriers). Unsigned T wraps around.
template <int W, class T>
__device__ void block_scan(T* prefix, T* totals, int rows, int warp, int lane) {
  const int run = div_up(rows, W);
  const int first = 1 + warp * run;
  const int last = min(rows, (warp + 1) * run);
  T sum{};
  for (int r = first; r <= last; ++r) {
    sum = plus(sum, prefix[r * LANES + lane]);
    prefix[r * LANES + lane] = sum;
  }
  totals[warp * LANES + lane] = sum;
  __syncthreads();
  T offset{};
  for (int w = 0; w < warp; ++w) offset = plus(offset, totals[w * LANES + lane]);
  for (int r = first; r <= last; ++r) prefix[r * LANES + lane] = plus(prefix[r * LANES + lane], offset);
  __syncthreads();
}

}  // namespace
}  // namespace stereo::cu::adcensus
