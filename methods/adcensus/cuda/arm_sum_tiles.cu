// The arm-sum pass's launch configuration (arm_sum.h): the tile along the sum's axis, the
// shared memory a block of that tile holds, and the scale of the fixed-point integral.

#include <string>

#include "methods/adcensus/cuda/arm_sum.h"

namespace stereo::cu::adcensus {
namespace {

// Instructions of one line's pass, in units of ~40, by ncu's counts per position and pass (~80
// a loaded position, ~43 a computed one).
int tile_cost(int length, int tile, int max_arm) { return div_up(length, tile) * (2 * (tile + 2 * max_arm) + tile); }

// The largest cost eq. 2 gives (AdCensusParams::validate keeps out_of_image_cost within it).
constexpr double MAX_COST = 2.0;

}  // namespace

bool short_counts(int max_arm) { return (2 * max_arm + 1) * (2 * max_arm + 1) < 65536; }

std::size_t shared_bytes(int max_arm, bool count_region, int tile, int vec) {
  const std::size_t rows = static_cast<std::size_t>(tile + 2 * max_arm);
  const std::size_t cells = static_cast<std::size_t>(LANES) * static_cast<std::size_t>(vec);  // a row's
  const std::size_t integral_rows = rows + 1 + static_cast<std::size_t>(warps_for(vec));
  std::size_t bytes = integral_rows * cells * sizeof(unsigned);
  if (count_region) {
    const std::size_t count_size = short_counts(max_arm) ? sizeof(unsigned short) : sizeof(unsigned);
    bytes += integral_rows * cells * count_size + static_cast<std::size_t>(tile) * cells * sizeof(unsigned short);
  }
  return bytes;
}

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
// sizes that keep enough blocks resident. One level a lane, measured on the H100
// (methods/adcensus/cuda/NOTES.md, rounds 7 and 8), L1 = 34:
// - A count pass holds two integrals (44 KB a block at 120): five blocks per SM at 96 and 120,
//   four at 128, whose lost fifth measured 0.6 % slower at 1920 columns where it saves 1.7 % of
//   the instructions; so 128 only where it saves at least 5 % (Teddy's 375 rows: three tiles
//   of 128, 582 positions loaded and 384 computed, instead of four of 120, 744 and 480).
// - The other passes hold one (24 KB at 120): eight blocks up to 128, six at 192 (34 KB), five
//   at 240. 192 at 1920 x 1080 saves 10 % and 4 % of the instructions and measured 42.2 ->
//   40.3 ms; 240 (five blocks) saves more on paper and measured 42.1. So the fewest
//   instructions among the sizes that leave six blocks (48 warps) per SM.
// Two levels a lane (passes without a count column only): blocks of 16 warps and twice the
// shared memory a tile, so three blocks (48 warps) per SM, at tiles up to 192.
int tile_for(int length, int max_arm, bool count_pass, int vec, const SharedLimits& limits) {
  if (count_pass) {
    const int plain = tile_cost(length, 96, max_arm) < tile_cost(length, 120, max_arm) ? 96 : 120;
    return 20 * tile_cost(length, 128, max_arm) <= 19 * tile_cost(length, plain, max_arm) ? 128 : plain;
  }
  const int resident = vec == 1 ? 6 : 3;
  int best = 0;
  for (const int t : TILES) {
    if (!is_tile(vec, count_pass, t)) continue;
    const std::size_t per_block =
        shared_bytes(max_arm, count_pass, t, vec) + static_cast<std::size_t>(limits.reserved_per_block);
    const bool enough = static_cast<std::size_t>(resident) * per_block <= static_cast<std::size_t>(limits.per_sm);
    if (best == 0 || (enough && tile_cost(length, t, max_arm) < tile_cost(length, best, max_arm))) best = t;
  }
  return best;
}

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

}  // namespace stereo::cu::adcensus
