// Stage 5: scanline optimisation (Sec. 2.3, eq. 4-5). The four paths of eq. 4 are
// scanline_paths.cu's (the comment there says how a lane group walks a scanline); here a
// second kernel takes their mean (eq. 5) in the reference's order and, when asked, the winner
// of that fp32 mean (the fused WTA, which saves re-reading C2).

#include <cuda_fp16.h>

#include <cfloat>
#include <cstdint>
#include <string>
#include <type_traits>

#include "methods/adcensus/cuda/scanline_paths.cuh"
#include "methods/adcensus/cuda/stages.h"
#include "methods/adcensus/cuda/warp_argmin.cuh"

namespace stereo::cu::adcensus {
namespace {

constexpr int COMBINE_WARPS = 8;  // pixels per block

// VEC consecutive levels a lane (one 2 VEC-byte load per path; VEC divides the level count, so
// every load is aligned), GROUP lanes a pixel (32 / GROUP pixels a warp, so that few levels do
// not leave most lanes idle: Teddy's 60 are 15 lanes of 4): a group covers GROUP x VEC levels a
// round, and each lane's levels ascend, so its strict `<` keeps the smallest level on a tie, as
// group_argmin does across lanes.
template <int VEC, int GROUP>
__global__ void __launch_bounds__(WARP * COMBINE_WARPS)
    combine_kernel(Paths paths, std::size_t pixels, int levels, int min_d, __half* __restrict__ out,  // may be null
                   float* __restrict__ disparity) {
  using Word = typename LaneWords<VEC>::Word;
  static_assert(VEC <= 8 && sizeof(Word) == VEC * sizeof(__half), "one word a lane's levels");
  const std::size_t first_pixel =
      (static_cast<std::size_t>(blockIdx.x) * COMBINE_WARPS + threadIdx.x / WARP) * (WARP / GROUP);
  if (first_pixel >= pixels) return;  // the whole warp leaves together
  // A group past the last pixel reads the last one again (every lane takes part in the
  // reduction) and stores nothing.
  const std::size_t group_pixel = first_pixel + threadIdx.x % WARP / GROUP;
  const bool stores = group_pixel < pixels;
  const std::size_t pixel = stores ? group_pixel : pixels - 1;
  const int lane = static_cast<int>(threadIdx.x) % GROUP;
  float best = FLT_MAX;
  int best_k = levels;
  for (int k0 = lane * VEC; k0 < levels; k0 += GROUP * VEC) {
    const std::size_t word = (pixel * levels + k0) / VEC;
    alignas(sizeof(Word)) __half lr[VEC], rl[VEC], tb[VEC], bt[VEC], mean[VEC];
    *reinterpret_cast<Word*>(lr) = reinterpret_cast<const Word*>(paths.direction[0])[word];
    *reinterpret_cast<Word*>(rl) = reinterpret_cast<const Word*>(paths.direction[1])[word];
    *reinterpret_cast<Word*>(tb) = reinterpret_cast<const Word*>(paths.direction[2])[word];
    *reinterpret_cast<Word*>(bt) = reinterpret_cast<const Word*>(paths.direction[3])[word];
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      // The reference's order: 0 + lr + rl + tb + bt, then x 0.25 (eq. 5).
      float s = __half2float(lr[j]);
      s += __half2float(rl[j]);
      s += __half2float(tb[j]);
      s += __half2float(bt[j]);
      s *= 0.25f;
      mean[j] = __float2half_rn(s);
      if (s < best) {
        best = s;
        best_k = k0 + j;
      }
    }
    if (stores && out != nullptr) reinterpret_cast<Word*>(out)[word] = *reinterpret_cast<const Word*>(mean);
  }
  if (disparity == nullptr) return;
  const int k = group_argmin<GROUP>(best, best_k);
  if (stores && lane == 0) disparity[pixel] = float(min_d + (k < levels ? k : 0));
}

bool same_shape(const DeviceVolume& a, const DeviceVolume& b) {
  return a.width == b.width && a.height == b.height && a.range.min == b.range.min && a.range.count == b.range.count;
}

// Paths, then the mean (stored when `out` is given) and the WTA (when `disparity` is given).
void paths_and_mean(const DeviceVolume& cost, const RgbPair& rgb, const AdCensusParams& params, bool right_view,
                    PathVolumes& paths, DeviceVolume* out, DeviceImage<float>* disparity, cudaStream_t stream) {
  const int levels = cost.range.count;
  require(levels >= 1 && levels <= MAX_LEVELS, [&] {
    return "adcensus/cuda scanline_optimize: " + std::to_string(levels) + " levels; this kernel holds 1.." +
           std::to_string(MAX_LEVELS);
  });
  require(rgb.left.width == cost.width && rgb.left.height == cost.height && rgb.right.width == cost.width &&
              rgb.right.height == cost.height,
          "adcensus/cuda scanline_optimize: images must have the volume's size");
  require(same_shape(paths.lr, cost) && same_shape(paths.rl, cost) && same_shape(paths.tb, cost) &&
              same_shape(paths.bt, cost),
          "adcensus/cuda scanline_optimize: path volumes must have the cost's shape");
  if (out != nullptr) {
    require(same_shape(*out, cost), "adcensus/cuda scanline_optimize: the output must have the cost's shape");
    require(out->get() != paths.lr.get() && out->get() != paths.rl.get() && out->get() != paths.tb.get() &&
                out->get() != paths.bt.get(),
            "adcensus/cuda scanline_optimize: the output may not be a path volume");
  }
  if (disparity != nullptr)
    require(disparity->width == cost.width && disparity->height == cost.height,
            "adcensus/cuda scanline_optimize: disparity map size differs");
  scanline_paths(cost, rgb, params, right_view, paths, stream);
  const Paths p = path_pointers(paths);

  const std::size_t pixels = static_cast<std::size_t>(cost.width) * static_cast<std::size_t>(cost.height);
  __half* const mean = out != nullptr ? reinterpret_cast<__half*>(out->get()) : nullptr;
  float* const winner = disparity != nullptr ? disparity->get() : nullptr;
  // The narrowest group of 8, 16 or 32 lanes that covers the levels in one round.
  const auto combine = [&](auto vec) {
    constexpr int VEC = decltype(vec)::value;
    const int lanes = div_up(levels, VEC);
    const auto launch = [&](auto kernel, int group) {
      const std::size_t per_block = static_cast<std::size_t>(COMBINE_WARPS) * static_cast<std::size_t>(WARP / group);
      const std::size_t blocks = (pixels + per_block - 1) / per_block;
      kernel<<<static_cast<unsigned>(blocks), WARP * COMBINE_WARPS, 0, stream>>>(p, pixels, levels, cost.range.min,
                                                                                 mean, winner);
    };
    if (lanes <= 8) launch(combine_kernel<VEC, 8>, 8);
    else if (lanes <= 16) launch(combine_kernel<VEC, 16>, 16);
    else launch(combine_kernel<VEC, WARP>, WARP);
  };
  if (levels % 8 == 0) combine(std::integral_constant<int, 8>{});
  else if (levels % 4 == 0) combine(std::integral_constant<int, 4>{});
  else if (levels % 2 == 0) combine(std::integral_constant<int, 2>{});
  else combine(std::integral_constant<int, 1>{});
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void scanline_optimize(const DeviceVolume& cost, const RgbPair& rgb, const AdCensusParams& params, bool right_view,
                       PathVolumes& paths, DeviceVolume& out, DeviceImage<float>* disparity, cudaStream_t stream) {
  paths_and_mean(cost, rgb, params, right_view, paths, &out, disparity, stream);
}

void scanline_disparity(const DeviceVolume& cost, const RgbPair& rgb, const AdCensusParams& params, bool right_view,
                        PathVolumes& paths, DeviceImage<float>& disparity, cudaStream_t stream) {
  paths_and_mean(cost, rgb, params, right_view, paths, nullptr, &disparity, stream);
}

}  // namespace stereo::cu::adcensus
