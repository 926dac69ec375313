// Post (Table II): the bilateral estimation of Sec. III-E (the 3x3 median before it is
// cu::median_3x3 of cuda/shared). One thread per pixel scans its row for the closest GCP on
// each side, as the paper's thread_x does (Sec. IV-G); the GCP mask and the map are read from
// L1. The linear case is the reference's double D(x-i) j + D(x+j) i (exact products, so no FMA
// contraction can change it) over i + j, rounded once to float, so fractional maps
// (CrossRtParams::subpixel) give the reference's float too.

#include <string>

#include "methods/crossrt/cuda/stages.h"

namespace stereo::cu::crossrt {
namespace {

constexpr int BLOCK_X = 128;

__global__ void bilateral_fill_kernel(const float* __restrict__ disparity, const std::uint8_t* __restrict__ mask,
                                      const std::uint8_t* __restrict__ grey, int width, int t,
                                      float* __restrict__ out) {
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  if (x >= width) return;
  const std::size_t row = std::size_t(blockIdx.y) * std::size_t(width);
  float value = disparity[row + x];
  if (!mask[row + x]) {
    int left = x - 1;
    while (left >= 0 && !mask[row + left]) --left;
    int right = x + 1;
    while (right < width && !mask[row + right]) ++right;
    const bool has_left = left >= 0;
    const bool has_right = right < width;
    if (has_left && has_right) {
      const float dl = disparity[row + left];
      const float dr = disparity[row + right];
      const int i = x - left;
      const int j = right - x;
      if (fabsf(__fsub_rn(dl, dr)) <= float(t)) {
        const double weighted = __dadd_rn(__dmul_rn(double(dl), double(j)), __dmul_rn(double(dr), double(i)));
        value = __double2float_rn(__ddiv_rn(weighted, double(i + j)));
      } else {
        const int centre = grey[row + x];
        const int bl = abs(int(grey[row + left]) - centre);
        const int br = abs(int(grey[row + right]) - centre);
        value = bl < br ? dl : br < bl ? dr : fminf(dl, dr);
      }
    } else if (has_left || has_right) {
      value = disparity[row + (has_left ? left : right)];
    }
  }
  out[row + x] = value;
}

}  // namespace

void bilateral_fill(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& gcp_mask,
                    const DeviceImage<std::uint8_t>& grey, int t, DeviceImage<float>& out, cudaStream_t stream) {
  const int w = disparity.width;
  const int h = disparity.height;
  require(gcp_mask.width == w && gcp_mask.height == h && grey.width == w && grey.height == h && out.width == w &&
              out.height == h,
          "crossrt/cuda: bilateral_fill needs a map, its GCP mask, its grey image and an output of one size");
  require(out.get() != disparity.get(), "crossrt/cuda: bilateral_fill cannot work in place");
  bilateral_fill_kernel<<<dim3(unsigned(div_up(w, BLOCK_X)), unsigned(h)), BLOCK_X, 0, stream>>>(
      disparity.get(), gcp_mask.get(), grey.get(), w, t, out.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::crossrt
