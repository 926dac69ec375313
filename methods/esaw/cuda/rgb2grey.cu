// rgb2grey (Sec. IV's first kernel): RGBA for the weights and the integer luma eq. 3 reads.

#include "cuda/shared/grey.cuh"
#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {
namespace {

constexpr int THREADS = 256;

__global__ void rgb2grey_kernel(const std::uint8_t* raw, int channels, std::size_t pixels, uchar4* rgba,
                                std::uint8_t* grey) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const std::uint8_t* p = raw + i * std::size_t(channels);
  const int r = p[0], g = channels == 1 ? p[0] : p[1], b = channels == 1 ? p[0] : p[2];
  rgba[i] = make_uchar4(std::uint8_t(r), std::uint8_t(g), std::uint8_t(b), 255);
  // A grey input is its own luma: (77 + 150 + 29) v + 128 >> 8 = v as well.
  grey[i] = channels == 1 ? p[0] : std::uint8_t(bt601_luma(r, g, b));
}

}  // namespace

void rgb2grey(const std::uint8_t* raw, int channels, DeviceImage<uchar4>& rgba, DeviceImage<std::uint8_t>& grey,
              cudaStream_t stream) {
  require(channels == 1 || channels == 3 || channels == 4,
          [&] { return "esaw/cuda: rgb2grey needs 1, 3 or 4 channels, got " + std::to_string(channels); });
  require(rgba.width == grey.width && rgba.height == grey.height, "esaw/cuda: rgb2grey: output sizes differ");
  const std::size_t pixels = grey.count();
  rgb2grey_kernel<<<blocks_1d(pixels, THREADS, "esaw/cuda rgb2grey"), THREADS, 0, stream>>>(raw, channels, pixels,
                                                                                           rgba.get(), grey.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
