// The fused kernel's host-side plan: which tile fits the GPU's shared memory, and how the
// disparity range is cut into chunks (grid z). Shapes from fused_shape.h, the kernel's own.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>

#include "methods/salap/cuda/fused_shape.h"
#include "methods/salap/cuda/stages.h"

namespace stereo::cu::salap {
namespace {

using namespace fused;

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

}  // namespace stereo::cu::salap
