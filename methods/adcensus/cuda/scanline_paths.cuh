#pragma once
// What the two kernels of the scanline stage share (Sec. 2.3, eq. 4-5): the path volumes'
// pointers and the lane's levels as whole words. The paths (eq. 4) are scanline_paths.cu's,
// their mean (eq. 5) and the fused WTA scanline.cu's; stages.h declares the stage.

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {

constexpr int WARP = 32;

struct Paths {
  __half* direction[4];  // left-right, right-left, top-bottom, bottom-top
};

// The four path volumes' cells as the kernels read and write them.
inline Paths path_pointers(PathVolumes& paths) {
  return Paths{{reinterpret_cast<__half*>(paths.lr.get()), reinterpret_cast<__half*>(paths.rl.get()),
                reinterpret_cast<__half*>(paths.tb.get()), reinterpret_cast<__half*>(paths.bt.get())}};
}

// The lane's V levels as whole words: one word for V <= 8 (2 V bytes), V / 8 16-byte words above.
template <int V>
struct LaneWords {
  using Word = std::conditional_t<
      (V >= 8), uint4,
      std::conditional_t<V == 4, uint2, std::conditional_t<V == 2, unsigned, unsigned short>>>;
};
// How many words hold a lane's V levels (the path kernel's V >= 2).
template <int V>
constexpr int lane_word_count = V * int(sizeof(__half)) / int(sizeof(typename LaneWords<V>::Word));

// The other image's tau_SO edge bits into paths.edges (sized on first use), then eq. 4 along
// the four directions into the path volumes, on `stream`. The caller has checked the shapes.
void scanline_paths(const DeviceVolume& cost, const RgbPair& rgb, const AdCensusParams& params, bool right_view,
                    PathVolumes& paths, cudaStream_t stream);

}  // namespace stereo::cu::adcensus
