// SU (Table II): Sec. IV-H. One thread per full-size pixel: an even row is the bilateral
// estimate along x between its two half-size samples; an odd row is the mean of the x
// estimates above and below, recomputed rather than read back so the stage is one kernel.
// The float operations are the reference's, in its order (a + b, 2a, 0.5 (p + q), the clamp to
// the range); none can be contracted into a fused multiply-add.

#include <string>

#include "methods/crossrt/cuda/stages.h"

namespace stereo::cu::crossrt {
namespace {

constexpr int BLOCK_X = 128;

__device__ float along_x(const float* __restrict__ half, int half_width, const std::uint8_t* __restrict__ grey,
                         int width, int fx, int fy, int t, float lo, float hi) {
  const int x = fx / 2;
  const float* row = half + std::size_t(fy / 2) * std::size_t(half_width);
  const float a = row[x];
  if (fx % 2 == 0 || x + 1 >= half_width) return fminf(fmaxf(__fmul_rn(2.0f, a), lo), hi);
  const float b = row[x + 1];
  if (fabsf(__fsub_rn(a, b)) <= float(t)) return fminf(fmaxf(__fadd_rn(a, b), lo), hi);
  const std::uint8_t* g = grey + std::size_t(fy) * std::size_t(width);
  const int centre = g[fx];
  const int ba = abs(int(g[fx - 1]) - centre);
  const int bb = abs(int(g[fx + 1]) - centre);
  return fminf(fmaxf(__fmul_rn(2.0f, ba < bb ? a : bb < ba ? b : fminf(a, b)), lo), hi);
}

// The kernel's sizes and thresholds: the half-size map's width, the full size, the fill's t and
// the full-size range's ends [lo, hi] the x pass clamps to.
struct ScaleUpShape {
  int half_width;
  int width;
  int height;
  int t;
  float lo;
  float hi;
};

__global__ void scale_up_kernel(const float* __restrict__ half, const std::uint8_t* __restrict__ grey, ScaleUpShape s,
                                float* __restrict__ out) {
  const int half_width = s.half_width, width = s.width, height = s.height, t = s.t;
  const float lo = s.lo, hi = s.hi;
  const int fx = blockIdx.x * BLOCK_X + threadIdx.x;
  const int fy = blockIdx.y;
  if (fx >= width) return;
  float v;
  if (fy % 2 == 0) {
    v = along_x(half, half_width, grey, width, fx, fy, t, lo, hi);
  } else if (fy + 1 < height) {
    v = __fmul_rn(0.5f, __fadd_rn(along_x(half, half_width, grey, width, fx, fy - 1, t, lo, hi),
                                  along_x(half, half_width, grey, width, fx, fy + 1, t, lo, hi)));
  } else {
    v = along_x(half, half_width, grey, width, fx, fy - 1, t, lo, hi);
  }
  out[std::size_t(fy) * std::size_t(width) + std::size_t(fx)] = v;
}

}  // namespace

void scale_up(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& grey_full, int t,
              DisparityRange range, DeviceImage<float>& out, cudaStream_t stream) {
  const int w = grey_full.width;
  const int h = grey_full.height;
  require(disparity.width == (w + 1) / 2 && disparity.height == (h + 1) / 2, [&] {
    return "crossrt/cuda: scale_up needs a map of ceil(W/2) x ceil(H/2) for a " + std::to_string(w) + "x" +
           std::to_string(h) + " grey image, got " + std::to_string(disparity.width) + "x" +
           std::to_string(disparity.height);
  });
  require(out.width == w && out.height == h, "crossrt/cuda: scale_up output must have the grey image's size");
  scale_up_kernel<<<dim3(unsigned(div_up(w, BLOCK_X)), unsigned(h)), BLOCK_X, 0, stream>>>(
      disparity.get(), grey_full.get(), ScaleUpShape{disparity.width, w, h, t, float(range.min), float(range.max())},
      out.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::crossrt
