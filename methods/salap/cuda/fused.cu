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

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "methods/salap/cuda/fused_device.cuh"
#include "methods/salap/cuda/fused_shape.h"

namespace stereo::cu::salap {
namespace {

using namespace fused;  // the shapes, arguments, number types and thread steps of the kernel

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

}  // namespace

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
