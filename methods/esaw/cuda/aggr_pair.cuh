#pragma once
// The three-sample pass of aggr_pass.cuh with two pixels a thread, (x, x + 1) with x even: the
// form every pass takes where the image's width is even (so every plane's row pairs are 4-byte
// aligned) and the volume has fewer than 2^32 cells (pairs_fit, below).
//
// Why (NOTES.md): one pixel a thread, the pass was bound by instruction issue, not by DRAM. Two
// pixels a thread share what was per pixel and per plane: one 32-bit load of the centre pair and
// one 32-bit store of the output pair (__floats2half2_rn rounds both cells as __float2half_rn
// does), the vertical pass's side rows as pairs too (they are aligned like the centre); the
// horizontal pass's sides at x +- s are aligned only for even s, so they stay 16-bit loads. Each
// sample is addressed from a per-thread pointer by a 32-bit element offset k x plane (one wide
// multiply-add a load) instead of a 64-bit product. A side that is not read points at the
// centre's own cell of the side volume (a valid address the weight of 0 then ignores), so the
// loads carry no predicate. Each cell's arithmetic is weights.cuh's in the reference's order.

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "methods/esaw/cuda/pass_shape.cuh"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/cuda/weights.cuh"

namespace stereo::cu::esaw::detail {

constexpr int PAIR_BLOCK_X = 64;  // 128 pixels of a row
constexpr int PAIR_BLOCK_Y = 4;
constexpr int PAIR_GROUP = 4;  // planes whose loads a thread issues before it uses the first
constexpr int PAIR_MIN_BLOCKS = 4;  // 64 registers

// A cell pair's running state where the pass keeps one (winner, forward), per pixel of the pair.
struct PairState {
  float best[2] = {0.0f, 0.0f}, best_d[2] = {0.0f, 0.0f};  // winner
  float lowest[2] = {0.0f, 0.0f}, forward[2] = {0.0f, 0.0f};  // forward
};

// p, hidden from the optimiser so that it stays a per-thread base: nvcc would otherwise fold the
// pixel's index into each plane's offset and redo a 64-bit sum a load.
template <class T>
__device__ __forceinline__ T* thread_base(T* p) {
  std::uint64_t r;
  asm("mov.b64 %0, %1;" : "=l"(r) : "l"(reinterpret_cast<std::uint64_t>(p)));
  return reinterpret_cast<T*>(r);
}

// The volumes are only read (out aliases neither), so every load may take the read-only path.
__device__ __forceinline__ __half2 load_pair(const __half* p, unsigned offset) {
  return __ldg(reinterpret_cast<const __half2*>(p + offset));
}
__device__ __forceinline__ void store_pair(__half* p, unsigned offset, __half2 v) {
  __stwb(reinterpret_cast<__half2*>(p + offset), v);
}

// Eq. 19 for a pair: rn(min(f + c, v)), f and v halves, f + c added in fp32 as the reference adds
// it. rn(min(a, v)) = min(rn(a), v) because v is a half and rounding is monotone. Where c is a
// half too (HALF_C, c_is_half), rn16(rn32(f + c)) = rn16(f + c): rounding the exact sum of two
// 11-bit values to 24 bits first is innocuous (24 >= 2 x 11 + 2, Figueroa 1995; a sum below
// half's normal range is a multiple of 2^-24 and exact in both), so one half2 add serves the pair.
template <bool HALF_C>
__device__ __forceinline__ __half2 forward_step(__half2 f, float c, __half2 c2, __half2 v) {
  if constexpr (HALF_C)
    return __hmin2(__hadd2(f, c2), v);
  else
    return __hmin2(__floats2half2_rn(__fadd_rn(__low2float(f), c), __fadd_rn(__high2float(f), c)), v);
}
inline bool c_is_half(float c) { return __half2float(__float2half_rn(c)) == c; }

// Whether the pair kernels can take a volume: an even `extent` (the row width, or the pixel
// count where a kernel pairs pixels along the whole image), so that every pair of cells is one
// aligned 32-bit word where each of `buffers` is 4-byte aligned, and fewer than 2^32 `cells`
// (32-bit offsets).
inline bool pairs_fit(unsigned long long extent, unsigned long long cells,
                      std::initializer_list<const void*> buffers = {}) {
  for (const void* p : buffers)
    if (reinterpret_cast<std::uintptr_t>(p) % 4 != 0) return false;
  return extent % 2 == 0 && cells < (1ull << 32);
}

// Cells of a width x height x planes volume, without overflow.
inline unsigned long long volume_cells(int width, int height, int planes) {
  return (unsigned long long)(width) * (unsigned long long)(height) * (unsigned long long)(planes);
}

// What a pixel pair (x, x + 1) reads of a volume, each at the pair's cell of plane 0 (a
// thread_base): the centres, the sides, and the centre the prefetch runs ahead on. minus1 /
// plus1 are x + 1's sides where the two sides of a pair are not one aligned pair (horizontal
// passes: x + 1 - s is odd for odd steps s), else unused.
struct PairCells {
  const __half* centre;
  const __half* minus0;
  const __half* plus0;
  const __half* minus1;
  const __half* plus1;
  const __half* ahead;
};

// The N planes from k0 (kp0 = k0 x plane, which the caller keeps for its stores) of a pair's
// cells into half2 registers, all loads issued before any value is used; with AHEAD > 0 the
// centre cells AHEAD planes further on are asked of the L2 first (below `planes`). PAIRED: each
// side is one aligned 32-bit load.
template <int N, int AHEAD, bool PAIRED>
__device__ __forceinline__ void load_pair_planes(const PairCells& at, int k0, unsigned kp0, int planes,
                                                 unsigned plane, __half2 (&centre)[std::size_t(N)],
                                                 __half2 (&minus)[std::size_t(N)], __half2 (&plus)[std::size_t(N)]) {
  if constexpr (AHEAD > 0) {
#pragma unroll
    for (int u = 0; u < N; ++u)
      if (k0 + AHEAD + u < planes) prefetch_l2(at.ahead + (kp0 + unsigned(u) * plane));
  }
#pragma unroll
  for (int u = 0; u < N; ++u) {
    const unsigned kp = kp0 + unsigned(u) * plane;
    centre[u] = load_pair(at.centre, kp);
    if constexpr (PAIRED) {
      minus[u] = load_pair(at.minus0, kp);
      plus[u] = load_pair(at.plus0, kp);
    } else {
      minus[u] = __halves2half2(__ldg(at.minus0 + kp), __ldg(at.minus1 + kp));
      plus[u] = __halves2half2(__ldg(at.plus0 + kp), __ldg(at.plus1 + kp));
    }
  }
}

template <int DX, int DY, PassOutput MODE>
__global__ void __launch_bounds__(PAIR_BLOCK_X * PAIR_BLOCK_Y, PAIR_MIN_BLOCKS)
    aggr_pair_kernel(const uchar4* __restrict__ guide, const __half* __restrict__ centre,
                     const __half* __restrict__ side, __half* __restrict__ out, WeightTable table, PassShape shape,
                     PassSinks sinks) {
  const int width = shape.width, height = shape.height, planes = shape.planes, step = shape.step;
  const bool clamp_border = shape.clamp_border;
  __shared__ WeightTable shared_table;
  const int2 pixel = pass_pixel<PAIR_BLOCK_X, PAIR_BLOCK_Y, 2>(shared_table, table);
  const int x = pixel.x;
  int y = pixel.y;
  if (DY) y = vertical_row_order(y, step, height);
  if (x >= width || y >= height) return;  // the width is even: x + 1 is inside too
  std::size_t i, im0, ip0, i1, im1, ip1;
  bool in_m0, in_p0, in_m1, in_p1;
  pass_samples<DX, DY>(x, y, width, height, step, clamp_border, i, im0, ip0, in_m0, in_p0);
  pass_samples<DX, DY>(x + 1, y, width, height, step, clamp_border, i1, im1, ip1, in_m1, in_p1);
  const uchar4 g0 = guide[i], g1 = guide[i1];
  const Weights w0 = pass_weights(shared_table, g0, guide[im0], guide[ip0], in_m0, in_p0);
  const Weights w1 = pass_weights(shared_table, g1, guide[im1], guide[ip1], in_m1, in_p1);

  const unsigned plane = unsigned(width) * unsigned(height);
  const __half* const c_at = thread_base(centre + i);
  // Vertical: both pixels' sides are one aligned pair (same rows, x even). A side not read
  // points at the centre's cell of the side volume.
  const __half* const m0 = thread_base(side + (in_m0 ? im0 : i));
  const __half* const p0 = thread_base(side + (in_p0 ? ip0 : i));
  const __half* const m1 = DX ? thread_base(side + (in_m1 ? im1 : i1)) : nullptr;
  const __half* const p1 = DX ? thread_base(side + (in_p1 ? ip1 : i1)) : nullptr;
  __half* const o_at = out ? thread_base(out + i) : nullptr;
  const __half* const ahead = thread_base(centre + i + std::size_t(PREFETCH_AHEAD) * plane);
  const PairCells cells{c_at, m0, p0, m1, p1, ahead};

  PairState st;
  if constexpr (MODE == PassOutput::winner) {
    st.best[0] = sinks.winner_cost[i];
    st.best[1] = sinks.winner_cost[i1];
    st.best_d[0] = sinks.winner_disparity[i];
    st.best_d[1] = sinks.winner_disparity[i1];
  }
  const auto group = [&](auto count, int k0) {
    constexpr int N = decltype(count)::value;
    const unsigned kp0 = unsigned(k0) * plane;
    __half2 at_centre[N], at_minus[N], at_plus[N];
    load_pair_planes<N, PREFETCH_AHEAD, DY != 0>(cells, k0, kp0, planes, plane, at_centre, at_minus, at_plus);
#pragma unroll
    for (int u = 0; u < N; ++u) {
      [[maybe_unused]] const int k = k0 + u;
      const unsigned kp = kp0 + unsigned(u) * plane;
      const __half2 v = __floats2half2_rn(
          weighted_value(w0, __low2float(at_centre[u]), __low2float(at_minus[u]), __low2float(at_plus[u])),
          weighted_value(w1, __high2float(at_centre[u]), __high2float(at_minus[u]), __high2float(at_plus[u])));
      const float value[2] = {__low2float(v), __high2float(v)};
      if constexpr (MODE == PassOutput::forward) {
        // Eq. 18's minimum and eq. 19, each forward value rounded as reference::cost2msg rounds it.
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          st.lowest[j] = k == 0 ? value[j] : fminf(st.lowest[j], value[j]);
          st.forward[j] = k == 0 ? value[j]
                                 : __half2float(__float2half_rn(fminf(__fadd_rn(st.forward[j], shape.c), value[j])));
        }
        store_pair(o_at, kp, __floats2half2_rn(st.forward[0], st.forward[1]));
      } else {
        if (MODE == PassOutput::plain || o_at) store_pair(o_at, kp, v);
      }
      if constexpr (MODE == PassOutput::winner) {
#pragma unroll
        for (int j = 0; j < 2; ++j)
          if (value[j] < st.best[j]) {  // strictly smaller: the first of a tie wins
            st.best[j] = value[j];
            st.best_d[j] = float(shape.first_disparity + k);
          }
      }
    }
  };
  int k0 = 0;
  for (; k0 + PAIR_GROUP <= planes; k0 += PAIR_GROUP) group(std::integral_constant<int, PAIR_GROUP>{}, k0);
  for (; k0 < planes; ++k0) group(std::integral_constant<int, 1>{}, k0);
  if constexpr (MODE == PassOutput::winner) {
    sinks.winner_cost[i] = st.best[0];
    sinks.winner_cost[i1] = st.best[1];
    sinks.winner_disparity[i] = st.best_d[0];
    sinks.winner_disparity[i1] = st.best_d[1];
  }
  if constexpr (MODE == PassOutput::forward) {  // eq. 18's h
    sinks.truncation[i] = __fadd_rn(st.lowest[0], shape.eta);
    sinks.truncation[i1] = __fadd_rn(st.lowest[1], shape.eta);
  }
}

}  // namespace stereo::cu::esaw::detail
