// cuda/level_index.h: a map of whole levels as 8- or 16-bit indices, each checked to widen back
// exactly. The host widens an index as range.min + float(index) (DisparityMap::to_float);
// comparing those bits with the map's own (rather than testing for a whole number) also refuses
// -0.0, which would widen to +0.0.

#include <cstdint>
#include <string>

#include "cuda/common.h"
#include "cuda/level_index.h"

namespace stereo::cu {
namespace {

constexpr int THREADS = 256;

template <class Index>
__global__ void level_index_kernel(const float* __restrict__ map, std::size_t count, int min_disparity, int levels,
                                   Index* __restrict__ index, float* __restrict__ copy,
                                   std::uint32_t* __restrict__ not_whole) {
  const std::size_t i = std::size_t(blockIdx.x) * THREADS + threadIdx.x;
  if (i >= count) return;
  const float v = map[i];
  copy[i] = v;
  // NaN fails both comparisons; +-inf and values outside the range fail one.
  const float k = v - float(min_disparity);
  const bool in_range = k >= 0.0f && k < float(levels);
  const int level = in_range ? int(k) : 0;
  index[i] = Index(level);
  const float widened = float(min_disparity) + float(level);
  // Every thread that finds one writes the same 1: no atomic needed.
  if (!in_range || __float_as_uint(widened) != __float_as_uint(v)) *not_whole = 1u;
}

}  // namespace

void level_index(const float* map, std::size_t count, DisparityRange range, int index_bytes, void* index, float* copy,
                 std::uint32_t* not_whole, cudaStream_t stream) {
  require(index_bytes == 1 || index_bytes == 2,
          "cuda level_index: indices of 1 or 2 bytes, not " + std::to_string(index_bytes));
  if (count == 0) return;
  const unsigned blocks = blocks_1d(count, THREADS, "cuda level_index");
  if (index_bytes == 1)
    level_index_kernel<<<blocks, THREADS, 0, stream>>>(map, count, range.min, range.count,
                                                       static_cast<std::uint8_t*>(index), copy, not_whole);
  else
    level_index_kernel<<<blocks, THREADS, 0, stream>>>(map, count, range.min, range.count,
                                                       static_cast<std::uint16_t*>(index), copy, not_whole);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu
