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
#include "methods/adcensus/cuda/arm_sum_device.cuh"
#include "methods/adcensus/cuda/cost_device.cuh"

namespace stereo::cu::adcensus {
namespace {

// What a pass does with the combined region's pixel counts beyond counting them (CountT).
enum class Counts { NONE, STORE, LOAD };

// One 1D arm sum of a tile. VEC consecutive levels a lane (1, or 2 where the level count is
// even: one 32-bit load and store of the fp16 volume, one 64-bit word of the integral, p's arms
// read once for both). CountT is void without the count column (the first pass of an
// iteration, or the own region's precomputed `divide`), else the count integral's type; a pass
// that counts holds one level a lane (levels_a_lane).
// FUSED computes the cost (eq. 1-3) instead of reading `in`. TILE_SIZE positions a block.
// COUNTS: STORE (with a 16-bit CountT) also writes each cell's count to `counts` (a volume's
// layout); LOAD (CountT void) divides each cell by the count read from `counts`, i.e. the
// second pass of a later iteration of the same order, which then neither gathers the first
// pass's arms nor scans a second column.
// The parameters stay separate scalars, not one struct: with a struct nvcc 13 versions the
// tile loops less (the PTX of every instantiation shrinks by about half: fewer unswitched
// copies of the load and output loops), a code shape no one has timed against NOTES.md's
// measurements. Its launch helpers (launch_tiles, launch_arm_sum) take theirs in ArmSumPass.
template <class CountT, bool FUSED, int TILE_SIZE, Counts COUNTS, int VEC, int AXIS>
__global__ void __launch_bounds__(LANES * warps_for(VEC), VEC == 2 ? 3 : std::is_void_v<CountT> ? 6 : 5)
    arm_sum_kernel(const __half* __restrict__ in, __half* __restrict__ out, const uchar4* __restrict__ arms,
                   const uchar4* __restrict__ other_arms, int sign, int min_d, const float* __restrict__ divide,
                   int width, int height, int levels, bool horizontal_pass, int max_arm, float scale,
                   CostInputs cost, std::uint16_t* __restrict__ counts) {
  constexpr int W = warps_for(VEC);
  // AXIS 0: the axis `horizontal_pass` says, either region; AXIS 1 (rows) or 2 (columns): the
  // combined region (other_arms given, no `divide`), the axis and the region compile-time
  // constants, which takes their selects and tests out of the loops.
  const bool horizontal = AXIS == 0 ? horizontal_pass : AXIS == 1;
  const bool has_other = AXIS != 0 || other_arms != nullptr;
  const float* __restrict__ region_size = AXIS == 0 ? divide : nullptr;
  constexpr bool COUNT = !std::is_void_v<CountT>;
  static_assert(COUNTS != Counts::STORE || std::is_same_v<CountT, unsigned short>, "stored counts are 16-bit");
  static_assert(COUNTS != Counts::LOAD || !COUNT, "a pass either counts or loads the counts");
  static_assert(VEC == 1 || !COUNT, "a pass that counts holds one level a lane");
  using Count = std::conditional_t<COUNT, CountT, unsigned>;
  extern __shared__ unsigned shared[];
  const int rows = TILE_SIZE + 2 * max_arm;
  Word<VEC>* prefix = reinterpret_cast<Word<VEC>*>(shared);  // [rows + 1][LANES], mod 2^32
  Word<VEC>* totals = prefix + (rows + 1) * LANES;             // [W][LANES]
  // With COUNT: the first pass's arm widths ([rows + 1][LANES] and [W][LANES]), then the
  // tile's own-axis arms ([TILE_SIZE][LANES], before | after << 8 a level).
  Count* count_prefix = reinterpret_cast<Count*>(totals + W * LANES);
  Count* count_totals = count_prefix + (rows + 1) * LANES;
  unsigned short* tile_arms = reinterpret_cast<unsigned short*>(count_totals + W * LANES);

  const int lane = threadIdx.x % LANES;
  const int warp = threadIdx.x / LANES;
  // Lines x levels is below 2^31 (launch_arm_sum checks the grid): 32-bit division. A lane
  // past the last line reads the last one's cells (every load stays inside the arrays) and
  // writes nothing.
  const int groups = levels / VEC;  // a lane's levels k .. k + VEC - 1
  const int lane_count = (horizontal ? height : width) * groups;
  const int lane_index = static_cast<int>(blockIdx.x) * LANES + lane;
  const bool active = lane_index < lane_count;
  const int line = min(lane_index, lane_count - 1) / groups;  // y of a row sum, x of a column sum
  const int k = (min(lane_index, lane_count - 1) - line * groups) * VEC;
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
  if (warp == 0) prefix[lane] = Word<VEC>{};
  if constexpr (COUNT)
    if (warp == 0) count_prefix[lane] = Count(0);
  // Branch-free body (positions outside the line read the clamped one and store 0), unrolled:
  // ncu had the branchy loop stalled on each load in turn (a third of the samples on the
  // conversion right after the fp16 load). A tile whose halo lies inside the line (every tile
  // but the first and last of a line: block-uniform) needs no clamp, and reads through a
  // pointer that advances by W positions instead of a 64-bit product per load.
  const std::size_t warp_step = static_cast<std::size_t>(W) * stride;
  const auto load_tile = [&](auto interior_tag) {
    constexpr bool INTERIOR = decltype(interior_tag)::value;
    const __half* p = nullptr;
    if constexpr (INTERIOR && !FUSED) p = src + static_cast<std::size_t>(tile_start - max_arm + warp) * stride;
#pragma unroll 4
    for (int i = warp; i < rows; i += W) {
      const int pos = tile_start - max_arm + i;
      const bool inside = INTERIOR ? active : active && pos >= 0 && pos < length;
      const int at = INTERIOR ? pos : min(max(pos, 0), length - 1);
      [[maybe_unused]] const int x = horizontal ? at : line;  // the fused cost's and the count's column
      float v[VEC];
      if constexpr (FUSED) {
        ad_census_costs_at<VEC>(cost, x, horizontal ? line : at, k, v);
      } else if constexpr (INTERIOR) {
        load_levels<VEC>(p, v);
        p += warp_step;
      } else {
        load_levels<VEC>(src + static_cast<std::size_t>(at) * stride, v);
      }
      prefix[(i + 1) * LANES + lane] = fixed_point<VEC>(v, scale, inside);
      if constexpr (COUNT) {
        // The first pass ran along the other axis: its arm width at this position and level;
        // this pass's own arms are kept for the output loop (at the clamped position too, so
        // that every row the output loop reads is defined).
        const CountArms a = count_arms(arms, other_arms, width, line_pixel + at * pos_step, x, x + offset_d, select);
        count_prefix[(i + 1) * LANES + lane] = inside ? Count(a.width) : Count(0);
        const int t = i - max_arm;
        if (t >= 0 && t < TILE_SIZE) tile_arms[t * LANES + lane] = static_cast<unsigned short>(a.own);
      }
    }
  };
  if (tile_start - max_arm >= 0 && tile_start + TILE_SIZE + max_arm <= length)
    load_tile(std::true_type{});
  else
    load_tile(std::false_type{});
  __syncthreads();
  block_scan<W>(prefix, totals, rows, warp, lane);
  if constexpr (COUNT) block_scan<W>(count_prefix, count_totals, rows, warp, lane);

  if (!active) return;
  const float inv_scale = 1.0f / scale;
  const unsigned* prefix_levels = reinterpret_cast<const unsigned*>(prefix);  // [rows + 1][LANES][VEC]
  // A tile that ends inside its line (block-uniform) stores every position: no guard, which
  // the compiler would otherwise turn into a branch around each output's whole computation.
  const auto write_tile = [&](auto interior_tag) {
    constexpr bool INTERIOR = decltype(interior_tag)::value;
    const std::size_t first = base + static_cast<std::size_t>(tile_start + warp) * stride;  // position tile_start + t
    __half* q = out + first;
    [[maybe_unused]] std::uint16_t* cq = COUNTS == Counts::NONE ? nullptr : counts + first;  // the same cell's count
#pragma unroll 3
    for (int t = warp; t < TILE_SIZE; t += W, q += warp_step) {
      const int pos = tile_start + t;
      const int at = INTERIOR ? pos : min(pos, length - 1);  // past the line's end: computed, not stored
      const bool store = INTERIOR || pos < length;
      int before[VEC], after[VEC];
      if constexpr (COUNT) {
        const unsigned own = tile_arms[t * LANES + lane];
        before[0] = int(own & 0xFFu);
        after[0] = int(own >> 8);
      } else {
        const int x = horizontal ? at : line;
        const OwnArms<VEC> o =
            own_arms<VEC>(arms, other_arms, has_other, width, line_pixel + at * pos_step, x, x + offset_d, sign,
                          own_shift, max_arm);
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          before[j] = o.before[j];
          after[j] = o.after[j];
        }
      }
      [[maybe_unused]] unsigned stored_counts = 0u;
      [[maybe_unused]] unsigned loaded_counts = 0u;
      if constexpr (COUNTS == Counts::LOAD) {
        if constexpr (VEC == 1)
          loaded_counts = store ? unsigned(*cq) : 1u;
        else
          loaded_counts = store ? *reinterpret_cast<const unsigned*>(cq) : 0x00010001u;
      }
      float v[VEC];
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        const int hi = (t + max_arm + after[j] + 1) * LANES + lane;
        const int lo = (t + max_arm - before[j]) * LANES + lane;
        // Exact modulo 2^32, and the window's sum is below 2^32 by the choice of scale. The
        // scale is a power of two, so multiplying by its inverse is exact; the count's division
        // is the fast one (2 ulp), below the fp16 rounding of the stored result. ncu had this
        // kernel issue-bound (85 % of the SM's throughput on a vertical pass at 1080p), and an
        // IEEE division is a ~10-instruction subroutine.
        v[j] = float(prefix_levels[hi * VEC + j] - prefix_levels[lo * VEC + j]) * inv_scale;
        if constexpr (COUNT) {
          // The count's window sum, modulo 2^16 like a 16-bit integral (32-bit subtraction, low half).
          const unsigned count = (unsigned(count_prefix[hi]) - unsigned(count_prefix[lo])) & unsigned(CountT(~0u));
          v[j] = divide_by_count(v[j], float(count));
          stored_counts = count;
        } else if constexpr (COUNTS == Counts::LOAD) {
          v[j] = divide_by_count(v[j], float((loaded_counts >> (16 * j)) & 0xFFFFu));
        } else if (region_size != nullptr) {
          v[j] = divide_by_count(v[j], region_size[line_pixel + at * pos_step]);
        }
      }
      if constexpr (COUNTS == Counts::STORE)
        if (store) *cq = static_cast<std::uint16_t>(stored_counts);
      if (store) {
        if constexpr (VEC == 1)
          *q = __float2half_rn(v[0]);
        else
          *reinterpret_cast<__half2*>(q) = __floats2half2_rn(v[0], v[1]);
      }
      if constexpr (COUNTS != Counts::NONE) cq += warp_step;
    }
  };
  if (tile_start + TILE_SIZE <= length)
    write_tile(std::true_type{});
  else
    write_tile(std::false_type{});
}

template <int VEC, int TILE_SIZE>
void launch_tiles(const ArmSumPass& pass, int shared_optin, cudaStream_t stream) {
  const int width = pass.width;
  const int height = pass.height;
  const int levels = pass.levels;
  const CostInputs* cost = pass.cost;
  const ArmSumRegion& region = pass.region;
  const bool horizontal = pass.horizontal;
  const int max_arm = pass.max_arm;
  const std::size_t bytes = shared_bytes(max_arm, region.count_region, TILE_SIZE, VEC);
  require(bytes <= static_cast<std::size_t>(shared_optin), [&] {
    return "adcensus/cuda aggregate_cost: arms up to " + std::to_string(max_arm) + " need " + std::to_string(bytes) +
           " bytes of shared memory per block, the device allows " + std::to_string(shared_optin);
  });
  const long long lanes = static_cast<long long>(horizontal ? height : width) * (levels / VEC);
  const long long blocks_x = (lanes + LANES - 1) / LANES;
  const int blocks_y = div_up(horizontal ? width : height, TILE_SIZE);
  require(lanes <= 0x7FFFFFFF && blocks_y <= 65535, "adcensus/cuda aggregate_cost: volume too large for one grid");
  require_int_pixels(width, height, "adcensus/cuda aggregate_cost");  // pixel indices in int
  const auto launch = [&](auto kernel) {
    if (bytes > 48 * 1024)
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    kernel<<<dim3(unsigned(blocks_x), unsigned(blocks_y)), LANES * warps_for(VEC), bytes, stream>>>(
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
  require(levels % VEC == 0 && (VEC == 1 || (!region.count_region && region.other_arms != nullptr)),
          [&] {
    return "adcensus/cuda aggregate_cost: " + std::to_string(VEC) + " levels a lane with " + std::to_string(levels) +
           " levels, arms up to " + std::to_string(max_arm);
  });
  // One level a lane: one kernel for both axes and regions; two: one a axis, combined region only.
  const auto launch_axis = [&](auto rows, auto columns) {
    if (VEC == 1 || horizontal)
      launch(rows);
    else
      launch(columns);
  };
  constexpr int ROWS = VEC == 1 ? 0 : 1;
  constexpr int COLUMNS = VEC == 1 ? 0 : 2;
  constexpr bool PLAIN_TILE = is_tile(VEC, false, TILE_SIZE);
  constexpr bool COUNT_TILE = is_tile(VEC, true, TILE_SIZE);
  if (cost != nullptr) {
    require(!region.count_region, "adcensus/cuda aggregate_cost: the cost is fused into a first pass only");
    if constexpr (PLAIN_TILE)
      launch_axis(arm_sum_kernel<void, true, TILE_SIZE, Counts::NONE, VEC, ROWS>,
                  arm_sum_kernel<void, true, TILE_SIZE, Counts::NONE, VEC, COLUMNS>);
  } else if (!region.count_region) {
    if constexpr (PLAIN_TILE) {
      if (region.load_counts != nullptr)
        launch_axis(arm_sum_kernel<void, false, TILE_SIZE, Counts::LOAD, VEC, ROWS>,
                    arm_sum_kernel<void, false, TILE_SIZE, Counts::LOAD, VEC, COLUMNS>);
      else
        launch_axis(arm_sum_kernel<void, false, TILE_SIZE, Counts::NONE, VEC, ROWS>,
                    arm_sum_kernel<void, false, TILE_SIZE, Counts::NONE, VEC, COLUMNS>);
    }
  } else if (short_counts(max_arm)) {
    if constexpr (COUNT_TILE) {
      if (region.store_counts != nullptr)
        launch_axis(arm_sum_kernel<unsigned short, false, TILE_SIZE, Counts::STORE, VEC, ROWS>,
                    arm_sum_kernel<unsigned short, false, TILE_SIZE, Counts::STORE, VEC, COLUMNS>);
      else
        launch_axis(arm_sum_kernel<unsigned short, false, TILE_SIZE, Counts::NONE, VEC, ROWS>,
                    arm_sum_kernel<unsigned short, false, TILE_SIZE, Counts::NONE, VEC, COLUMNS>);
    }
  } else if constexpr (COUNT_TILE && VEC == 1) {
    launch(arm_sum_kernel<unsigned, false, TILE_SIZE, Counts::NONE, VEC, 0>);
  }
  require(region.count_region ? COUNT_TILE : PLAIN_TILE, [&] {
    return "adcensus/cuda aggregate_cost: no " + std::string(region.count_region ? "count" : "plain") +
           " pass with tiles of " + std::to_string(TILE_SIZE);
  });
  CUDA_CHECK_LAUNCH();
}

template <int VEC>
void launch_vec(const ArmSumPass& pass, const SharedLimits& limits, cudaStream_t stream) {
  const auto launch = [&](auto tile) { launch_tiles<VEC, decltype(tile)::value>(pass, limits.per_block_optin, stream); };
  static_assert(sizeof(TILES) / sizeof(int) == 5, "a case below for every tile size");
  switch (tile_for(pass.horizontal ? pass.width : pass.height, pass.max_arm, pass.region.count_region, VEC, limits)) {
    case TILES[0]: launch(std::integral_constant<int, TILES[0]>{}); break;
    case TILES[1]: launch(std::integral_constant<int, TILES[1]>{}); break;
    case TILES[2]: launch(std::integral_constant<int, TILES[2]>{}); break;
    case TILES[3]: launch(std::integral_constant<int, TILES[3]>{}); break;
    default: launch(std::integral_constant<int, TILES[4]>{}); break;
  }
}

}  // namespace

int levels_a_lane(const ArmSumPass& pass) {
  return pass.levels % 2 != 0 || pass.region.other_arms == nullptr || pass.region.count_region ? 1 : 2;
}

void launch_arm_sum(const ArmSumPass& pass, cudaStream_t stream) {
  const SharedLimits limits = shared_limits();
  if (levels_a_lane(pass) == 2)
    launch_vec<2>(pass, limits, stream);
  else
    launch_vec<1>(pass, limits, stream);
}

}  // namespace stereo::cu::adcensus
