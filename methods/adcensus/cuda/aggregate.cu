// Stage 4: cross-based aggregation (Sec. 2.2), one iteration = two 1D arm sums.
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

#include <type_traits>

#include "methods/adcensus/cuda/cost_device.cuh"
#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {
namespace {

constexpr int LANES = 32;
constexpr int WARPS = 8;
// Positions written per block (a tile; the halo of max_arm on either side is re-read from L2
// by the neighbours), a compile-time constant of the kernel (its unrolled output loop: a tile
// size known only at run time measured 53.1 -> 56.6 ms at 1080p). tile_for picks one per pass
// and axis (see there). 120 divides 1920 and 1080.
constexpr int SMALL_TILE = 96;
constexpr int TILE = 120;
constexpr int LARGE_TILE = 128;  // the largest a count pass uses
constexpr int PLAIN_TILES[] = {SMALL_TILE, TILE, LARGE_TILE, 160, 192};  // the other passes'

// Instructions of one line's pass, in units of ~40, by ncu's counts per position and pass (~80
// a loaded position, ~43 a computed one).
int tile_cost(int length, int tile, int max_arm) { return div_up(length, tile) * (2 * (tile + 2 * max_arm) + tile); }

// The region's pixel count is an unsigned window sum like the cost's, of first-pass arm widths
// (each <= 2 max_arm + 1): 16 bits hold every count, and wrap-around prefixes subtract exactly,
// while (2 max_arm + 1)^2 < 2^16, that is up to max_arm = 127 (L1 = 34 gives 33); 32 bits above.
bool short_counts(int max_arm) { return (2 * max_arm + 1) * (2 * max_arm + 1) < 65536; }

// Shared memory of one block: the cost integral [rows + 1][LANES] and its run totals; with
// count_region also the count integral and its totals, and the tile's own-axis arms (2 bytes a
// cell, read back by the output loop instead of gathering both views' arms again).
std::size_t shared_bytes(int max_arm, bool count_region, int tile) {
  const std::size_t rows = static_cast<std::size_t>(tile + 2 * max_arm);
  std::size_t bytes = (rows + 1 + WARPS) * LANES * sizeof(unsigned);
  if (count_region) {
    const std::size_t count_size = short_counts(max_arm) ? sizeof(unsigned short) : sizeof(unsigned);
    bytes += (rows + 1 + WARPS) * LANES * count_size + static_cast<std::size_t>(tile) * LANES * sizeof(unsigned short);
  }
  return bytes;
}

// The current device's shared-memory limits, queried once per pass.
struct SharedLimits {
  int per_block_optin = 0;     // the most one block may use
  int per_sm = 0;              // all of an SM's
  int reserved_per_block = 0;  // what the system takes per resident block
};

SharedLimits shared_limits() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  SharedLimits l;
  CUDA_CHECK(cudaDeviceGetAttribute(&l.per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l.per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l.reserved_per_block, cudaDevAttrReservedSharedMemoryPerBlock, device));
  return l;
}

// The tile of one pass along a line of `length`: the fewest instructions (tile_cost) among the
// sizes that keep enough blocks resident. Measured on the H100 (methods/adcensus/cuda/NOTES.md, rounds
// 7 and 8), L1 = 34:
// - A count pass holds two integrals (44 KB a block at 120): five blocks per SM at 96 and 120,
//   four at 128, whose lost fifth measured 0.6 % slower at 1920 columns where it saves 1.7 % of
//   the instructions; so 128 only where it saves at least 5 % (Teddy's 375 rows: three tiles
//   of 128, 582 positions loaded and 384 computed, instead of four of 120, 744 and 480).
// - The other passes hold one (24 KB at 120): eight blocks up to 128, six at 192 (34 KB), five
//   at 240. 192 at 1920 x 1080 saves 10 % and 4 % of the instructions and measured 42.2 ->
//   40.3 ms; 240 (five blocks) saves more on paper and measured 42.1. So the fewest
//   instructions among the sizes that leave six blocks (48 warps) per SM.
int tile_for(int length, int max_arm, bool count_pass, const SharedLimits& limits) {
  if (count_pass) {
    const int plain = tile_cost(length, SMALL_TILE, max_arm) < tile_cost(length, TILE, max_arm) ? SMALL_TILE : TILE;
    return 20 * tile_cost(length, LARGE_TILE, max_arm) <= 19 * tile_cost(length, plain, max_arm) ? LARGE_TILE : plain;
  }
  int best = TILE;
  for (const int t : PLAIN_TILES) {
    const std::size_t per_block = shared_bytes(max_arm, false, t) + static_cast<std::size_t>(limits.reserved_per_block);
    const bool six_resident = 6 * per_block <= static_cast<std::size_t>(limits.per_sm);
    if (six_resident && tile_cost(length, t, max_arm) < tile_cost(length, best, max_arm)) best = t;
  }
  return best;
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
  require(largest_window_sum * scale < 4294967295.0, [&] {
    return "adcensus/cuda aggregate_cost: arms up to " + std::to_string(max_arm) + " overflow the fixed-point integral";
  });
  return float(scale);
}

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
// to max_arm (`clip2`, max_arm in each 16-bit lane). The minima are per 16-bit lane
// (__vminu2, one instruction on sm_90, where the byte-wise __vminu4 is emulated in six).
struct ArmPairs {
  unsigned own;
  unsigned first;
};

__device__ __forceinline__ ArmPairs combined_arm_pairs(const uchar4* __restrict__ arms,
                                                       const uchar4* __restrict__ other, int width, int pixel,
                                                       int x, int xd, unsigned own_select, unsigned first_select,
                                                       unsigned clip2) {
  const unsigned a = reinterpret_cast<const unsigned*>(arms)[pixel];
  unsigned own = __byte_perm(a, 0u, own_select);
  unsigned first = __byte_perm(a, 0u, first_select);
  if (other != nullptr) {
    const unsigned b = pd_arms_or_none(other, width, pixel, x, xd);
    own = __vminu2(own, __byte_perm(b, 0u, own_select));
    first = __vminu2(first, __byte_perm(b, 0u, first_select));
  }
  return {__vminu2(own, clip2), __vminu2(first, clip2)};
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
        const ArmPairs a = combined_arm_pairs(arms, other_arms, width, line_pixel + at * pos_step, x, x + offset_d,
                                              own_select, first_select, clip2);
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
  // The combined region's counts of this pass's order (a volume's layout): written by a count
  // pass (16-bit counts only), read instead of counting by a pass without count_region.
  std::uint16_t* store_counts = nullptr;
  const std::uint16_t* load_counts = nullptr;
};

template <int TILE_SIZE>
void launch_tiles(int width, int height, int levels, const std::uint16_t* in, const CostInputs* cost,
                  std::uint16_t* out, const DeviceImage<uchar4>& arms, const ArmSumRegion& region, bool horizontal,
                  int max_arm, int shared_optin, cudaStream_t stream) {
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
        reinterpret_cast<const __half*>(in), reinterpret_cast<__half*>(out), arms.get(), region.other_arms,
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

void launch_arm_sum(int width, int height, int levels, const std::uint16_t* in, const CostInputs* cost,
                    std::uint16_t* out, const DeviceImage<uchar4>& arms, const ArmSumRegion& region, bool horizontal,
                    int max_arm, cudaStream_t stream) {
  const SharedLimits limits = shared_limits();
  const auto launch = [&](auto tile) {
    launch_tiles<decltype(tile)::value>(width, height, levels, in, cost, out, arms, region, horizontal, max_arm,
                                        limits.per_block_optin, stream);
  };
  static_assert(sizeof(PLAIN_TILES) / sizeof(int) == 5 && PLAIN_TILES[3] == 160 && PLAIN_TILES[4] == 192,
                "a case below for every tile size");
  switch (tile_for(horizontal ? width : height, max_arm, region.count_region, limits)) {
    case 160: launch(std::integral_constant<int, 160>{}); break;
    case 192: launch(std::integral_constant<int, 192>{}); break;
    case SMALL_TILE: launch(std::integral_constant<int, SMALL_TILE>{}); break;
    case LARGE_TILE: launch(std::integral_constant<int, LARGE_TILE>{}); break;
    default: launch(std::integral_constant<int, TILE>{}); break;
  }
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
          [&] { return "adcensus/cuda aggregate_cost: max_arm must be in 0..255, got " + std::to_string(max_arm); });
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

// The two passes of one iteration over the combined region: the first sums along its axis
// with combined arms, the second along the other and divides by the region's count.
// With `store_counts` the second pass also writes the region's counts there; with
// `load_counts` it reads them instead of counting.
void combined_passes(int w, int h, int levels, const std::uint16_t* in, const CostInputs* cost, std::uint16_t* scratch,
                     std::uint16_t* out, const DeviceImage<uchar4>& arms, const DeviceImage<uchar4>& other_arms,
                     bool right_view, int min_d, bool horizontal_first, int max_arm, cudaStream_t stream,
                     std::uint16_t* store_counts = nullptr, const std::uint16_t* load_counts = nullptr) {
  ArmSumRegion region;
  region.other_arms = other_arms.get();
  region.sign = right_view ? +1 : -1;  // pd = p - d for the left view, p + d for the right
  region.min_d = min_d;
  launch_arm_sum(w, h, levels, in, cost, scratch, arms, region, horizontal_first, max_arm, stream);
  region.count_region = load_counts == nullptr;
  region.store_counts = store_counts;
  region.load_counts = load_counts;
  launch_arm_sum(w, h, levels, scratch, nullptr, out, arms, region, !horizontal_first, max_arm, stream);
}

}  // namespace

void aggregate_cost(const DeviceVolume& cost, const DeviceImage<uchar4>& arms, const DeviceImage<uchar4>& other_arms,
                    bool right_view, int iteration, int max_arm, DeviceVolume& scratch, DeviceVolume& out,
                    cudaStream_t stream) {
  const int w = cost.width;
  const int h = cost.height;
  const int levels = cost.range.count;
  require_combined_shapes(w, h, levels, arms, other_arms, scratch, out, max_arm);
  require(iteration >= 1,
          [&] { return "adcensus/cuda aggregate_cost: iteration is 1-based, got " + std::to_string(iteration); });
  require(scratch.get() != cost.get(), "adcensus/cuda aggregate_cost: scratch must be a third buffer");
  combined_passes(w, h, levels, cost.get(), nullptr, scratch.get(), out.get(), arms, other_arms, right_view,
                  cost.range.min, iteration % 2 == 1, max_arm, stream);
}

void ad_census_cost_aggregated(const DeviceImage<uchar4>& left_rgb, const DeviceImage<uchar4>& right_rgb,
                               const DeviceImage<std::uint64_t>& left_census,
                               const DeviceImage<std::uint64_t>& right_census, const AdCensusParams& params,
                               bool right_view, const DeviceImage<uchar4>& arms, const DeviceImage<uchar4>& other_arms,
                               int iterations, int max_arm, DeviceVolume& scratch, DeviceVolume& out,
                               cudaStream_t stream, RegionCounts* counts) {
  const int w = out.width;
  const int h = out.height;
  const int levels = out.range.count;
  require_cost_inputs(left_rgb, right_rgb, left_census, right_census, w, h, levels);
  require_combined_shapes(w, h, levels, arms, other_arms, scratch, out, max_arm);
  require(iterations >= 1, [&] {
    return "adcensus/cuda ad_census_cost_aggregated: iterations must be >= 1, got " + std::to_string(iterations);
  });
  const bool keep = counts != nullptr && short_counts(max_arm) && iterations > 2;
  if (keep)
    require(counts->cells == out.count() && counts->h_then_v && counts->v_then_h,
            "adcensus/cuda ad_census_cost_aggregated: the region counts must have the volume's cells");
  // Iteration i sums horizontally first when odd (Sec. 2.2), over the region of that order:
  // with `keep` the first iteration of each order stores its counts and the later ones read them.
  const auto counts_of = [&](int i) { return i % 2 == 1 ? counts->h_then_v.get() : counts->v_then_h.get(); };
  const auto store = [&](int i) { return keep && i <= 2 ? counts_of(i) : nullptr; };
  const auto load = [&](int i) -> const std::uint16_t* { return keep && i > 2 ? counts_of(i) : nullptr; };
  const CostInputs cost =
      make_cost_inputs(left_rgb, right_rgb, left_census, right_census, params, right_view, out.range.min);
  combined_passes(w, h, levels, nullptr, &cost, scratch.get(), out.get(), arms, other_arms, right_view, out.range.min,
                  true, max_arm, stream, store(1), load(1));
  // Iterations 2.. in place: each pass reads its input whole before the next launch writes.
  for (int i = 2; i <= iterations; ++i)
    combined_passes(w, h, levels, out.get(), nullptr, scratch.get(), out.get(), arms, other_arms, right_view,
                    out.range.min, i % 2 == 1, max_arm, stream, store(i), load(i));
}

bool RegionCounts::fit_16_bits(int max_arm) { return short_counts(max_arm); }

void aggregate_cost(const DeviceVolume& cost, const DeviceImage<uchar4>& arms, const DeviceImage<float>& h_then_v,
                    const DeviceImage<float>& v_then_h, int iteration, int max_arm, DeviceVolume& scratch,
                    DeviceVolume& out, cudaStream_t stream) {
  const int w = cost.width;
  const int h = cost.height;
  const int levels = cost.range.count;
  require_aggregation_shapes(w, h, levels, arms, h_then_v, v_then_h, scratch, out, max_arm);
  require(iteration >= 1,
          [&] { return "adcensus/cuda aggregate_cost: iteration is 1-based, got " + std::to_string(iteration); });
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
