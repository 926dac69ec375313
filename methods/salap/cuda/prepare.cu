// Stage 0: one 32-bit word per pixel, so every later read of I_R(x-d) is a single aligned
// load. rgb: bytes R,G,B,0 — __vsadu4 of two such words is |dR|+|dG|+|dB| exactly (the 4th
// byte is 0 in both). grey: the byte alone. luma: the float bits of 0.299R+0.587G+0.114B,
// computed once here in float (the reference computes it in double per read; the
// difference is below 1e-5 intensity levels, far under any cost difference that matters).

#include "methods/salap/cuda/stages.h"

namespace stereo::cu::salap {
namespace {

constexpr int PACK_THREADS = 256;

// 64-bit pixel index: a frame may hold more than 2^31 pixels (and its bytes more than 2^32).
__global__ void pack_kernel(const std::uint8_t* __restrict__ src, std::size_t pixels, int channels, PixelCode code,
                            std::uint32_t* __restrict__ dst) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const std::uint8_t* p = src + i * static_cast<std::size_t>(channels);
  std::uint32_t word = 0;
  if (channels == 1) {
    word = code == PixelCode::luma ? __float_as_uint(float(p[0])) : std::uint32_t(p[0]);
  } else if (code == PixelCode::luma) {
    word = __float_as_uint(0.299f * float(p[0]) + 0.587f * float(p[1]) + 0.114f * float(p[2]));
  } else {
    word = std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16);
  }
  dst[i] = word;
}

}  // namespace

PixelCode pixel_code(const SalapParams& params, int channels) {
  if (channels == 1) return PixelCode::grey;
  return params.cost == "luma" ? PixelCode::luma : PixelCode::rgb;
}

void pack_pair(const RawPair& raw, PixelCode code, std::uint32_t* d_left_packed, std::uint32_t* d_right_packed,
               cudaStream_t stream) {
  const int channels = raw.channels;
  require(channels == 1 || channels == 3 || channels == 4,
          [&] { return "salap/cuda: images must have 1, 3 or 4 channels, got " + std::to_string(channels); });
  require(channels == 1 ? code == PixelCode::grey : code != PixelCode::grey,
          "salap/cuda: pixel code does not match the channel count");
  const std::size_t pixels = static_cast<std::size_t>(raw.width) * static_cast<std::size_t>(raw.height);
  const dim3 grid(blocks_1d(pixels, PACK_THREADS, "salap/cuda pack_pair"));
  pack_kernel<<<grid, PACK_THREADS, 0, stream>>>(raw.left, pixels, channels, code, d_left_packed);
  CUDA_CHECK_LAUNCH();
  pack_kernel<<<grid, PACK_THREADS, 0, stream>>>(raw.right, pixels, channels, code, d_right_packed);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::salap
