#pragma once
// The arm-sum pass of the cross-based aggregation (Sec. 2.2): one 1D arm sum over a volume, a
// tiled fixed-point integral along the sum's axis (arm_sum.cu), with its launch configuration
// (tile size, shared memory, fixed-point scale: arm_sum_tiles.cu). Internal to the aggregation
// stage (aggregate.cu, which chains two passes to an iteration); stages.h declares the stages.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {

struct CostInputs;  // cost_device.cuh: the fused first pass's cost

constexpr int LANES = 32;
// A lane holds VEC consecutive levels (1, or 2 where the level count is even: levels_a_lane);
// a block of 32 lanes takes 8 warps with one level a lane, 16 with two, whose integral rows
// are twice as wide: the same warps per SM at the same tile.
constexpr int warps_for(int vec) { return vec == 1 ? 8 : 16; }
// Positions written per block (a tile; the halo of max_arm on either side is re-read from L2
// by the neighbours), a compile-time constant of the kernel (its unrolled output loop: a tile
// size known only at run time measured 53.1 -> 56.6 ms at 1080p). tile_for picks one per pass
// and axis among those is_tile allows (see there). 120 divides 1920 and 1080. A count pass
// holds one level a lane (levels_a_lane).
constexpr int TILES[] = {96, 120, 128, 160, 192};
constexpr bool is_tile(int vec, bool count_pass, int tile) {
  if (count_pass) return vec == 1 && (tile == 96 || tile == 120 || tile == 128);
  return tile >= 96;
}

// The region's pixel count is an unsigned window sum like the cost's, of first-pass arm widths
// (each <= 2 max_arm + 1): 16 bits hold every count, and wrap-around prefixes subtract exactly,
// while (2 max_arm + 1)^2 < 2^16, that is up to max_arm = 127 (L1 = 34 gives 33); 32 bits above.
bool short_counts(int max_arm);

// Shared memory of one block with `vec` levels a lane: the cost integral [rows + 1][LANES][vec]
// and its run totals; with count_region also the count integral and its totals, and the tile's
// own-axis arms (2 bytes a cell, read back by the output loop instead of gathering both views'
// arms again).
std::size_t shared_bytes(int max_arm, bool count_region, int tile, int vec);

// The current device's shared-memory limits, queried once per pass.
struct SharedLimits {
  int per_block_optin = 0;     // the most one block may use
  int per_sm = 0;              // all of an SM's
  int reserved_per_block = 0;  // what the system takes per resident block
};

// The current device's shared-memory limits, queried once per pass.
SharedLimits shared_limits();

// The tile of one pass along a line of `length` with `vec` levels a lane: the fewest
// instructions among the sizes that keep enough blocks resident (arm_sum_tiles.cu says how the
// choice was measured).
int tile_for(int length, int max_arm, bool count_pass, int vec, const SharedLimits& limits);

// Largest power of two s with (window values) x (largest value) x s < 2^31, where a value is
// at most a full arm sum of costs (the second pass of an iteration reads unnormalised sums).
float fixed_point_scale(int max_arm);

// The region a pass sums over: `other_arms` (nullptr: p's own region) combines the arms with pd's, pd = p + sign * d;
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

// One arm-sum pass over a width x height x levels volume (fp16 bits, disparity fastest): from
// `in`, or from the cost computed while loading when `cost` is given (the fused first pass of
// iteration 1), into `out`, along rows when `horizontal`, else along columns; every arm of
// `arms` (packed adcensus::Arm bytes) clipped to max_arm.
struct ArmSumPass {
  int width = 0;
  int height = 0;
  int levels = 0;
  const std::uint16_t* in = nullptr;
  const CostInputs* cost = nullptr;
  std::uint16_t* out = nullptr;
  const uchar4* arms = nullptr;
  ArmSumRegion region;
  bool horizontal = true;
  int max_arm = 0;
};

struct ArmSumPass;
// The levels a lane of `pass` holds: 2 where the level count is even in a pass over the
// combined region that does not count (its integral words and arm reads shared by the two
// levels), else 1 (a count pass at two levels a lane measured slower: NOTES.md).
int levels_a_lane(const ArmSumPass& pass);

// Checks the pass's preconditions, picks its tile (tile_for) and launches it on `stream`.
void launch_arm_sum(const ArmSumPass& pass, cudaStream_t stream);

}  // namespace stereo::cu::adcensus
