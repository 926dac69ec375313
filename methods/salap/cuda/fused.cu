// The fast path: TAD, the four one-sided SA-LAP filters (eq. 2, 5, 6), the variable window
// of eq. 3-4 and a running winner-takes-all, fused so that no cost volume is ever stored
// (at 1920x1080x256 it would be 2 GB of float). NOTES.md has the op counts and the design;
// in short:
//
//  * A block owns TX = NT - 2W output columns x BH output rows and a chunk of disparities
//    (NT = 256 threads, BH = 32; the narrow tile, for GPUs with less shared memory per
//    block, has NT = 128). It loops over d; per d it sweeps the band's rows in groups of G = 8.
//  * Separable filters commute, also with clamp-to-edge (the clamp is per axis), so
//    C0 = V_down(H_left(D)) = H_left(V_down(D)). The kernel filters vertically first: thread
//    j owns region column j (one of TX + 2W, the horizontal halo included) and keeps the last
//    8 + 2W rows of D for its column in a shared-memory ring that only it touches (no barrier).
//  * Every one-sided filter, vertical and horizontal, is computed for a block of 8 outputs at
//    once: the first by the direct (W+1)-tap sum, the next 7 by the recursion of the
//    truncated exponential,
//        S[k] = D[k] + r S[k-1] - r^(W+1) D[k-W-1],   r = exp(-1/gamma),
//    run away from the direct sum (forward for left/up, backward for right/down). Both
//    directions are stable (|r| < 1) because each block restarts from a direct sum; that costs
//    (W+1 + 2*7)/8 = 3.9 FMAs per output instead of W+1 = 17, and never needs a look-ahead
//    beyond the 8 + 2W values in registers. Restarting every 8 outputs also bounds the
//    rounding error to a few ulps (no error accumulates along a row or a column).
//  * The vertical results of 8 rows (V_down D and V_up D) go to shared memory, one barrier,
//    then thread (g, c) = (tid % 8, tid / 8) filters row g horizontally for 8 consecutive
//    columns from registers (LDS.128, bank-conflict-free through padded row strides, see the
//    item mapping in the kernel), forms eq. 3-4 and updates its running best (cost, d) kept in
//    shared memory for its own pixels. Double-buffering those rows leaves one barrier per 8
//    rows. At the end the block writes its keys row by row, coalesced.
//  * Units: the fused path never divides. D stays min(|dI|, s tau) (an exact small integer for
//    8-bit input), the filters use w[k] = exp(-k/gamma) without /F1, so every C_i is the
//    normalised one times K = s tau F1^2, and alpha, beta are multiplied by K instead. The
//    winner is the same as the reference's up to float rounding of near ties.
//  * Chunks of d run in separate blocks (grid z) so that 1080p fills every SM several times;
//    each writes its best as a 64-bit key (order-preserving cost bits << 32 | d), and
//    merge_chunks takes the minimum: the smallest cost, then the smallest d, as eq. 4's WTA.
//
// Borders are clamp-to-edge like at_clamped (core/image.h): halo columns and rows read the
// clamped image column/row, and I_R(x-d) reads column max(x-d, 0).

#include "methods/salap/cuda/stages.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace stereo::cu::salap {
namespace {

constexpr int G = 8;           // rows per group: vertical outputs per thread per recursion block
constexpr int P = 8;           // columns per horizontal item: outputs per recursion block
constexpr int MAX_FUSED_W = 32;
// Threads per SM that __launch_bounds__ asks room for: 512 caps either tile at 128 registers
// per thread (65536 / 512), so both compile under the same register budget.
constexpr int MIN_THREADS_PER_SM = 512;

// The block shapes (FusedTile): NT threads = region columns (TX = NT - 2W outputs + the
// halo), BH output rows per block (a band of BH / G groups). Maps do not depend on the tile:
// TX and BH are multiples of 8, so every recursion block, vertical and horizontal, starts at
// the same absolute row and column in every tile, and each output is the same sequence of
// float operations. Only the shared memory (ring and row buffers scale with NT) and the
// halo overhead (NT / TX) differ.
template <FusedTile T>
struct TileShape;
template <>
struct TileShape<FusedTile::wide> {
  static constexpr int NT = 256;
  static constexpr int BH = 32;
};
template <>
struct TileShape<FusedTile::narrow> {  // <= 63488 B at W = 32: fits every GPU from Turing on
  static constexpr int NT = 128;
  static constexpr int BH = 32;
};

template <int W_, FusedTile T>
struct Shape {
  static constexpr int W = W_;
  static constexpr int NT = TileShape<T>::NT;
  static constexpr int BH = TileShape<T>::BH;
  static constexpr int MIN_BLOCKS = MIN_THREADS_PER_SM / NT;
  static_assert(W % G == 0 && W >= G && W <= MAX_FUSED_W, "fused SA-LAP: W must be a multiple of 8, <= 32");
  static constexpr int TX = NT - 2 * W;         // output columns per block
  static constexpr int HG = W / G;              // halo groups above and below the band
  static constexpr int RING_GROUPS = 2 * HG + 1;  // D rows y-W .. y+7+W of one output group
  static constexpr int V = G + 2 * W;           // values one recursion block reads
  static constexpr int ITEMS_PER_ROW = TX / P;
  static constexpr int ITEMS = ITEMS_PER_ROW * G;
  // Row strides of the row buffers and of the running best: one 16-byte quad past a whole
  // number of 32-byte items, so the 8 rows one LDS.128 phase reads start in 8 different bank
  // quads (see the item mapping in the kernel).
  static constexpr int ROW_STRIDE = NT + 4;
  static constexpr int BEST_STRIDE = TX + 4;
  static constexpr std::size_t RING_FLOATS = std::size_t(RING_GROUPS) * G * NT;
  static constexpr std::size_t ROWS_FLOATS = std::size_t(2) * 2 * G * ROW_STRIDE;  // (down, up) x double buffer
  static constexpr std::size_t BEST_FLOATS = std::size_t(BH) * BEST_STRIDE;
  static constexpr std::size_t SHARED_BYTES =
      (RING_FLOATS + ROWS_FLOATS + BEST_FLOATS) * sizeof(float) + std::size_t(BH) * TX;  // + u8 best d
  static_assert(TX > 0 && TX % P == 0 && ITEMS <= NT, "fused SA-LAP: horizontal items must fit the block");
  static_assert(BH % G == 0, "fused SA-LAP: band must be whole groups");
};

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

template <int W, FusedTile T, bool LUMA, bool NINE, FusedArithmetic A>
__global__ void __launch_bounds__(Shape<W, T>::NT, Shape<W, T>::MIN_BLOCKS) fused_kernel(const FusedArgs a) {
  using S = Shape<W, T>;
  using Num = typename NumberOf<A>::type;
  using V = typename Num::T;  // 4 bytes either way: the shared-memory layout does not change
  static_assert(sizeof(V) == sizeof(float), "one shared-memory word per element");
  constexpr int NT = S::NT;
  constexpr int BH = S::BH;
  extern __shared__ float4 shared_raw[];
  // [RING_GROUPS][NT][G]: thread tid's 8 rows of a group are two 16-byte quads of its own. Threads
  // with bit 2 of tid set keep rows 0-3 in the second quad and rows 4-7 in the first, so the 8
  // threads of one LDS.128/STS.128 phase (32 bytes apart) meet 8 different bank quads. Only the
  // thread itself reads its ring, so the order costs no select, only the two fixed offsets.
  V* s_ring = reinterpret_cast<V*>(shared_raw);
  float* s_rows = reinterpret_cast<float*>(s_ring + S::RING_FLOATS);  // [2 buffers][down, up][G][NT], V bits
  float* s_best = s_rows + S::ROWS_FLOATS;                             // [BH][BEST_STRIDE]
  auto* s_best_d = reinterpret_cast<std::uint8_t*>(s_best + S::BEST_FLOATS);  // [BH][TX], d - d_begin (Float1)

  const int tid = threadIdx.x;
  const int x0 = blockIdx.x * S::TX;
  const int y0 = (a.first_band + int(blockIdx.y)) * BH;
  const int d_begin = blockIdx.z * a.chunk;
  const int d_end = min(d_begin + a.chunk, a.levels);

  // Vertical role: region column tid <-> image column x0 - W + tid, clamped.
  const int cx = min(max(x0 - W + tid, 0), a.width - 1);
  const std::uint32_t* left = opaque(a.left + cx);  // + y * width (32 bits: the host checks width x height)
  // Horizontal role: item (hg, hc) = row hg of a group, output columns hc*P .. hc*P+7. The
  // row is the fast index: the 8 threads of one LDS.128 phase read the same columns of the 8
  // rows, which the strides (ROW_STRIDE, BEST_STRIDE: 16 bytes past a multiple of 32) put in 8
  // different bank quads, so every 16-byte load and store is conflict-free as it stands.
  const bool h_active = tid < S::ITEMS;
  const int hg = tid % G;
  const int hc = tid / G;

  if (h_active) {
#pragma unroll
    for (int j = 0; j < BH / G; ++j) {
      float4* b = reinterpret_cast<float4*>(s_best + (j * G + hg) * S::BEST_STRIDE + hc * P);
      // Float1: +inf; Half2: the largest key.
      const float inf = Num::LANES == 1 ? __int_as_float(0x7f800000) : __uint_as_float(0xFFFFFFFFu);
      b[0] = make_float4(inf, inf, inf, inf);
      b[1] = b[0];
      *reinterpret_cast<uint2*>(s_best_d + (j * G + hg) * S::TX + hc * P) = make_uint2(0u, 0u);
    }
  }

  // Group k of the band (k < BH/G + 2 HG < 2 RING_GROUPS) sits in ring slot k mod RING_GROUPS,
  // here one compare instead of a division.
  static_assert(BH / G + 2 * S::HG <= 2 * S::RING_GROUPS, "fused SA-LAP: ring slot by one subtraction");
  auto ring_group = [s_ring](int k) {
    return reinterpret_cast<float4*>(s_ring + (k < S::RING_GROUPS ? k : k - S::RING_GROUPS) * G * NT);
  };
  const int ring_quad = (tid >> 2) & 1;
  const int ring_lo = 2 * tid + ring_quad, ring_hi = 2 * tid + 1 - ring_quad;  // float4 offsets in a group
  int buffer = 0;
  for (int d = d_begin; d < d_end; d += Num::LANES) {
    // Clamp-to-edge on both sides: a negative disparity reads past the right edge.
    const std::uint32_t* right0 = opaque(a.right + min(max(cx - (a.d_min + d), 0), a.width - 1));
    const std::uint32_t* right1 = opaque(a.right + min(max(cx - (a.d_min + d + 1), 0), a.width - 1));  // 2nd level
    const bool second = d + 1 < d_end;
    // Group k holds D of rows y0 - W + 8k .. +7 (clamped) for this thread's column.
    auto tad_group = [&](int k) {
      float4* ring = ring_group(k);
      float t[G];
      const int ybase = y0 - W + k * G;
#pragma unroll
      for (int i = 0; i < G; ++i) {
        const int row = min(max(ybase + i, 0), a.height - 1) * a.width;
        t[i] = Num::to_bits(tad_levels<Num, LUMA>(__ldg(left + row), right0, right1, row, a));
      }
      ring[ring_lo] = make_float4(t[0], t[1], t[2], t[3]);
      ring[ring_hi] = make_float4(t[4], t[5], t[6], t[7]);
    };
#pragma unroll 1
    for (int k = 0; k < 2 * S::HG; ++k) tad_group(k);

#pragma unroll 1
    for (int jo = 0; jo < BH / G; ++jo) {
      tad_group(jo + 2 * S::HG);

      // Vertical: rows y-W .. y+7+W of this column -> V_up D and V_down D for rows y .. y+7.
      float* rows = s_rows + buffer * (2 * G * S::ROW_STRIDE);
      {
        V v[S::V];
#pragma unroll
        for (int q = 0; q < S::RING_GROUPS; ++q) {
          const float4* ring = ring_group(jo + q);
          const float4 lo = ring[ring_lo], hi = ring[ring_hi];
          const float t[G] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
          for (int i = 0; i < G; ++i) v[q * G + i] = Num::from_bits(t[i]);
        }
        V up[G], down[G];
        one_sided<Num, W, G>(v, a, up, down);
#pragma unroll
        for (int i = 0; i < G; ++i) {
          rows[i * S::ROW_STRIDE + tid] = Num::to_bits(down[i]);
          rows[(G + i) * S::ROW_STRIDE + tid] = Num::to_bits(up[i]);
        }
      }
      __syncthreads();  // rows complete; the other buffer is free again (see header)

      if (h_active) {
        // Horizontal on row hg: C0 = H_left(V_down D), C2 = H_right(V_down D),
        //                       C1 = H_left(V_up D),   C3 = H_right(V_up D).
        V c0[P], c1[P], c2[P], c3[P];
        {
          float bits[S::V];
          load_row<S::V>(rows + hg * S::ROW_STRIDE + hc * P, bits);
          V v[S::V];
#pragma unroll
          for (int i = 0; i < S::V; ++i) v[i] = Num::from_bits(bits[i]);
          one_sided<Num, W, P>(v, a, c0, c2);
        }
        {
          float bits[S::V];
          load_row<S::V>(rows + (G + hg) * S::ROW_STRIDE + hc * P, bits);
          V v[S::V];
#pragma unroll
          for (int i = 0; i < S::V; ++i) v[i] = Num::from_bits(bits[i]);
          one_sided<Num, W, P>(v, a, c1, c3);
        }

        const int pixel = (jo * G + hg) * S::BEST_STRIDE + hc * P;
        auto* best_d = reinterpret_cast<unsigned long long*>(s_best_d + (jo * G + hg) * S::TX + hc * P);
        float best[P];
        load_row<P>(s_best + pixel, best);
        unsigned long long bd = 0;
        if constexpr (Num::LANES == 1) bd = *best_d;
        const StepLevels step = step_levels(d, d_begin, second);
        const V quarter = Num::splat(0.25f), half = Num::splat(0.5f);
#pragma unroll
        for (int k = 0; k < P; ++k) {
          // Eq. 3 in units of K: Ca = sum/4, Cb = min pair/2 + alpha K, Cc = min + beta K; eq. 4.
          const V q0 = c0[k], q1 = c1[k], q2 = c2[k], q3 = c3[k];
          V cost = Num::add(Num::min(Num::min(q0, q1), Num::min(q2, q3)), Num::beta(a));
          if constexpr (NINE) {
            const V s01 = Num::add(q0, q1), s23 = Num::add(q2, q3);
            const V ca = Num::mul(Num::add(s01, s23), quarter);
            const V cb = Num::fma(Num::min(Num::min(s01, Num::add(q0, q2)), Num::min(s23, Num::add(q1, q3))), half,
                                  Num::alpha(a));
            cost = Num::min(cost, Num::min(ca, cb));
          }
          keep_best<Num>(cost, best[k], bd, k, step);
        }
        store_row<P>(s_best + pixel, best);
        if constexpr (Num::LANES == 1) *best_d = bd;
      }
      buffer ^= 1;
    }
  }

  // The chunk's keys, written row by row (consecutive threads, consecutive pixels).
  __syncthreads();
  const std::size_t plane = std::size_t(a.width) * std::size_t(a.height);
  std::uint64_t* keys = a.keys + std::size_t(blockIdx.z) * plane;
  for (int i = tid; i < BH * S::TX; i += NT) {
    const int row = i / S::TX, col = i - row * S::TX;
    const int y = y0 + row, x = x0 + col;
    if (y < a.height && x < a.width)
      keys[std::size_t(y) * a.width + x] =
          chunk_key<Num>(s_best[row * S::BEST_STRIDE + col], s_best_d[row * S::TX + col], d_begin);
  }
}

template <int W, FusedTile T, bool LUMA, bool NINE>
void launch(const FusedArgs& args, const FusedPlan& plan, int bands, cudaStream_t stream) {
  using S = Shape<W, T>;
  auto kernel = plan.arithmetic == FusedArithmetic::half2 ? fused_kernel<W, T, LUMA, NINE, FusedArithmetic::half2>
                                                          : fused_kernel<W, T, LUMA, NINE, FusedArithmetic::float32>;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::size_t limit = shared_memory_optin_limit(device);
  require(S::SHARED_BYTES <= limit, [&] {
    return "salap/cuda: the fused kernel's " + std::string(tile_name(T)) + " tile needs " +
           std::to_string(S::SHARED_BYTES) + " B of shared memory per block at W = " + std::to_string(W) +
           ", this GPU allows " + std::to_string(limit) + " B (choose the tile with fused_tile_for)";
  });
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(S::SHARED_BYTES)));
  const dim3 grid(unsigned(div_up(args.width, S::TX)), unsigned(bands), unsigned(plan.chunks));
  kernel<<<grid, S::NT, S::SHARED_BYTES, stream>>>(args);
  CUDA_CHECK_LAUNCH();
}

template <int W, FusedTile T>
void launch_for_tile(const FusedArgs& args, bool luma, bool nine, const FusedPlan& plan, int bands,
                     cudaStream_t stream) {
  if (luma) {
    nine ? launch<W, T, true, true>(args, plan, bands, stream) : launch<W, T, true, false>(args, plan, bands, stream);
  } else {
    nine ? launch<W, T, false, true>(args, plan, bands, stream) : launch<W, T, false, false>(args, plan, bands, stream);
  }
}

template <int W>
void launch_for_window(const FusedArgs& args, bool luma, bool nine, const FusedPlan& plan, int bands,
                       cudaStream_t stream) {
  if (plan.tile == FusedTile::wide) {
    launch_for_tile<W, FusedTile::wide>(args, luma, nine, plan, bands, stream);
  } else {
    launch_for_tile<W, FusedTile::narrow>(args, luma, nine, plan, bands, stream);
  }
}

template <FusedTile T>
std::size_t shared_bytes(int radius) {
  switch (radius) {
    case 8: return Shape<8, T>::SHARED_BYTES;
    case 16: return Shape<16, T>::SHARED_BYTES;
    case 24: return Shape<24, T>::SHARED_BYTES;
    case 32: return Shape<32, T>::SHARED_BYTES;
    default: throw Error("salap/cuda: no fused kernel for W = " + std::to_string(radius));
  }
}

struct TileDims {
  int columns;  // region columns = threads
  int rows;     // output rows
};

TileDims tile_dims(FusedTile tile) {
  return tile == FusedTile::wide ? TileDims{TileShape<FusedTile::wide>::NT, TileShape<FusedTile::wide>::BH}
                                 : TileDims{TileShape<FusedTile::narrow>::NT, TileShape<FusedTile::narrow>::BH};
}

}  // namespace

bool fused_supports(const SalapParams& params) {
  const int w = params.radius();
  return w % G == 0 && w >= G && w <= MAX_FUSED_W;
}

const char* tile_name(FusedTile tile) { return tile == FusedTile::wide ? "wide" : "narrow"; }

const char* arithmetic_name(FusedArithmetic arithmetic) {
  return arithmetic == FusedArithmetic::half2 ? "half" : "float";
}

std::string tile_description(FusedTile tile) {
  const TileDims dims = tile_dims(tile);
  return std::string(tile_name(tile)) + " (" + std::to_string(dims.columns) + " threads, " +
         std::to_string(dims.rows) + "-row bands)";
}

std::size_t fused_shared_bytes(const SalapParams& params, FusedTile tile) {
  require(fused_supports(params), [&] {
    return "salap/cuda: the fused kernel needs W in {8, 16, 24, 32}, got W = " + std::to_string(params.radius());
  });
  return tile == FusedTile::wide ? shared_bytes<FusedTile::wide>(params.radius())
                                 : shared_bytes<FusedTile::narrow>(params.radius());
}

std::optional<FusedTile> fused_tile_for(const SalapParams& params, std::size_t smem_limit) {
  if (!fused_supports(params)) return std::nullopt;
  for (const FusedTile tile : {FusedTile::wide, FusedTile::narrow})  // fastest first
    if (fused_shared_bytes(params, tile) <= smem_limit) return tile;
  return std::nullopt;
}

FusedPlan plan_fused(int width, int height, int levels, const SalapParams& params, int requested_chunk,
                     FusedTile tile, FusedArithmetic arithmetic, bool frames_overlap) {
  require(fused_supports(params), [&] {
    return "salap/cuda: the fused kernel needs W in {8, 16, 24, 32}, got W = " + std::to_string(params.radius());
  });
  require(levels >= 1, [&] { return "salap/cuda: levels must be >= 1, got " + std::to_string(levels); });
  require(requested_chunk >= 0,
          [&] { return "salap/cuda: d_chunk must be >= 0, got " + std::to_string(requested_chunk); });
  FusedPlan plan;
  plan.tile = tile;
  plan.arithmetic = arithmetic;
  if (requested_chunk > 0) {
    plan.chunk = std::min({requested_chunk, levels, 256});
  } else {
    // A block's time is about proportional to its levels, so a launch takes about (waves,
    // rounded up) x (levels per chunk), a wave being the blocks resident at the launch bounds.
    // Among 1x to 2x the chunk count that gives ~4 waves (more chunks cost a key plane each:
    // 8 bytes a pixel written and merged), take the one that minimises it (the last wave's idle
    // SMs are the difference), the fewer chunks on a tie. 1920x1080 x 256 on 132 SMs: 6 chunks
    // of 44 levels (6.95 waves) instead of 4 of 64 (4.64). Measured on the H100 (half2): 44
    // levels 2.12 ms, 64 2.24, 32 2.17, 22 2.17.
    const TileDims dims = tile_dims(tile);
    const long long blocks_per_chunk =
        static_cast<long long>(div_up(width, dims.columns - 2 * params.radius())) * div_up(height, dims.rows);
    const long long wave = static_cast<long long>(MIN_THREADS_PER_SM / dims.columns) * sm_count();
    const int first =
        static_cast<int>(std::clamp<long long>((4 * wave + blocks_per_chunk - 1) / blocks_per_chunk, 1, levels));
    const auto chunk_for = [&](int chunks) {
      int chunk = std::min(div_up(levels, chunks), 256);
      if (arithmetic == FusedArithmetic::half2 && chunk % 2 == 1 && chunk < levels)
        chunk = std::min(chunk + 1, 256);  // no idle half lane in every chunk
      return chunk;
    };
    // In a stream the next frame's first blocks run in this launch's last wave, so only the
    // key planes count: the fewest chunks (H100, 1080p x 256, half2, 200 frames: 4 chunks of
    // 64 288 Gde/s steady against 273 with 6 of 44).
    const int last = frames_overlap ? first : std::min(2 * first, levels);
    long long best_cost = -1;
    for (int chunks = first; chunks <= last; ++chunks) {
      const int chunk = chunk_for(chunks);
      const long long launched = blocks_per_chunk * div_up(levels, chunk);
      const long long cost = (launched + wave - 1) / wave * chunk;
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        plan.chunk = chunk;
      }
    }
  }
  plan.chunks = div_up(levels, plan.chunk);
  return plan;
}

int fused_band_rows(FusedTile tile) { return tile_dims(tile).rows; }

void salap_fused(const DevicePair& pair, DisparityRange range, const SalapParams& params, const FusedPlan& plan,
                 std::uint64_t* d_keys, cudaStream_t stream) {
  salap_fused_bands(pair, range, params, plan, 0, div_up(pair.height, fused_band_rows(plan.tile)), d_keys, stream);
}

void salap_fused_bands(const DevicePair& pair, DisparityRange range, const SalapParams& params, const FusedPlan& plan,
                       int first_band, int bands, std::uint64_t* d_keys, cudaStream_t stream) {
  const int levels = range.count;
  require(range.min > -pair.width && range.max() < pair.width, [&] {
    return "salap/cuda: disparity range " + std::to_string(range.min) + ".." + std::to_string(range.max()) +
           " leaves no overlap for width " + std::to_string(pair.width);
  });
  params.validate("salap/cuda");
  require(fused_supports(params), [&] {
    return "salap/cuda: the fused kernel needs W in {8, 16, 24, 32}, got W = " + std::to_string(params.radius());
  });
  require(levels >= 1, [&] { return "salap/cuda: levels must be >= 1, got " + std::to_string(levels); });
  require(plan.chunk >= 1 && plan.chunk <= 256 && plan.chunks == div_up(levels, plan.chunk),
          "salap/cuda: fused plan does not cover the levels");
  const TileDims dims = tile_dims(plan.tile);
  require(pair.height <= 65535 * dims.rows, [&] {
    return "salap/cuda: image height " + std::to_string(pair.height) + " exceeds the fused grid's " +
           std::to_string(65535 * dims.rows);
  });
  require_int_pixels(pair.width, pair.height, "salap/cuda fused kernel");
  require(plan.chunks <= 65535, [&] {
    return "salap/cuda: " + std::to_string(plan.chunks) +
           " disparity chunks exceed the grid's 65535; use a larger d_chunk";
  });
  require(first_band >= 0 && bands >= 1 && first_band + bands <= div_up(pair.height, dims.rows), [&] {
    return "salap/cuda: bands " + std::to_string(first_band) + " + " + std::to_string(bands) + " outside the " +
           std::to_string(div_up(pair.height, dims.rows)) + " bands of the image";
  });

  const int radius = params.radius();
  const std::vector<double> weights = stereo::salap::kernel_weights(params);  // methods/salap/model.h
  double f1 = 0.0;
  FusedArgs args{};
  for (int k = 0; k <= radius; ++k) {
    const double w = weights[std::size_t(k)];
    args.w[k] = float(w);
    f1 += w;
  }
  const double sat = pair.code == PixelCode::rgb ? 3.0 * double(params.tau) : double(params.tau);
  const double scale = sat * f1 * f1;  // K: fused C_i = normalised C_i * K
  args.left = pair.left.get();
  args.right = pair.right.get();
  args.keys = d_keys;
  args.width = pair.width;
  args.height = pair.height;
  args.levels = levels;
  args.d_min = range.min;
  args.chunk = plan.chunk;
  args.first_band = first_band;
  args.r = float(std::exp(-1.0 / double(params.gamma)));
  args.neg_r_tail = float(-std::exp(-double(radius + 1) / double(params.gamma)));
  args.sat = float(sat);
  args.alpha_k = float(double(params.alpha) * scale);
  args.beta_k = float(double(params.beta) * scale);
  // Half: eq. 3's largest sum is s01 + s23 <= 4 K; scale D by 2^-e so that it stays below
  // 2^15 (half's largest finite value is 65504). A power of two keeps 8-bit RGB TAD exact.
  int e = 0;
  while (4.0 * scale * std::ldexp(1.0, -e) > 32768.0) ++e;
  const double tad_scale = std::ldexp(1.0, -e);
  for (int k = 0; k <= radius; ++k) args.w_h[k] = __float2half2_rn(args.w[k]);
  args.r_h = __float2half2_rn(args.r);
  args.neg_r_tail_h = __float2half2_rn(args.neg_r_tail);
  args.alpha_h = __float2half2_rn(float(double(args.alpha_k) * tad_scale));
  args.beta_h = __float2half2_rn(float(double(args.beta_k) * tad_scale));
  args.tad_scale = float(tad_scale);
  args.sat_scaled_h = __float2half2_rn(float(double(args.sat) * tad_scale));
  args.tad_bias_h = __float2half2_rn(float(-1024.0 * tad_scale));
  args.tad_scale_h = __float2half2_rn(args.tad_scale);

  const bool luma = pair.code == PixelCode::luma;
  const bool nine = params.windows == "9";
  switch (radius) {
    case 8: launch_for_window<8>(args, luma, nine, plan, bands, stream); break;
    case 16: launch_for_window<16>(args, luma, nine, plan, bands, stream); break;
    case 24: launch_for_window<24>(args, luma, nine, plan, bands, stream); break;
    case 32: launch_for_window<32>(args, luma, nine, plan, bands, stream); break;
    default: throw Error("salap/cuda: no fused kernel for W = " + std::to_string(radius));
  }
}

}  // namespace stereo::cu::salap
