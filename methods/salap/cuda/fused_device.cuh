#pragma once
/// \file methods/salap/cuda/fused_device.cuh
/// The fused kernel's (fused.cu) launch arguments, its two number types (float, half2) and
/// the thread-level steps it is made of: the truncated difference, the one-sided recursive
/// filters, the row loads and the running winner's keys. Device code included by fused.cu
/// alone; every function is inlined into the kernel.

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "methods/salap/cuda/fused_shape.h"

namespace stereo::cu::salap::fused {

struct FusedArgs {
  const std::uint32_t* left;
  const std::uint32_t* right;
  std::uint64_t* keys;
  int width;
  int height;
  int levels;
  int d_min;  // disparity of level index 0 (the range's minimum)
  int chunk;
  int first_band;  // blockIdx.y 0 is this band
  float w[MAX_FUSED_W + 1];  // exp(-k/gamma), k = 0..W, not divided by F1
  float r;                   // exp(-1/gamma)
  float neg_r_tail;          // -exp(-(W+1)/gamma): the tap that leaves the window
  float sat;                 // s * tau in the units of the packed difference (s = 3 for rgb sums)
  float alpha_k;             // alpha * K, K = s tau F1^2
  float beta_k;              // beta * K
  // FusedArithmetic::half2: the same constants rounded to half, in units scaled by tad_scale
  // (a power of two that keeps 4 K, the largest sum eq. 3 forms, below half's range).
  __half2 w_h[MAX_FUSED_W + 1];
  __half2 r_h;
  __half2 neg_r_tail_h;
  __half2 alpha_h;
  __half2 beta_h;
  __half2 sat_scaled_h;  // sat * tad_scale rounded to half
  __half2 tad_scale_h;   // tad_scale (exact)
  __half2 tad_bias_h;    // -1024 * tad_scale (exact)
  float tad_scale;
};

// The kernel's number type. Float1: one level per thread, float arithmetic (the reference's
// numbers up to float rounding). Half2: two consecutive levels per thread, one in each half
// of a __half2, every filter and eq. 3-4 in half arithmetic (HFMA2), so each shared-memory
// word and each instruction serves two levels; the winner is ranked by 32-bit keys built
// from the half costs (keep_best). Both spell every operation out (fmaf, __fadd_rn, __hfma2, ...): nothing
// is left for the compiler to contract, so the tiles stay bit-identical in either type.
struct Float1 {
  using T = float;
  static constexpr int LANES = 1;
  __device__ static T fma(T a, T b, T c) { return fmaf(a, b, c); }
  __device__ static T add(T a, T b) { return __fadd_rn(a, b); }
  __device__ static T mul(T a, T b) { return __fmul_rn(a, b); }
  __device__ static T min(T a, T b) { return fminf(a, b); }
  __device__ static T w(const FusedArgs& a, int i) { return a.w[i]; }
  __device__ static T r(const FusedArgs& a) { return a.r; }
  __device__ static T neg_r_tail(const FusedArgs& a) { return a.neg_r_tail; }
  __device__ static T alpha(const FusedArgs& a) { return a.alpha_k; }
  __device__ static T beta(const FusedArgs& a) { return a.beta_k; }
  __device__ static T splat(float x) { return x; }
  __device__ static T from_bits(float f) { return f; }
  __device__ static float to_bits(T v) { return v; }
};

struct Half2 {
  using T = __half2;
  static constexpr int LANES = 2;
  __device__ static T fma(T a, T b, T c) { return __hfma2(a, b, c); }
  __device__ static T add(T a, T b) { return __hadd2(a, b); }
  __device__ static T mul(T a, T b) { return __hmul2(a, b); }
  __device__ static T min(T a, T b) { return __hmin2(a, b); }
  __device__ static T w(const FusedArgs& a, int i) { return a.w_h[i]; }
  __device__ static T r(const FusedArgs& a) { return a.r_h; }
  __device__ static T neg_r_tail(const FusedArgs& a) { return a.neg_r_tail_h; }
  __device__ static T alpha(const FusedArgs& a) { return a.alpha_h; }
  __device__ static T beta(const FusedArgs& a) { return a.beta_h; }
  __device__ static T splat(float x) { return __float2half2_rn(x); }
  __device__ static T from_bits(float f) {
    const unsigned u = __float_as_uint(f);
    return *reinterpret_cast<const __half2*>(&u);
  }
  __device__ static float to_bits(T v) { return __uint_as_float(*reinterpret_cast<const unsigned*>(&v)); }
};

template <FusedArithmetic A>
struct NumberOf;
template <>
struct NumberOf<FusedArithmetic::float32> {
  using type = Float1;
};
template <>
struct NumberOf<FusedArithmetic::half2> {
  using type = Half2;
};

// Truncated absolute difference in the unnormalised units above.
template <bool LUMA>
__device__ __forceinline__ float tad(std::uint32_t l, std::uint32_t r, float sat) {
  if constexpr (LUMA) {
    return fminf(fabsf(__uint_as_float(l) - __uint_as_float(r)), sat);
  } else {
    return fminf(float(__vsadu4(l, r)), sat);  // |dR|+|dG|+|dB| (byte 3 is 0 in both)
  }
}

// lo[k] = sum_{i<=W} w_i v[W+k-i] (left/up), hi[k] = sum_{i<=W} w_i v[W+k+i] (right/down),
// k = 0..N-1, from N + 2W values: one direct sum per side, then the recursion away from it.
// Array bounds are std::size_t: the braces convert the int template arguments and make a
// negative one a compile error (every call names its arguments, nothing is deduced).
template <class Num, int W, int N>
__device__ __forceinline__ void one_sided(const typename Num::T (&v)[std::size_t{N + 2 * W}], const FusedArgs& a,
                                          typename Num::T (&lo)[std::size_t{N}],
                                          typename Num::T (&hi)[std::size_t{N}]) {
  using T = typename Num::T;
  const T r = Num::r(a), tail = Num::neg_r_tail(a);
  T s = Num::splat(0.0f);
#pragma unroll
  for (int i = W; i >= 0; --i) s = Num::fma(Num::w(a, i), v[W - i], s);
  lo[0] = s;
#pragma unroll
  for (int k = 1; k < N; ++k) {
    s = Num::fma(r, s, v[W + k]);
    s = Num::fma(tail, v[k - 1], s);
    lo[k] = s;
  }
  s = Num::splat(0.0f);
#pragma unroll
  for (int i = W; i >= 0; --i) s = Num::fma(Num::w(a, i), v[W + N - 1 + i], s);
  hi[N - 1] = s;
#pragma unroll
  for (int k = N - 2; k >= 0; --k) {
    s = Num::fma(r, s, v[W + k]);
    s = Num::fma(tail, v[2 * W + k + 1], s);
    hi[k] = s;
  }
}

// N consecutive floats of a row buffer (16-byte aligned) as float4 loads, and back.
template <int N>
__device__ __forceinline__ void load_row(const float* src, float (&v)[std::size_t{N}]) {
  static_assert(N % 4 == 0, "load_row reads float4s");
  const float4* p = reinterpret_cast<const float4*>(src);
#pragma unroll
  for (int m = 0; m < N / 4; ++m) {
    const float4 q = p[m];
    v[4 * m + 0] = q.x, v[4 * m + 1] = q.y, v[4 * m + 2] = q.z, v[4 * m + 3] = q.w;
  }
}

template <int N>
__device__ __forceinline__ void store_row(float* dst, const float (&v)[std::size_t{N}]) {
  static_assert(N % 4 == 0, "store_row writes float4s");
  float4* p = reinterpret_cast<float4*>(dst);
#pragma unroll
  for (int m = 0; m < N / 4; ++m) p[m] = make_float4(v[4 * m + 0], v[4 * m + 1], v[4 * m + 2], v[4 * m + 3]);
}

// Unsigned order of the key == (cost, d) order: flip negatives entirely, set the sign bit
// of positives (a rounding residue can make a zero cost -1e-9).
__device__ __forceinline__ std::uint64_t make_key(float cost, int d) {
  std::uint32_t u = __float_as_uint(cost);
  u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  return (std::uint64_t(u) << 32) | std::uint32_t(d);
}

// |dR| + |dG| + |dB| + c (bytes 0-2; byte 3 is 0 in both words): __vsadu4 with its accumulator.
__device__ __forceinline__ std::uint32_t sad_plus(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  std::uint32_t d;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// Thread-level helpers of the kernel that differ by number type. right0 and right1 point at
// the clamped columns of the two levels in row 0; `row` is the row's offset y * width.
template <class Num, bool LUMA>
__device__ __forceinline__ typename Num::T tad_levels(std::uint32_t l, const std::uint32_t* right0,
                                                      const std::uint32_t* right1, int row, const FusedArgs& a) {
  if constexpr (Num::LANES == 1) {
    return tad<LUMA>(l, __ldg(right0 + row), a.sat);
  } else if constexpr (LUMA) {
    const float t0 = tad<LUMA>(l, __ldg(right0 + row), a.sat) * a.tad_scale;
    const float t1 = tad<LUMA>(l, __ldg(right1 + row), a.sat) * a.tad_scale;
    return __floats2half2_rn(t0, t1);
  } else {
    // Two RGB sums (integers <= 765) straight into half: 0x6400 + n is the half 1024 + n (the
    // sum's accumulator adds the 0x6400), so (1024 + n) s - 1024 s gives n s exactly for both
    // levels in one HFMA2, then the truncation at sat s. The same values as
    // half(min(n, sat) * tad_scale): tad_scale = s is a power of two and every product exact.
    const std::uint32_t n0 = sad_plus(l, __ldg(right0 + row), 0x6400u);
    const std::uint32_t n1 = sad_plus(l, __ldg(right1 + row), 0x6400u);
    const std::uint32_t bits = __byte_perm(n0, n1, 0x5410);
    const __half2 h = __hfma2(*reinterpret_cast<const __half2*>(&bits), a.tad_scale_h, a.tad_bias_h);
    return __hmin2(h, a.sat_scaled_h);
  }
}

// The levels one step of the d loop ranks, as keep_best needs them: Float1 the level's index
// in the chunk; Half2 the index of lane 0's level (lane 1 is index + 1), and for lane 1 the
// mask and low bits of its key, which make that key all ones (never the minimum) when the
// step has one level only (an odd chunk's last step).
struct StepLevels {
  unsigned long long dd;
  std::uint32_t lane1_mask;
  std::uint32_t lane1_low;
};

__device__ __forceinline__ StepLevels step_levels(int d, int d_begin, bool second) {
  const unsigned dd = unsigned(d - d_begin);
  return {dd, second ? 0xFFFF0000u : 0xFFFFFFFFu, second ? dd + 1 : 0xFFFFFFFFu};
}

// Per 16-bit lane, all ones where the half is negative: PRMT's sign-replicating selectors
// (nibble 8 | byte) copy the sign of byte 1 over bytes 0-1 and of byte 3 over bytes 2-3.
__device__ __forceinline__ std::uint32_t half_sign_mask(std::uint32_t h2) {
  std::uint32_t m;
  asm("prmt.b32 %0, %1, 0, 0xBB99;" : "=r"(m) : "r"(h2));
  return m;
}

// p itself, but opaque to the compiler: p + 32-bit offset then stays one IMAD.WIDE per load,
// instead of being re-associated into a 64-bit (column + offset) sum shifted and added to the
// array base (four instructions and a sign extension per load).
__device__ __forceinline__ const std::uint32_t* opaque(const std::uint32_t* p) {
  asm("" : "+l"(p));
  return p;
}

// The running winner of one pixel. Float1: best cost (float) and its level in byte k of bd;
// strict <, so on a tie the smaller d, which comes first, stays. Half2: `best` holds the bits
// of a 32-bit key, the order-preserving bits of a half cost above the level index: a
// half has 16 bits, so the key needs no float compare and no byte insert, and the unsigned
// minimum picks the smallest cost, then the smallest d.
template <class Num>
__device__ __forceinline__ void keep_best(typename Num::T cost, float& best, unsigned long long& bd, int k,
                                          const StepLevels& step) {
  if constexpr (Num::LANES == 1) {
    if (cost < best) {
      best = cost;
      bd = (bd & ~(0xFFull << (8 * k))) | (step.dd << (8 * k));
    }
  } else {
    std::uint32_t c = *reinterpret_cast<const std::uint32_t*>(&cost);
    // Per 16-bit lane: a negative half (a rounding residue near 0) -> ~h, else h | 0x8000.
    c ^= half_sign_mask(c) | 0x80008000u;
    const std::uint32_t k0 = __byte_perm(c, std::uint32_t(step.dd), 0x1054);  // lane 0's cost : dd
    const std::uint32_t k1 = (c & step.lane1_mask) | step.lane1_low;         // lane 1's cost : dd + 1
    best = __uint_as_float(min(__float_as_uint(best), min(k0, k1)));
  }
}

// The chunk's winner as the 64-bit key merge_chunks compares: cost bits << 32 | d.
template <class Num>
__device__ __forceinline__ std::uint64_t chunk_key(float best, std::uint8_t best_d, int d_begin) {
  if constexpr (Num::LANES == 1) {
    return make_key(best, d_begin + best_d);
  } else {
    const std::uint32_t key = __float_as_uint(best);
    return (std::uint64_t(key >> 16) << 32) | std::uint32_t(d_begin + int(key & 0xFFFFu));
  }
}

}  // namespace stereo::cu::salap::fused
