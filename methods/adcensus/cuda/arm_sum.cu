// The arm-sum pass of stage 4, cross-based aggregation (Sec. 2.2): one iteration is two of
// these 1D arm sums (aggregate.cu).
//
// A block owns 32 "lanes" (32 consecutive cells of a row: levels of one or two pixels for the
// horizontal sum, (x, k) pairs for the vertical one, so every load of a warp is contiguous)
// and a tile of 96 to 192 positions along the sum's axis (tile_for) plus a halo of max_arm
// on both sides. It loads the tile into shared memory, turns it into a 1D integral
// along the axis with a segmented scan (each warp scans a run of rows, then adds the totals of
// the runs before it), and writes each cell's arm sum as the difference of two integral values.
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
// its arm sum instead of reading a precomputed size (an unsigned integral too: exact). The
// count depends on the arms only, so with RegionCounts the count passes of iterations 1 and 2
// also store it (16 bits a cell) and iterations 3 and 4 divide by the stored value instead of
// counting again (Counts::STORE, Counts::LOAD): the same division, the same bits.
//
// The fused variant computes the cost (eq. 1-3) while loading the first pass of iteration 1
// instead of reading a stored C: the cost volume is never written or read (4 bytes per cell
// less), and C enters the sums in fp32 rather than rounded to fp16.

#include <cuda_fp16.h>

#include <string>
#include <type_traits>

#include "methods/adcensus/cuda/arm_sum.h"
#include "methods/adcensus/cuda/cost_device.cuh"

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

// The arms of pixel `pixel` at one level along this pass's axis (`own`) and along the other
// one (`first`), each as before | after << 16: p's own, or (with `other`) each the shorter of
// p's and pd's, pd `xd` columns along the row (none where pd lies outside); every arm clipped
// to max_arm (`select.clip2`, max_arm in each 16-bit lane). The minima are per 16-bit lane
// (__vminu2, one instruction on sm_90, where the byte-wise __vminu4 is emulated in six).
struct ArmPairs {
  unsigned own;
  unsigned first;
};

// The PRMT selectors of this pass's axis and of the first pass's, and max_arm in each 16-bit lane.
struct ArmSelect {
  unsigned own;
  unsigned first;
  unsigned clip2;
};

__device__ __forceinline__ ArmPairs combined_arm_pairs(const uchar4* __restrict__ arms,
                                                       const uchar4* __restrict__ other, int width, int pixel,
                                                       int x, int xd, const ArmSelect& select) {
  const unsigned a = reinterpret_cast<const unsigned*>(arms)[pixel];
  unsigned own = __byte_perm(a, 0u, select.own);
  unsigned first = __byte_perm(a, 0u, select.first);
  if (other != nullptr) {
    const unsigned b = pd_arms_or_none(other, width, pixel, x, xd);
    own = __vminu2(own, __byte_perm(b, 0u, select.own));
    first = __vminu2(first, __byte_perm(b, 0u, select.first));
  }
  return {__vminu2(own, select.clip2), __vminu2(first, select.clip2)};
}

// v / c for a count or region size c in [1, 2^126]: what __fdividef gives there (the
// approximate reciprocal, then one multiplication), without its guard for divisors outside
// that range, which costs three instructions a cell.
__device__ __forceinline__ float divide_by_count(float v, float c) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(c));
  return __fmul_rn(v, r);
}

// This axis's two arms only (bytes `shift` and `shift` + 1 of the packed arms, combined and
// clipped as combined_arm_pairs's `own`), as before | after << 8: what the passes without a
// count column read. Byte-wise in 32-bit registers: the 16-bit pairs measured slower here at
// 1080p (45.9 against 45.5 ms).
__device__ __forceinline__ unsigned own_arms(const uchar4* __restrict__ arms, const uchar4* __restrict__ other,
                                             int width, int pixel, int x, int xd, int shift, int max_arm) {
  // (A select of pd's arms before the minima, as in pd_arms_or_none, measured 1.1 ms slower at
  // 1080p than the selects after them.) Where pd lies outside the other image: no arms (the
  // cell alone).
  const unsigned a = reinterpret_cast<const unsigned*>(arms)[pixel] >> shift;
  int before = min(int(a & 0xFFu), max_arm);
  int after = min(int((a >> 8) & 0xFFu), max_arm);
  if (other != nullptr) {
    const unsigned b = reinterpret_cast<const unsigned*>(other)[pixel - x + min(max(xd, 0), width - 1)] >> shift;
    const bool inside = xd >= 0 && xd < width;
    before = inside ? min(before, int(b & 0xFFu)) : 0;
    after = inside ? min(after, int((b >> 8) & 0xFFu)) : 0;
  }
  return unsigned(before) | unsigned(after) << 8;
}

// Turns rows 1..rows of `prefix` ([rows + 1][LANES], row 0 zero) into running sums along the
// rows, each warp scanning its own run and then adding the totals of the runs before it. Every
// thread of the block must call it (it holds block barriers). Unsigned T wraps around.
template <class T>
__device__ void block_scan(T* prefix, T* totals, int rows, int warp, int lane) {
  const int run = div_up(rows, WARPS);
  const int first = 1 + warp * run;
  const int last = min(rows, (warp + 1) * run);
  T sum = T(0);
  for (int r = first; r <= last; ++r) {
    sum = T(sum + prefix[r * LANES + lane]);
    prefix[r * LANES + lane] = sum;
  }
  totals[warp * LANES + lane] = sum;
  __syncthreads();
  T offset = T(0);
  for (int w = 0; w < warp; ++w) offset = T(offset + totals[w * LANES + lane]);
  for (int r = first; r <= last; ++r) prefix[r * LANES + lane] = T(prefix[r * LANES + lane] + offset);
  __syncthreads();
}

// What a pass does with the combined region's pixel counts beyond counting them (CountT).
enum class Counts { NONE, STORE, LOAD };

// One 1D arm sum of a tile. CountT is void without the count column (the first pass of an
// iteration, or the own region's precomputed `divide`), else the count integral's type.
// FUSED computes the cost (eq. 1-3) instead of reading `in`. TILE_SIZE positions a block.
// COUNTS: STORE (with a 16-bit CountT) also writes each cell's count to `counts` (a volume's
// layout); LOAD (CountT void) divides each cell by the count read from `counts`, i.e. the
// second pass of a later iteration of the same order, which then neither gathers the first
// pass's arms nor scans a second column.
// The parameters stay separate scalars, not one struct: with a struct nvcc 13 versions the
// tile loops less (the PTX of every instantiation shrinks by about half: fewer unswitched
// copies of the load and output loops), a code shape no one has timed against NOTES.md's
// measurements. Its launch helpers (launch_tiles, launch_arm_sum) take theirs in ArmSumPass.
template <class CountT, bool FUSED, int TILE_SIZE, Counts COUNTS>
__global__ void __launch_bounds__(LANES * WARPS)
    arm_sum_kernel(const __half* __restrict__ in, __half* __restrict__ out, const uchar4* __restrict__ arms,
                   const uchar4* __restrict__ other_arms, int sign, int min_d, const float* __restrict__ divide,
                   int width, int height, int levels, bool horizontal, int max_arm, float scale, CostInputs cost,
                   std::uint16_t* __restrict__ counts) {
  constexpr bool COUNT = !std::is_void_v<CountT>;
  static_assert(COUNTS != Counts::STORE || std::is_same_v<CountT, unsigned short>, "stored counts are 16-bit");
  static_assert(COUNTS != Counts::LOAD || !COUNT, "a pass either counts or loads the counts");
  using Count = std::conditional_t<COUNT, CountT, unsigned>;
  extern __shared__ unsigned shared[];
  const int rows = TILE_SIZE + 2 * max_arm;
  unsigned* prefix = shared;                 // [rows + 1][LANES], mod 2^32
  unsigned* totals = shared + (rows + 1) * LANES;  // [WARPS][LANES]
  // With COUNT: the first pass's arm widths ([rows + 1][LANES] and [WARPS][LANES]), then the
  // tile's own-axis arms ([TILE_SIZE][LANES], before | after << 8).
  Count* count_prefix = reinterpret_cast<Count*>(totals + WARPS * LANES);
  Count* count_totals = count_prefix + (rows + 1) * LANES;
  unsigned short* tile_arms = reinterpret_cast<unsigned short*>(count_totals + WARPS * LANES);

  const int lane = threadIdx.x % LANES;
  const int warp = threadIdx.x / LANES;
  // Lines x levels is below 2^31 (launch_arm_sum checks the grid): 32-bit division. A lane
  // past the last line reads the last one's cells (every load stays inside the arrays) and
  // writes nothing.
  const int lane_count = (horizontal ? height : width) * levels;
  const int lane_index = static_cast<int>(blockIdx.x) * LANES + lane;
  const bool active = lane_index < lane_count;
  const int line = min(lane_index, lane_count - 1) / levels;  // y of a row sum, x of a column sum
  const int k = min(lane_index, lane_count - 1) - line * levels;
  const int length = horizontal ? width : height;
  const std::size_t base = horizontal ? static_cast<std::size_t>(line) * width * levels + k
                                      : static_cast<std::size_t>(line) * levels + k;
  const std::size_t stride = horizontal ? static_cast<std::size_t>(levels) : static_cast<std::size_t>(width) * levels;
  const __half* src = in + base;
  const int tile_start = static_cast<int>(blockIdx.y) * TILE_SIZE;
  // Pixel index and pd's column offset along the line: pixel = line_pixel + pos * pos_step.
  const int line_pixel = horizontal ? line * width : line;
  const int pos_step = horizontal ? 1 : width;
  const int offset_d = sign * (min_d + k);
  const unsigned clip2 = 0x00010001u * unsigned(max_arm);
  const int own_shift = horizontal ? 0 : 16;   // this pass's arms in the packed uchar4
  const unsigned own_select = horizontal ? ROW_ARMS : COLUMN_ARMS;
  const unsigned first_select = horizontal ? COLUMN_ARMS : ROW_ARMS;  // the first pass's (the other axis)
  [[maybe_unused]] const ArmSelect select{own_select, first_select, clip2};

  // Row i + 1 of `prefix` holds position tile_start - max_arm + i; row 0 is the empty sum.
  if (warp == 0) prefix[lane] = 0u;
  if constexpr (COUNT)
    if (warp == 0) count_prefix[lane] = Count(0);
  // Branch-free body (positions outside the line read the clamped one and store 0), unrolled:
  // ncu had the branchy loop stalled on each load in turn (a third of the samples on the
  // conversion right after the fp16 load). A tile whose halo lies inside the line (every tile
  // but the first and last of a line: block-uniform) needs no clamp, and reads through a
  // pointer that advances by WARPS positions instead of a 64-bit product per load.
  const std::size_t warp_step = static_cast<std::size_t>(WARPS) * stride;
  const auto load_tile = [&](auto interior_tag) {
    constexpr bool INTERIOR = decltype(interior_tag)::value;
    const __half* p = nullptr;
    if constexpr (INTERIOR && !FUSED) p = src + static_cast<std::size_t>(tile_start - max_arm + warp) * stride;
#pragma unroll 4
    for (int i = warp; i < rows; i += WARPS) {
      const int pos = tile_start - max_arm + i;
      const bool inside = INTERIOR ? active : active && pos >= 0 && pos < length;
      const int at = INTERIOR ? pos : min(max(pos, 0), length - 1);
      [[maybe_unused]] const int x = horizontal ? at : line;  // the fused cost's and the count's column
      float v;
      if constexpr (FUSED) {
        v = ad_census_cost_at(cost, x, horizontal ? line : at, k);
      } else if constexpr (INTERIOR) {
        v = __half2float(*p);
        p += warp_step;
      } else {
        v = __half2float(src[static_cast<std::size_t>(at) * stride]);
      }
      prefix[(i + 1) * LANES + lane] = inside ? __float2uint_rn(v * scale) : 0u;
      if constexpr (COUNT) {
        // The first pass ran along the other axis: its arm width at this position and level;
        // this pass's own arms are kept for the output loop (at the clamped position too, so
        // that every row the output loop reads is defined).
        const ArmPairs a =
            combined_arm_pairs(arms, other_arms, width, line_pixel + at * pos_step, x, x + offset_d, select);
        const unsigned width_here = 1u + (a.first & 0xFFFFu) + (a.first >> 16);
        count_prefix[(i + 1) * LANES + lane] = inside ? Count(width_here) : Count(0);
        const int t = i - max_arm;
        if (t >= 0 && t < TILE_SIZE)  // before | after << 8, as own_arms gives it
          tile_arms[t * LANES + lane] = static_cast<unsigned short>(__byte_perm(a.own, 0u, PAIR_TO_BYTES));
      }
    }
  };
  if (tile_start - max_arm >= 0 && tile_start + TILE_SIZE + max_arm <= length)
    load_tile(std::true_type{});
  else
    load_tile(std::false_type{});
  __syncthreads();
  block_scan(prefix, totals, rows, warp, lane);
  if constexpr (COUNT) block_scan(count_prefix, count_totals, rows, warp, lane);

  if (!active) return;
  const float inv_scale = 1.0f / scale;
  // A tile that ends inside its line (block-uniform) stores every position: no guard, which
  // the compiler would otherwise turn into a branch around each output's whole computation.
  const auto write_tile = [&](auto interior_tag) {
    constexpr bool INTERIOR = decltype(interior_tag)::value;
    const std::size_t first = base + static_cast<std::size_t>(tile_start + warp) * stride;  // position tile_start + t
    __half* q = out + first;
    [[maybe_unused]] std::uint16_t* cq = COUNTS == Counts::NONE ? nullptr : counts + first;  // the same cell's count
#pragma unroll 3
    for (int t = warp; t < TILE_SIZE; t += WARPS, q += warp_step) {
      const int pos = tile_start + t;
      const int at = INTERIOR ? pos : min(pos, length - 1);  // past the line's end: computed, not stored
      unsigned own;
      if constexpr (COUNT) {
        own = tile_arms[t * LANES + lane];
      } else {
        const int x = horizontal ? at : line;
        own = own_arms(arms, other_arms, width, line_pixel + at * pos_step, x, x + offset_d, own_shift, max_arm);
      }
      const int before = int(own & 0xFFu);
      const int after = int(own >> 8);
      const int hi = (t + max_arm + after + 1) * LANES + lane;
      const int lo = (t + max_arm - before) * LANES + lane;
      // Exact modulo 2^32, and the window's sum is below 2^32 by the choice of scale. The scale
      // is a power of two, so multiplying by its inverse is exact; the count's division is the
      // fast one (2 ulp), below the fp16 rounding of the stored result. ncu had this kernel
      // issue-bound (85 % of the SM's throughput on a vertical pass at 1080p), and an IEEE
      // division is a ~10-instruction subroutine.
      float v = float(prefix[hi] - prefix[lo]) * inv_scale;
      if constexpr (COUNT) {
        // The count's window sum, modulo 2^16 like its integral (32-bit subtraction, low half).
        const unsigned count = (unsigned(count_prefix[hi]) - unsigned(count_prefix[lo])) & unsigned(Count(~0u));
        v = divide_by_count(v, float(count));
        if constexpr (COUNTS == Counts::STORE)
          if (INTERIOR || pos < length) *cq = static_cast<std::uint16_t>(count);
      } else if constexpr (COUNTS == Counts::LOAD) {
        v = divide_by_count(v, (INTERIOR || pos < length) ? float(*cq) : 1.0f);
      } else if (divide != nullptr) {
        v = divide_by_count(v, divide[line_pixel + at * pos_step]);
      }
      if (INTERIOR || pos < length) *q = __float2half_rn(v);
      if constexpr (COUNTS != Counts::NONE) cq += warp_step;
    }
  };
  if (tile_start + TILE_SIZE <= length)
    write_tile(std::true_type{});
  else
    write_tile(std::false_type{});
}

template <int TILE_SIZE>
void launch_tiles(const ArmSumPass& pass, int shared_optin, cudaStream_t stream) {
  const int width = pass.width;
  const int height = pass.height;
  const int levels = pass.levels;
  const CostInputs* cost = pass.cost;
  const ArmSumRegion& region = pass.region;
  const bool horizontal = pass.horizontal;
  const int max_arm = pass.max_arm;
  const std::size_t bytes = shared_bytes(max_arm, region.count_region, TILE_SIZE);
  require(bytes <= static_cast<std::size_t>(shared_optin), [&] {
    return "adcensus/cuda aggregate_cost: arms up to " + std::to_string(max_arm) + " need " + std::to_string(bytes) +
           " bytes of shared memory per block, the device allows " + std::to_string(shared_optin);
  });
  const long long lanes = static_cast<long long>(horizontal ? height : width) * levels;
  const long long blocks_x = (lanes + LANES - 1) / LANES;
  const int blocks_y = div_up(horizontal ? width : height, TILE_SIZE);
  require(lanes <= 0x7FFFFFFF && blocks_y <= 65535, "adcensus/cuda aggregate_cost: volume too large for one grid");
  require_int_pixels(width, height, "adcensus/cuda aggregate_cost");  // pixel indices in int
  const auto launch = [&](auto kernel) {
    if (bytes > 48 * 1024)
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    kernel<<<dim3(unsigned(blocks_x), unsigned(blocks_y)), LANES * WARPS, bytes, stream>>>(
        reinterpret_cast<const __half*>(pass.in), reinterpret_cast<__half*>(pass.out), pass.arms, region.other_arms,
        region.sign, region.min_d, region.divide, width, height, levels, horizontal, max_arm,
        fixed_point_scale(max_arm), cost != nullptr ? *cost : CostInputs{},
        region.store_counts != nullptr ? region.store_counts : const_cast<std::uint16_t*>(region.load_counts));
  };
  require(!region.count_region || region.other_arms != nullptr,
          "adcensus/cuda aggregate_cost: the count pass needs the other view's arms");
  require(region.store_counts == nullptr || (region.count_region && short_counts(max_arm)),
          "adcensus/cuda aggregate_cost: only a count pass with 16-bit counts stores them");
  require(region.load_counts == nullptr || (!region.count_region && cost == nullptr && region.divide == nullptr),
          "adcensus/cuda aggregate_cost: counts are loaded by a second pass that does not count");
  if (cost != nullptr) {
    require(!region.count_region, "adcensus/cuda aggregate_cost: the cost is fused into a first pass only");
    launch(arm_sum_kernel<void, true, TILE_SIZE, Counts::NONE>);
  } else if (!region.count_region) {
    if (region.load_counts != nullptr)
      launch(arm_sum_kernel<void, false, TILE_SIZE, Counts::LOAD>);
    else
      launch(arm_sum_kernel<void, false, TILE_SIZE, Counts::NONE>);
  } else if constexpr (TILE_SIZE > LARGE_TILE) {
    require(false,
            [&] { return "adcensus/cuda aggregate_cost: no count pass with tiles of " + std::to_string(TILE_SIZE); });
  } else if (short_counts(max_arm)) {
    if (region.store_counts != nullptr)
      launch(arm_sum_kernel<unsigned short, false, TILE_SIZE, Counts::STORE>);
    else
      launch(arm_sum_kernel<unsigned short, false, TILE_SIZE, Counts::NONE>);
  } else {
    launch(arm_sum_kernel<unsigned, false, TILE_SIZE, Counts::NONE>);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_arm_sum(const ArmSumPass& pass, cudaStream_t stream) {
  const SharedLimits limits = shared_limits();
  const auto launch = [&](auto tile) { launch_tiles<decltype(tile)::value>(pass, limits.per_block_optin, stream); };
  static_assert(sizeof(PLAIN_TILES) / sizeof(int) == 5 && PLAIN_TILES[3] == 160 && PLAIN_TILES[4] == 192,
                "a case below for every tile size");
  switch (tile_for(pass.horizontal ? pass.width : pass.height, pass.max_arm, pass.region.count_region, limits)) {
    case 160: launch(std::integral_constant<int, 160>{}); break;
    case 192: launch(std::integral_constant<int, 192>{}); break;
    case SMALL_TILE: launch(std::integral_constant<int, SMALL_TILE>{}); break;
    case LARGE_TILE: launch(std::integral_constant<int, LARGE_TILE>{}); break;
    default: launch(std::integral_constant<int, TILE>{}); break;
  }
}

}  // namespace stereo::cu::adcensus
