// Stage 4: cross-based aggregation (Sec. 2.2), one iteration = two 1D arm sums.
//
// Two kernels. The matcher's, over Zhang et al.'s combined region, is the streaming kernel
// (stream_kernel, below the tile kernel): one warp owns one line (a row for a horizontal sum, a
// column for a vertical one) and 32 consecutive levels, and walks the line once from end to
// end. Each lane keeps the running fixed-point integral of its level in a private ring of
// 2 max_arm + 2 entries in shared memory (its own bank: no barrier, no conflict); the sum over
// an arm is the difference of two ring entries, available max_arm steps after the input. Each
// cell is read once and written once (no halo re-read), only by the warp that owns it, after
// it was read: the kernel runs in place. Two consecutive passes along the same axis (the
// order H V | V H | H V | V H, Sec. 2.2, puts the second pass of an iteration beside the first
// of the next) run as two chained stages of one walk, the second stage max_arm steps behind
// the first, so the four iterations are 5 walks over the volume instead of 8 tile passes
// (cuda/adcensus/NOTES.md has the bytes and the measurements).
//
// The tile kernel (arm_sum_kernel) serves the own-region variant (aggregate_cost with region
// sizes), the reading measured before the combined region and kept for its stage test. A block
// owns 32 "lanes" (32 consecutive cells of a row: levels of one or two pixels for the
// horizontal sum, (x, k) pairs for the vertical one, so every load of a warp is contiguous)
// and a tile of TILE positions along the sum's axis plus a halo of max_arm on both sides. It
// loads the tile into shared memory, turns it into a 1D integral along the axis with a
// segmented scan (each warp scans a run of rows, then adds the totals of the runs before it),
// and writes each cell's arm sum as the difference of two integral values.
//
// The integral is a 32-bit unsigned fixed-point sum, not a float one: a float integral over
// ~200 values of up to 2 x 67 would lose ~1e-3 absolute to cancellation when a short arm's sum
// is taken as the difference of two large prefixes, while integer prefixes subtract exactly,
// even after they wrap around 2^32, as long as the window's own sum stays below 2^32. The
// scale (a power of two, fixed_point_scale) is chosen so that it does for the largest window
// (2 max_arm + 1 values, each a sum of up to 2 max_arm + 1 costs <= 2, eq. 2): 2^18 at
// L1 = 34, i.e. every cost rounded to 2^-19 ~ 2e-6 before summing, far below the fp16 rounding
// of the stored volumes. It replaced an fp64 integral: half the shared memory and integer adds;
// ncu had the fp64 kernel at 50 % occupancy, 15 % of DRAM bandwidth and 41-47 % of the SM
// (latency-bound), and the change took the 1080p x 256 aggregation from 79 to 43 ms.
//
// Over Zhang et al.'s combined region (the matcher's choice, as reference::aggregate_cost with
// other_arms) every arm at level k is the shorter of p's and pd's, so the region's pixel count
// depends on k: the second pass then scans a second column, the first pass's arm width at each
// position, beside the cost (counts are integers below 2^24: exact in float), and divides by
// its arm sum instead of reading a precomputed size (an unsigned integral too: exact).
//
// The fused variant computes the cost (eq. 1-3) while loading the first pass of iteration 1
// instead of reading a stored C: the cost volume is never written or read (4 bytes per cell
// less), and C enters the sums in fp32 rather than rounded to fp16.

#include <cuda_fp16.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda/adcensus/cost_device.cuh"
#include "cuda/adcensus/stages.h"
#include "cuda/shared/prefetch.cuh"

namespace stereo::cu::adcensus {
namespace {

constexpr int LANES = 32;
constexpr int WARPS = 8;
constexpr int TILE = 128;  // positions written per block; the halo is re-read (from L2) by neighbours

std::size_t shared_bytes(int max_arm, bool count_region) {
  const int rows = TILE + 2 * max_arm;
  const std::size_t per_lane = sizeof(unsigned) + (count_region ? sizeof(unsigned) : 0);
  return (static_cast<std::size_t>(rows) + 1 + WARPS) * LANES * per_lane;
}

// The largest cost eq. 2 gives (AdCensusParams::validate keeps out_of_image_cost within it).
constexpr double MAX_COST = 2.0;

// Largest power of two s with (window values) x (largest value) x s < 2^31, where a value is
// at most a full arm sum of costs (the second pass of an iteration reads unnormalised sums).
float fixed_point_scale(int max_arm) {
  const double window = 2.0 * max_arm + 1.0;
  const double largest_window_sum = window * window * MAX_COST;
  double scale = 1.0;
  while (largest_window_sum * scale * 2.0 < 4294967295.0 && scale < 1073741824.0) scale *= 2.0;
  require(largest_window_sum * scale < 4294967295.0,
          "adcensus/cuda aggregate_cost: arms up to " + std::to_string(max_arm) + " overflow the fixed-point integral");
  return float(scale);
}

// One arm of pixel (x, y) at level d: p's own, or (with `other`) the shorter of p's and pd's,
// pd = (x + sign * d, y) where it lies inside the image; clipped to max_arm.
__device__ int arm_at(const uchar4* __restrict__ arms, const uchar4* __restrict__ other, int width, int x, int y, int d,
                      int sign, bool horizontal, bool before, int max_arm) {
  const uchar4 a = arms[static_cast<std::size_t>(y) * width + x];
  int v = horizontal ? (before ? a.x : a.y) : (before ? a.z : a.w);
  if (other != nullptr) {
    const int xd = x + sign * d;
    if (xd >= 0 && xd < width) {
      const uchar4 b = other[static_cast<std::size_t>(y) * width + xd];
      v = min(v, int(horizontal ? (before ? b.x : b.y) : (before ? b.z : b.w)));
    }
  }
  return min(v, max_arm);
}

// Turns rows 1..rows of `prefix` ([rows + 1][LANES], row 0 zero) into running sums along the
// rows, each warp scanning its own run and then adding the totals of the runs before it. Every
// thread of the block must call it (it holds block barriers).
template <class T>
__device__ void block_scan(T* prefix, T* totals, int rows, int warp, int lane) {
  const int run = div_up(rows, WARPS);
  const int first = 1 + warp * run;
  const int last = min(rows, (warp + 1) * run);
  T sum = T(0);
  for (int r = first; r <= last; ++r) {
    sum += prefix[static_cast<std::size_t>(r) * LANES + lane];
    prefix[static_cast<std::size_t>(r) * LANES + lane] = sum;
  }
  totals[warp * LANES + lane] = sum;
  __syncthreads();
  T offset = T(0);
  for (int w = 0; w < warp; ++w) offset += totals[w * LANES + lane];
  for (int r = first; r <= last; ++r) prefix[static_cast<std::size_t>(r) * LANES + lane] += offset;
  __syncthreads();
}

__global__ void __launch_bounds__(LANES * WARPS)
    arm_sum_kernel(const __half* __restrict__ in, __half* __restrict__ out, const uchar4* __restrict__ arms,
                   const uchar4* __restrict__ other_arms, int sign, int min_d, const float* __restrict__ divide,
                   bool count_region, int width, int height, int levels, bool horizontal, int max_arm,
                   float scale, CostInputs cost, bool fused_cost) {
  extern __shared__ unsigned shared[];
  const int rows = TILE + 2 * max_arm;
  unsigned* prefix = shared;                                          // [rows + 1][LANES], mod 2^32
  unsigned* totals = shared + static_cast<std::size_t>(rows + 1) * LANES;  // [WARPS][LANES]
  // With count_region: the first pass's arm widths, [rows + 1][LANES] and [WARPS][LANES].
  unsigned* count_prefix = totals + WARPS * LANES;
  unsigned* count_totals = count_prefix + static_cast<std::size_t>(rows + 1) * LANES;

  const int lane = threadIdx.x % LANES;
  const int warp = threadIdx.x / LANES;
  const long long lane_index = static_cast<long long>(blockIdx.x) * LANES + lane;
  const long long lane_count = static_cast<long long>(horizontal ? height : width) * levels;
  const bool active = lane_index < lane_count;
  const int line = static_cast<int>(lane_index / levels);  // y of a row sum, x of a column sum
  const int k = static_cast<int>(lane_index - static_cast<long long>(line) * levels);
  const int length = horizontal ? width : height;
  const std::size_t base = horizontal ? static_cast<std::size_t>(line) * width * levels + k
                                      : static_cast<std::size_t>(line) * levels + k;
  const std::size_t stride = horizontal ? static_cast<std::size_t>(levels) : static_cast<std::size_t>(width) * levels;
  const int tile_start = static_cast<int>(blockIdx.y) * TILE;

  const int d = min_d + k;

  // Row i + 1 of `prefix` holds position tile_start - max_arm + i; row 0 is the empty sum.
  if (warp == 0) prefix[lane] = 0u;
  if (count_region && warp == 0) count_prefix[lane] = 0u;
  for (int i = warp; i < rows; i += WARPS) {
    const int pos = tile_start - max_arm + i;
    float v = 0.0f;
    unsigned width_here = 0u;
    if (active && pos >= 0 && pos < length) {
      const int x = horizontal ? pos : line;
      const int y = horizontal ? line : pos;
      if (fused_cost)
        v = ad_census_cost_at(cost, x, y, k);
      else
        v = __half2float(in[base + static_cast<std::size_t>(pos) * stride]);
      // The first pass ran along the other axis: its arm width at this position and level.
      if (count_region)
        width_here = unsigned(1 + arm_at(arms, other_arms, width, x, y, d, sign, !horizontal, true, max_arm) +
                              arm_at(arms, other_arms, width, x, y, d, sign, !horizontal, false, max_arm));
    }
    prefix[static_cast<std::size_t>(i + 1) * LANES + lane] = __float2uint_rn(v * scale);
    if (count_region) count_prefix[static_cast<std::size_t>(i + 1) * LANES + lane] = width_here;
  }
  __syncthreads();
  block_scan(prefix, totals, rows, warp, lane);
  if (count_region) block_scan(count_prefix, count_totals, rows, warp, lane);

  if (!active) return;
  for (int t = warp; t < TILE; t += WARPS) {
    const int pos = tile_start + t;
    if (pos >= length) break;
    const int x = horizontal ? pos : line;
    const int y = horizontal ? line : pos;
    const std::size_t pixel = static_cast<std::size_t>(y) * width + x;
    const int before = arm_at(arms, other_arms, width, x, y, d, sign, horizontal, true, max_arm);
    const int after = arm_at(arms, other_arms, width, x, y, d, sign, horizontal, false, max_arm);
    const std::size_t hi = static_cast<std::size_t>(t + max_arm + after + 1) * LANES + lane;
    const std::size_t lo = static_cast<std::size_t>(t + max_arm - before) * LANES + lane;
    // Exact modulo 2^32, and the window's sum is below 2^32 by the choice of scale.
    float v = float(prefix[hi] - prefix[lo]) / scale;
    if (count_region)
      v /= float(count_prefix[hi] - count_prefix[lo]);
    else if (divide != nullptr)
      v /= divide[pixel];
    out[base + static_cast<std::size_t>(pos) * stride] = __float2half_rn(v);
  }
}

// One 1D arm sum over a W x H x levels volume: from `in`, or from the cost when `cost` is given.
// `other_arms` (nullptr: p's own region) combines the arms with pd's, pd = p + sign * d;
// `count_region` divides by the combined region's pixel count (second pass), `divide` by a
// precomputed size (own region).
struct ArmSumRegion {
  const uchar4* other_arms = nullptr;
  int sign = 0;
  int min_d = 0;
  const float* divide = nullptr;
  bool count_region = false;
};

void launch_arm_sum(int width, int height, int levels, const std::uint16_t* in, const CostInputs* cost,
                    std::uint16_t* out, const DeviceImage<uchar4>& arms, const ArmSumRegion& region, bool horizontal,
                    int max_arm, cudaStream_t stream) {
  const std::size_t bytes = shared_bytes(max_arm, region.count_region);
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int optin = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  require(bytes <= static_cast<std::size_t>(optin),
          "adcensus/cuda aggregate_cost: arms up to " + std::to_string(max_arm) + " need " + std::to_string(bytes) +
              " bytes of shared memory per block, the device allows " + std::to_string(optin));
  if (bytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(arm_sum_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  const long long lanes = static_cast<long long>(horizontal ? height : width) * levels;
  const long long blocks_x = (lanes + LANES - 1) / LANES;
  const int blocks_y = div_up(horizontal ? width : height, TILE);
  require(blocks_x <= 0x7FFFFFFF && blocks_y <= 65535, "adcensus/cuda aggregate_cost: volume too large for one grid");
  arm_sum_kernel<<<dim3(unsigned(blocks_x), unsigned(blocks_y)), LANES * WARPS, bytes, stream>>>(
      reinterpret_cast<const __half*>(in), reinterpret_cast<__half*>(out), arms.get(), region.other_arms, region.sign,
      region.min_d, region.divide, region.count_region, width, height, levels, horizontal, max_arm,
      fixed_point_scale(max_arm), cost != nullptr ? *cost : CostInputs{}, cost != nullptr);
  CUDA_CHECK_LAUNCH();
}


// ---- the streaming kernel (combined region) ----------------------------------------------

constexpr int STREAM_UNROLL = 8;     // U: steps per batch (the ILP of a warp's walk)
constexpr int STREAM_PREFETCH = 64;  // steps ahead whose input lines the L2 is asked to fetch
// The region count's integral is kept modulo 2^16 beside the arms (see stream_kernel): exact
// while a region holds fewer than 2^16 pixels, (2 max_arm + 1)^2 < 2^16.
constexpr int STREAM_MAX_ARM = 127;

// One line's walk: along x (a row) or y (a column), and what each of its stages does.
struct StreamArgs {
  const __half* in = nullptr;  // stage 0's input, unless the cost is computed (FUSED_COST)
  __half* out = nullptr;       // the last stage's output (may be `in`)
  const uchar4* arms = nullptr;
  const uchar4* other_arms = nullptr;  // pd's arms (nullptr: p's own region)
  int sign = -1;                       // pd = p + sign * d
  int min_d = 0;
  int width = 0;
  int height = 0;
  int levels = 0;
  int max_arm = 0;
  float scale = 1.0f;  // fixed-point scale of the integrals
  CostInputs cost;
};

// log2 of the ring entries per lane: the smallest power of two >= 2 M + 3 U + 1 (see
// stream_kernel), so that a slot is an index masked, not a division.
int stream_ring_log2(int max_arm) {
  int log2 = 0;
  while ((1 << log2) < 2 * max_arm + 3 * STREAM_UNROLL + 1) ++log2;
  return log2;
}

// STAGES 1 or 2 chained sums along one axis (HORIZONTAL: along x) over one line and 32 levels
// (one per lane). Stage 0 reads the volume (or computes eq. 1-3 with FUSED_COST); with NORM0 it
// divides each sum by the region's pixel count: the integral of the other axis's arm widths
// (the widths of its iteration's first pass) over this axis's arm. Stage 1 (the first pass of
// the next iteration) sums stage 0's fp32 results, unrounded, and never divides. The last stage
// stores fp16.
//
// Each lane keeps rings of R entries in shared memory (its own bank), entry i in slot i & (R-1):
//   P0   the integral of its inputs (P0[0] = 0, P0[i + 1] = P0[i] + input i; fixed point mod 2^32)
//   AUX  entry i + 1: this axis's combined arms of position i (the shorter of p's and pd's) in
//        bytes 2-3, and the integral of the other axis's widths (NORM0) mod 2^16 in bytes 0-1,
//        so each position's arms are read from global memory once
//   P1   (2 stages) the integral of stage 0's results.
//
// The walk goes in batches of U steps. Batch t0 .. t0 + U - 1: (1) stage 0 emits positions
// o0 = t0 - M - U .. t0 - M - 1, whose arm sums P0[o0 + after + 1] - P0[o0 - before] read
// entries of earlier batches only; (2) the batch's inputs enter P0 and AUX; (3) stage 1 emits
// o1 = o0 - M - U, again from earlier entries; (4) stage 0's results enter P1. No read depends
// on a write of its own phase, so a phase's 2-4 U shared-memory loads issue back to back: a
// batch waits for a few latencies, not one per step. The next batch's inputs and arms load
// into registers while this one computes, and the L2 is asked for the input lines
// STREAM_PREFETCH steps ahead. Ring span: phase 3 reads AUX down to t0 - 2M - 2U + 1 after
// phase 2 wrote up to t0 + U, so R > 2M + 3U (P0 and P1 need less).
template <int STAGES, bool HORIZONTAL, bool FUSED_COST, bool NORM0>
__global__ void __launch_bounds__(32) stream_kernel(const StreamArgs a, int lines, int groups, int ring_log2) {
  constexpr int U = STREAM_UNROLL;
  extern __shared__ unsigned stream_shared[];
  const int lane = threadIdx.x;
  const int line = static_cast<int>(blockIdx.x / unsigned(groups));
  const int k = static_cast<int>(blockIdx.x - unsigned(line) * unsigned(groups)) * 32 + lane;
  if (line >= lines) return;
  const bool active = k < a.levels;
  const int M = a.max_arm;
  const unsigned mask = (1u << ring_log2) - 1u;
  const int length = HORIZONTAL ? a.width : a.height;
  const std::size_t pitch = static_cast<std::size_t>(a.width) * static_cast<std::size_t>(a.levels);
  const std::size_t stride = HORIZONTAL ? static_cast<std::size_t>(a.levels) : pitch;
  const std::size_t base = (HORIZONTAL ? static_cast<std::size_t>(line) * pitch
                                       : static_cast<std::size_t>(line) * static_cast<std::size_t>(a.levels)) +
                           static_cast<std::size_t>(active ? k : 0);
  // pd = p + xd_offset along x: fixed for a column walk, moving with x along a row walk.
  const int xd_offset = a.sign * (a.min_d + k);
  const bool has_other = a.other_arms != nullptr;
  const unsigned* own_arms = reinterpret_cast<const unsigned*>(a.arms);
  const unsigned* other_arms = reinterpret_cast<const unsigned*>(a.other_arms);
  const int line_pixel = HORIZONTAL ? line * a.width : 0;

  unsigned* p0 = stream_shared + lane;
  unsigned* aux = p0 + (std::size_t(1) << ring_log2) * 32;
  unsigned* p1 = aux + (std::size_t(1) << ring_log2) * 32;
  const auto at = [&](unsigned* ring, int i) -> unsigned& { return ring[(unsigned(i) & mask) * 32u]; };
  p0[0] = 0u;
  aux[0] = 0u;
  if constexpr (STAGES == 2) p1[0] = 0u;
  unsigned run0 = 0u, run_count = 0u, run1 = 0u;
  const float inv_scale = 1.0f / a.scale;  // a power of two: exact

  // Own and pd's arms at position pos as words (own twice where there is no pd).
  const auto load_arms = [&](int pos, unsigned& own, unsigned& other) {
    own = 0u;
    other = 0u;
    if (!active || pos >= length) return;
    // 32-bit pixel index: images hold fewer than 2^31 pixels (the matchers' limits).
    const int p = HORIZONTAL ? line_pixel + pos : pos * a.width + line;
    own = __ldg(own_arms + p);
    other = own;
    const int xd = (HORIZONTAL ? pos : line) + xd_offset;
    if (has_other && xd >= 0 && xd < a.width) other = __ldg(other_arms + (p + xd_offset));
  };
  // Per byte min(own, other), SIMD within the word: arms are at most max_arm <= 127, so
  // (own | 0x80) - other never borrows across bytes, and its top bit says own >= other.
  const auto arms_min = [](unsigned own, unsigned other) {
    const unsigned ge = (((own | 0x80808080u) - other) >> 7) & 0x01010101u;
    const unsigned take_other = ge * 0xFFu;
    return (other & take_other) | (own & ~take_other);
  };

  const int steps = length + STAGES * (M + U);
  __half next_in[U];
  unsigned next_own[U], next_other[U];
  // Cells of position t0 + U (the next batch's first input), t0 - M - U (stage 0's first output)
  // and t0 - 2 (M + U) (stage 1's), advanced by U positions a batch; offsets of u within a batch.
  const __half* in_next = (FUSED_COST ? nullptr : a.in) + base + std::size_t(U) * stride;
  __half* out0 = a.out + base - std::size_t(M + U) * stride;
  __half* out1 = a.out + base - std::size_t(2 * (M + U)) * stride;
  std::size_t offset[U];
#pragma unroll
  for (int u = 0; u < U; ++u) offset[u] = std::size_t(u) * stride;
  const std::size_t batch = std::size_t(U) * stride;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    if constexpr (!FUSED_COST)
      next_in[u] = (active && u < length) ? a.in[base + offset[u]] : __ushort_as_half(0);
    load_arms(u, next_own[u], next_other[u]);
  }
  for (int t0 = 0; t0 < steps; t0 += U, in_next += batch, out0 += batch, out1 += batch) {
    float in[U];
    unsigned own[U], other[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if constexpr (FUSED_COST) {
        const int pos = t0 + u;
        in[u] = (active && pos < length) ? (HORIZONTAL ? ad_census_cost_at(a.cost, pos, line, k)
                                                       : ad_census_cost_at(a.cost, line, pos, k))
                                         : 0.0f;
      } else {
        in[u] = __half2float(next_in[u]);
      }
      own[u] = next_own[u];
      other[u] = next_other[u];
    }
    // The next batch's inputs and arms, and an L2 hint further ahead.
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int pos = t0 + U + u;
      if constexpr (!FUSED_COST) {
        next_in[u] = (active && pos < length) ? in_next[offset[u]] : __ushort_as_half(0);
        const int ahead = pos + STREAM_PREFETCH;
        if (active && ahead < length) prefetch_l2(in_next + offset[u] + std::size_t(STREAM_PREFETCH) * stride);
      }
      load_arms(pos, next_own[u], next_other[u]);
    }
    if (!active) continue;

    // (1) Stage 0 emits o0 = t0 - M - U + u.
    float result0[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int o0 = t0 - M - U + u;
      result0[u] = 0.0f;
      if (o0 >= 0 && o0 < length) {
        const unsigned e = at(aux, o0 + 1);
        const int hi = o0 + int(e >> 24) + 1, lo = o0 - int((e >> 16) & 0xFFu);
        // Exact modulo 2^32 (2^16 for the count): each window's own sum is below it.
        float v = float(at(p0, hi) - at(p0, lo)) * inv_scale;
        if constexpr (NORM0) v = __fdividef(v, float((at(aux, hi) - at(aux, lo)) & 0xFFFFu));
        result0[u] = v;
      }
    }
    // (2) Inputs t0 + u enter P0 and AUX (entry t0 + u + 1).
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int t = t0 + u;
      if (t < length) {
        run0 += __float2uint_rn(in[u] * a.scale);
        at(p0, t + 1) = run0;
        const unsigned arms = arms_min(own[u], other[u]);  // bytes: x before, x after, y before, y after
        if constexpr (NORM0) {  // the width of the iteration's first pass at t: along the other axis
          const unsigned across = HORIZONTAL ? arms >> 16 : arms & 0xFFFFu;
          run_count += 1u + (across & 0xFFu) + (across >> 8);
        }
        // This axis's two bytes into bytes 2-3, the count's low 16 bits into bytes 0-1.
        at(aux, t + 1) = __byte_perm(run_count, arms, HORIZONTAL ? 0x5410 : 0x7610);
      }
    }
    if constexpr (STAGES == 1) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int o0 = t0 - M - U + u;
        if (o0 >= 0 && o0 < length) out0[offset[u]] = __float2half_rn(result0[u]);
      }
    } else {
      // (3) Stage 1 emits o1 = o0 - M - U.
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int o1 = t0 - 2 * (M + U) + u;
        if (o1 >= 0 && o1 < length) {
          const unsigned e = at(aux, o1 + 1);
          const int hi = o1 + int(e >> 24) + 1, lo = o1 - int((e >> 16) & 0xFFu);
          out1[offset[u]] = __float2half_rn(float(at(p1, hi) - at(p1, lo)) * inv_scale);
        }
      }
      // (4) Stage 0's results enter P1 (entry o0 + 1).
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int o0 = t0 - M - U + u;
        if (o0 >= 0 && o0 < length) {
          run1 += __float2uint_rn(result0[u] * a.scale);
          at(p1, o0 + 1) = run1;
        }
      }
    }
  }
}

// One pass of the aggregation schedule: an axis, whether it divides by the region's count (the
// second pass of an iteration), and whether the next pass (same axis) runs as its second stage.
struct StreamPass {
  bool horizontal = true;
  bool normalise = false;
  bool chained = false;
};

// Sec. 2.2's passes for `iterations` iterations (odd: H then V, even: V then H), a second
// pass chained with the next iteration's first, which runs along the same axis.
std::vector<StreamPass> stream_schedule(int iterations) {
  std::vector<StreamPass> passes;
  for (int j = 0; j < 2 * iterations; ++j) {
    const int iteration = j / 2 + 1;
    const bool first = j % 2 == 0;
    const bool horizontal = (iteration % 2 == 1) == first;
    if (first && !passes.empty() && passes.back().normalise && passes.back().horizontal == horizontal &&
        !passes.back().chained) {
      passes.back().chained = true;
      continue;
    }
    passes.push_back({horizontal, !first, false});
  }
  return passes;
}

template <int STAGES, bool HORIZONTAL, bool FUSED_COST, bool NORM0>
void launch_stream(const StreamArgs& args, cudaStream_t stream) {
  require(args.max_arm <= STREAM_MAX_ARM, "adcensus/cuda aggregation: arms up to " + std::to_string(args.max_arm) +
                                              " (arm_l1 " + std::to_string(args.max_arm + 1) + "); this kernel takes up to " +
                                              std::to_string(STREAM_MAX_ARM) + " (arm_l1 <= " +
                                              std::to_string(STREAM_MAX_ARM + 1) + ")");
  const int ring_log2 = stream_ring_log2(args.max_arm);
  const int rings = STAGES == 2 ? 3 : 2;
  const std::size_t bytes = static_cast<std::size_t>(rings) * (std::size_t(1) << ring_log2) * 32 * sizeof(unsigned);
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::size_t optin = shared_memory_optin_limit(device);
  require(bytes <= optin, "adcensus/cuda aggregation: arms up to " + std::to_string(args.max_arm) + " need " +
                              std::to_string(bytes) + " bytes of shared memory per warp, the device allows " +
                              std::to_string(optin));
  auto kernel = stream_kernel<STAGES, HORIZONTAL, FUSED_COST, NORM0>;
  if (bytes > 48 * 1024) CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  const int lines = HORIZONTAL ? args.height : args.width;
  const int groups = div_up(args.levels, 32);
  const long long blocks = static_cast<long long>(lines) * groups;  // one warp each: SMs pack them by shared memory
  require(blocks <= 0x7FFFFFFF, "adcensus/cuda aggregation: volume too large for one grid");
  kernel<<<unsigned(blocks), 32, bytes, stream>>>(args, lines, groups, ring_log2);
  CUDA_CHECK_LAUNCH();
}

void run_pass(const StreamArgs& args, const StreamPass& pass, bool fused_cost, cudaStream_t stream) {
  if (fused_cost) {
    require(pass.horizontal && !pass.normalise && !pass.chained,
            "adcensus/cuda aggregation: the cost is fused only into a lone first horizontal pass");
    launch_stream<1, true, true, false>(args, stream);
  } else if (pass.chained) {
    require(pass.normalise, "adcensus/cuda aggregation: only a second pass chains with the next");
    if (pass.horizontal)
      launch_stream<2, true, false, true>(args, stream);
    else
      launch_stream<2, false, false, true>(args, stream);
  } else if (pass.normalise) {
    if (pass.horizontal)
      launch_stream<1, true, false, true>(args, stream);
    else
      launch_stream<1, false, false, true>(args, stream);
  } else {
    if (pass.horizontal)
      launch_stream<1, true, false, false>(args, stream);
    else
      launch_stream<1, false, false, false>(args, stream);
  }
}

StreamArgs stream_args(int w, int h, int levels, int min_d, const DeviceImage<uchar4>& arms,
                       const DeviceImage<uchar4>& other_arms, bool right_view, int max_arm) {
  StreamArgs a;
  a.arms = arms.get();
  a.other_arms = other_arms.get();
  a.sign = right_view ? +1 : -1;  // pd = p - d for the left view, p + d for the right
  a.min_d = min_d;
  a.width = w;
  a.height = h;
  a.levels = levels;
  a.max_arm = max_arm;
  a.scale = fixed_point_scale(max_arm);
  return a;
}

// The fused cost's inputs against the volume it fills.
void require_cost_inputs(const DeviceImage<uchar4>& left_rgb, const DeviceImage<uchar4>& right_rgb,
                         const DeviceImage<std::uint64_t>& left_census, const DeviceImage<std::uint64_t>& right_census,
                         int w, int h, int levels) {
  require(left_rgb.width == w && left_rgb.height == h && right_rgb.width == w && right_rgb.height == h &&
              left_census.width == w && left_census.height == h && right_census.width == w &&
              right_census.height == h,
          "adcensus/cuda ad_census_cost_aggregated: images, census images and volume must have one size");
  require(levels >= 1, "adcensus/cuda ad_census_cost_aggregated: disparity count must be >= 1");
}

// The scratch and output volumes of both region kinds, and the arm limit.
void require_volumes(int w, int h, int levels, const DeviceVolume& scratch, const DeviceVolume& out, int max_arm) {
  require(scratch.width == w && scratch.height == h && scratch.range.count == levels && out.width == w &&
              out.height == h && out.range.count == levels,
          "adcensus/cuda aggregate_cost: scratch and output must hold the volume");
  require(max_arm >= 0 && max_arm <= 255,
          "adcensus/cuda aggregate_cost: max_arm must be in 0..255, got " + std::to_string(max_arm));
  require(scratch.get() != out.get(), "adcensus/cuda aggregate_cost: scratch must differ from the output");
}

void require_aggregation_shapes(int w, int h, int levels, const DeviceImage<uchar4>& arms,
                                const DeviceImage<float>& h_then_v, const DeviceImage<float>& v_then_h,
                                const DeviceVolume& scratch, const DeviceVolume& out, int max_arm) {
  require(arms.width == w && arms.height == h && h_then_v.width == w && h_then_v.height == h &&
              v_then_h.width == w && v_then_h.height == h,
          "adcensus/cuda aggregate_cost: arms and region sizes must have the volume's size");
  require_volumes(w, h, levels, scratch, out, max_arm);
}

void require_combined_shapes(int w, int h, int levels, const DeviceImage<uchar4>& arms,
                             const DeviceImage<uchar4>& other_arms, const DeviceVolume& scratch,
                             const DeviceVolume& out, int max_arm) {
  require(arms.width == w && arms.height == h && other_arms.width == w && other_arms.height == h,
          "adcensus/cuda aggregate_cost: both views' arms must have the volume's size");
  require_volumes(w, h, levels, scratch, out, max_arm);
}

}  // namespace

void aggregate_cost(const DeviceVolume& cost, const DeviceImage<uchar4>& arms, const DeviceImage<uchar4>& other_arms,
                    bool right_view, int iteration, int max_arm, DeviceVolume& scratch, DeviceVolume& out,
                    cudaStream_t stream) {
  const int w = cost.width;
  const int h = cost.height;
  const int levels = cost.range.count;
  require_combined_shapes(w, h, levels, arms, other_arms, scratch, out, max_arm);
  require(iteration >= 1, "adcensus/cuda aggregate_cost: iteration is 1-based, got " + std::to_string(iteration));
  require(scratch.get() != cost.get(), "adcensus/cuda aggregate_cost: scratch must be a third buffer");
  const bool horizontal_first = iteration % 2 == 1;  // Sec. 2.2: iterations 1 and 3 sum along x first
  StreamArgs args = stream_args(w, h, levels, cost.range.min, arms, other_arms, right_view, max_arm);
  args.in = reinterpret_cast<const __half*>(cost.get());
  args.out = reinterpret_cast<__half*>(scratch.get());
  run_pass(args, {horizontal_first, false, false}, false, stream);
  args.in = args.out;
  args.out = reinterpret_cast<__half*>(out.get());
  run_pass(args, {!horizontal_first, true, false}, false, stream);
}

int aggregation_walks(int iterations) {
  require(iterations >= 1, "adcensus/cuda aggregation: iterations must be >= 1, got " + std::to_string(iterations));
  return static_cast<int>(stream_schedule(iterations).size());
}

void ad_census_cost_aggregated(const DeviceImage<uchar4>& left_rgb, const DeviceImage<uchar4>& right_rgb,
                               const DeviceImage<std::uint64_t>& left_census,
                               const DeviceImage<std::uint64_t>& right_census, const AdCensusParams& params,
                               bool right_view, const DeviceImage<uchar4>& arms, const DeviceImage<uchar4>& other_arms,
                               int iterations, int max_arm, DeviceVolume& out, cudaStream_t stream) {
  const int w = out.width;
  const int h = out.height;
  const int levels = out.range.count;
  require_cost_inputs(left_rgb, right_rgb, left_census, right_census, w, h, levels);
  require(arms.width == w && arms.height == h && other_arms.width == w && other_arms.height == h,
          "adcensus/cuda aggregate_cost: both views' arms must have the volume's size");
  require(max_arm >= 0 && max_arm <= 255,
          "adcensus/cuda aggregate_cost: max_arm must be in 0..255, got " + std::to_string(max_arm));
  const std::vector<StreamPass> passes = stream_schedule(iterations);
  StreamArgs args = stream_args(w, h, levels, out.range.min, arms, other_arms, right_view, max_arm);
  args.cost = make_cost_inputs(left_rgb, right_rgb, left_census, right_census, params, right_view, out.range.min);
  args.out = reinterpret_cast<__half*>(out.get());
  // The first pass computes the cost; every later walk runs in place on `out`.
  run_pass(args, passes.front(), true, stream);
  args.in = args.out;
  for (std::size_t i = 1; i < passes.size(); ++i) run_pass(args, passes[i], false, stream);
}

void aggregate_cost(const DeviceVolume& cost, const DeviceImage<uchar4>& arms, const DeviceImage<float>& h_then_v,
                    const DeviceImage<float>& v_then_h, int iteration, int max_arm, DeviceVolume& scratch,
                    DeviceVolume& out, cudaStream_t stream) {
  const int w = cost.width;
  const int h = cost.height;
  const int levels = cost.range.count;
  require_aggregation_shapes(w, h, levels, arms, h_then_v, v_then_h, scratch, out, max_arm);
  require(iteration >= 1, "adcensus/cuda aggregate_cost: iteration is 1-based, got " + std::to_string(iteration));
  require(scratch.get() != cost.get(), "adcensus/cuda aggregate_cost: scratch must be a third buffer");
  // Sec. 2.2: iterations 1 and 3 sum horizontally first, 2 and 4 vertically first.
  const bool horizontal_first = iteration % 2 == 1;
  launch_arm_sum(w, h, levels, cost.get(), nullptr, scratch.get(), arms, {}, horizontal_first, max_arm, stream);
  ArmSumRegion second;
  second.divide = horizontal_first ? h_then_v.get() : v_then_h.get();
  launch_arm_sum(w, h, levels, scratch.get(), nullptr, out.get(), arms, second, !horizontal_first, max_arm, stream);
}

void ad_census_cost_aggregated(const DeviceImage<uchar4>& left_rgb, const DeviceImage<uchar4>& right_rgb,
                               const DeviceImage<std::uint64_t>& left_census,
                               const DeviceImage<std::uint64_t>& right_census, const AdCensusParams& params,
                               bool right_view, const DeviceImage<uchar4>& arms, const DeviceImage<float>& h_then_v,
                               const DeviceImage<float>& v_then_h, int max_arm, DeviceVolume& scratch,
                               DeviceVolume& out, cudaStream_t stream) {
  const int w = out.width;
  const int h = out.height;
  const int levels = out.range.count;
  require_cost_inputs(left_rgb, right_rgb, left_census, right_census, w, h, levels);
  require_aggregation_shapes(w, h, levels, arms, h_then_v, v_then_h, scratch, out, max_arm);
  const CostInputs cost =
      make_cost_inputs(left_rgb, right_rgb, left_census, right_census, params, right_view, out.range.min);
  // Iteration 1: horizontal (from the cost itself), then vertical, divided by the H-V size.
  launch_arm_sum(w, h, levels, nullptr, &cost, scratch.get(), arms, {}, true, max_arm, stream);
  ArmSumRegion second;
  second.divide = h_then_v.get();
  launch_arm_sum(w, h, levels, scratch.get(), nullptr, out.get(), arms, second, false, max_arm, stream);
}

}  // namespace stereo::cu::adcensus
