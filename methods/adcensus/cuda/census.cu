// Stage 1: the images every later stage reads. pack_rgb turns interleaved bytes into one
// 32-bit word per pixel (one load instead of three unaligned ones); grey_image and
// census_transform follow reference/adcensus.h bit for bit (integer arithmetic only).

#include "cuda/shared/grey.cuh"
#include "methods/adcensus/cuda/stages.h"
#include "methods/adcensus/model.h"

namespace stereo::cu::adcensus {
namespace {

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;
constexpr int CENSUS_RX = stereo::adcensus::CENSUS_HALF_WIDTH;   // 9 wide (model.h, Sec. 2.1)
constexpr int CENSUS_RY = stereo::adcensus::CENSUS_HALF_HEIGHT;  // 7 high

__global__ void pack_kernel(const std::uint8_t* __restrict__ pixels, int width, int height, int channels,
                            uchar4* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const std::size_t i = static_cast<std::size_t>(y) * width + x;
  const std::uint8_t* p = pixels + i * channels;
  // Grey is replicated: the BT.601 weights sum to 256, so grey_image returns it unchanged and
  // the AD and colour distances of a replicated grey equal those of the grey value.
  out[i] = channels == 1 ? make_uchar4(p[0], p[0], p[0], 0) : make_uchar4(p[0], p[1], p[2], 0);
}

__global__ void grey_kernel(const uchar4* __restrict__ rgb, int width, int height, std::uint8_t* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const std::size_t i = static_cast<std::size_t>(y) * width + x;
  const uchar4 p = rgb[i];
  out[i] = static_cast<std::uint8_t>(bt601_luma(p.x, p.y, p.z));
}

__global__ void census_kernel(const std::uint8_t* __restrict__ grey, int width, int height,
                              std::uint64_t* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const std::uint8_t centre = grey[static_cast<std::size_t>(y) * width + x];
  std::uint64_t code = 0;
  int bit = 0;
  for (int dy = -CENSUS_RY; dy <= CENSUS_RY; ++dy) {
    const int yy = min(max(y + dy, 0), height - 1);
    const std::uint8_t* row = grey + static_cast<std::size_t>(yy) * width;
    for (int dx = -CENSUS_RX; dx <= CENSUS_RX; ++dx) {
      if (dx == 0 && dy == 0) continue;
      const int xx = min(max(x + dx, 0), width - 1);
      if (row[xx] < centre) code |= std::uint64_t(1) << bit;
      ++bit;
    }
  }
  out[static_cast<std::size_t>(y) * width + x] = code;
}

dim3 grid_for(int width, int height) {
  return dim3(unsigned(div_up(width, BLOCK_X)), unsigned(div_up(height, BLOCK_Y)));
}

}  // namespace

void pack_rgb(const std::uint8_t* d_pixels, int width, int height, int channels, DeviceImage<uchar4>& out,
              cudaStream_t stream) {
  require(channels == 1 || channels == 3 || channels == 4, [&] {
    return "adcensus/cuda pack_rgb: images must have 1, 3 or 4 channels, got " + std::to_string(channels);
  });
  require(out.width == width && out.height == height, "adcensus/cuda pack_rgb: output size differs");
  pack_kernel<<<grid_for(width, height), dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(d_pixels, width, height, channels,
                                                                              out.get());
  CUDA_CHECK_LAUNCH();
}

void grey_image(const DeviceImage<uchar4>& rgb, DeviceImage<std::uint8_t>& out, cudaStream_t stream) {
  require(out.width == rgb.width && out.height == rgb.height, "adcensus/cuda grey_image: output size differs");
  grey_kernel<<<grid_for(rgb.width, rgb.height), dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(rgb.get(), rgb.width,
                                                                                      rgb.height, out.get());
  CUDA_CHECK_LAUNCH();
}

void census_transform(const DeviceImage<std::uint8_t>& grey, DeviceImage<std::uint64_t>& out, cudaStream_t stream) {
  require(out.width == grey.width && out.height == grey.height,
          "adcensus/cuda census_transform: output size differs");
  census_kernel<<<grid_for(grey.width, grey.height), dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(grey.get(), grey.width,
                                                                                          grey.height, out.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::adcensus
