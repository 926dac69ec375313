// The right view's volume from the left view's (reference::right_view_from_left): right(x, y, d)
// = left(x + d, y, d) where x + d lies inside the image, else out_of_image_cost.
//
// Why it holds after aggregation, not only for the cost: over the combined region the right
// view's region at (x, d) is the left view's at (x + d, d) (both take at every pixel the shorter
// of the two views' arms at the pair it matches), and no matched cell's region holds an
// unmatched one (pd's arms stop at the other image's border); unmatched cells keep
// out_of_image_cost in both views. The GPU's window sums are integer sums of the same
// fixed-point values, so the skewed left volume equals the right view's own aggregation bit for
// bit (tests/test_cuda_adcensus_stages.cpp), and the matcher aggregates one view instead of two.
//
// The read is a skew: for one right pixel the levels sit D + 1 cells apart in the left volume.
// A block takes one row, TILE right pixels and LANES x VEC levels (VEC = 2 where the level
// count is even: 32-bit loads and stores of two levels a lane): it loads the TILE + LANES x VEC
// - 1 left pixels those need (LANES x VEC levels each, contiguous) into shared memory, then
// writes each right pixel's levels contiguously. One read and one write of the volume in all.

#include <cuda_fp16.h>

#include <string>
#include <type_traits>

#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {
namespace {

constexpr int LANES = 32;
constexpr int WARPS = 8;
constexpr int TILE = 64;  // right pixels a block

// A lane's VEC levels of one pixel as loaded and stored.
template <int VEC>
using Levels = std::conditional_t<VEC == 1, __half, __half2>;

template <int VEC>
__global__ void __launch_bounds__(LANES * WARPS)
    right_view_kernel(const __half* __restrict__ left, int width, int levels, int min_d, __half out_of_image,
                      __half* __restrict__ right) {
  constexpr int SPAN = TILE + LANES * VEC - 1;  // left pixels a block reads
  // Row j: left pixel first + j, levels k0 .. k0 + LANES x VEC - 1 (lane l's at column l: every
  // access of a warp conflict-free).
  __shared__ Levels<VEC> tile[SPAN][LANES];
  const int lane = threadIdx.x % LANES;
  const int warp = threadIdx.x / LANES;
  const int y = static_cast<int>(blockIdx.z);
  const int k0 = static_cast<int>(blockIdx.y) * LANES * VEC;
  const int x0 = static_cast<int>(blockIdx.x) * TILE;
  const int k = k0 + lane * VEC;  // the lane's first level (levels is a multiple of VEC)
  const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(width);
  // Left pixel x0 + min_d + k0 + j holds level k0 + i of right pixel x0 + j - i.
  const int first = x0 + min_d + k0;
  for (int j = warp; j < SPAN; j += WARPS) {
    const int xl = first + j;
    if (k < levels && xl >= 0 && xl < width)
      tile[j][lane] =
          *reinterpret_cast<const Levels<VEC>*>(left + (row + static_cast<std::size_t>(xl)) * levels + k);
  }
  __syncthreads();
  if (k >= levels) return;
  for (int t = warp; t < TILE; t += WARPS) {
    const int x = x0 + t;
    if (x >= width) break;
    __half v[VEC];
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const int xl = x + min_d + k + i;
      const Levels<VEC> held = tile[t + lane * VEC + i][lane];
      if constexpr (VEC == 1)
        v[i] = xl >= 0 && xl < width ? held : out_of_image;
      else
        v[i] = xl >= 0 && xl < width ? (i == 0 ? __low2half(held) : __high2half(held)) : out_of_image;
    }
    Levels<VEC>* to = reinterpret_cast<Levels<VEC>*>(right + (row + static_cast<std::size_t>(x)) * levels + k);
    if constexpr (VEC == 1)
      *to = v[0];
    else
      *to = __halves2half2(v[0], v[1]);
  }
}

template <int VEC>
void launch_right_view(const DeviceVolume& left, float out_of_image_cost, DeviceVolume& right, cudaStream_t stream) {
  const unsigned tiles = static_cast<unsigned>(div_up(left.width, TILE));
  const unsigned groups = static_cast<unsigned>(div_up(left.range.count, LANES * VEC));
  require(left.height <= 65535 && groups <= 65535, [&] {
    return "adcensus/cuda right_view_from_left: " + std::to_string(left.height) + " rows or " +
           std::to_string(left.range.count) + " levels exceed one grid";
  });
  right_view_kernel<VEC><<<dim3(tiles, groups, static_cast<unsigned>(left.height)), LANES * WARPS, 0, stream>>>(
      reinterpret_cast<const __half*>(left.get()), left.width, left.range.count, left.range.min,
      __float2half_rn(out_of_image_cost), reinterpret_cast<__half*>(right.get()));
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void right_view_from_left(const DeviceVolume& left, float out_of_image_cost, DeviceVolume& right,
                          cudaStream_t stream) {
  require(right.width == left.width && right.height == left.height && right.range.min == left.range.min &&
              right.range.count == left.range.count,
          "adcensus/cuda right_view_from_left: both volumes must have one size and range");
  require(right.get() != left.get(), "adcensus/cuda right_view_from_left: the right volume may not alias the left");
  if (left.count() == 0) return;
  if (left.range.count % 2 == 0)
    launch_right_view<2>(left, out_of_image_cost, right, stream);
  else
    launch_right_view<1>(left, out_of_image_cost, right, stream);
}

}  // namespace stereo::cu::adcensus
