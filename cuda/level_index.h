#pragma once
/// \file cuda/level_index.h
/// The compact read-back of a sequence slot (cuda/frame_stream.h): a device map of whole levels
/// as 8- or 16-bit level indices, each checked to widen back to the map's own bits.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/disparity_range.h"

namespace stereo::cu {

/// index[i] = map[i] - range.min in `index_bytes` (1 or 2) bytes and copy[i] = map[i] for the
/// `count` values of a device map; sets *not_whole (to 1, never back to 0) where range.min +
/// index[i] is not bit for bit map[i] (a fraction, +inf, NaN, -0, out of range). On `stream`.
void level_index(const float* map, std::size_t count, DisparityRange range, int index_bytes, void* index, float* copy,
                 std::uint32_t* not_whole, cudaStream_t stream);

}  // namespace stereo::cu
