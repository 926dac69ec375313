// rgb2lab8: the guide image of the lab8 reading (reference::rgb2lab8), the CIELab of [17] in
// its 8-bit encoding (L* x 255/100, a* + 128, b* + 128, each rounded).
//
// Why the bytes equal the reference's: the kernel repeats reference::linear_to_lab and
// lab8_unrounded operation by operation in double, each one an explicit round-to-nearest
// intrinsic so that nvcc contracts nothing into an FMA, with the model's sRGB constants
// (methods/esaw/model.h) on the very linear values the reference uses (a 256-entry table the
// host fills with esaw::srgb_to_linear; the 2.4 power is never evaluated here). The one
// operation that may differ is the cube root of CIE's f(t): CUDA's cbrt and libm's are not
// correctly rounded (CUDA: within 1 ulp; libm: a few). Even 16 ulps move
// an unrounded value by < 4e-12, and tests/test_esaw_reference.cpp (NoColourHasAnUnroundedLab8ValueNearARoundingTie)
// checks that no one of the 2^24 colours lies that close to a rounding tie, so the rounded bytes
// agree for every colour, on every GPU.
//
// Runs once per match on the left image (a few microseconds): one thread per pixel, the table in
// shared memory (a divergent index into the kernel's parameters would be serialised).

#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {
namespace {

constexpr int THREADS = 256;

// sRGB's linear light of every 8-bit code, passed by value (2 KB of kernel parameters).
struct SrgbTable {
  double linear[256];
};

SrgbTable srgb_table() {
  SrgbTable table{};
  for (int v = 0; v < 256; ++v) table.linear[v] = stereo::esaw::srgb_to_linear(std::uint8_t(v));
  return table;
}

// CIE 1976's f(t) as reference/esaw.cpp lab_f writes it (the constants fold at compile time, in
// double, as the host compiler folds them).
__device__ __forceinline__ double lab_f(double t) {
  constexpr double delta = stereo::esaw::LAB_DELTA;
  return t > delta * delta * delta ? cbrt(t) : __dadd_rn(__ddiv_rn(t, 3.0 * delta * delta), 4.0 / 29.0);
}

// An unrounded channel of the encoding to its byte: rint rounds ties to even, as the
// reference's nearbyint does in the default rounding mode; then saturated.
__device__ __forceinline__ unsigned char lab8_byte(double v) {
  return static_cast<unsigned char>(fmin(fmax(rint(v), 0.0), 255.0));
}

__global__ void rgb2lab8_kernel(const uchar4* __restrict__ rgba, std::size_t pixels, SrgbTable table,
                                uchar4* __restrict__ lab8) {
  __shared__ double linear[256];
  for (int i = threadIdx.x; i < 256; i += THREADS) linear[i] = table.linear[i];
  __syncthreads();
  const std::size_t i = std::size_t(blockIdx.x) * THREADS + threadIdx.x;
  if (i >= pixels) return;
  const uchar4 p = rgba[i];
  const double r = linear[p.x], g = linear[p.y], b = linear[p.z];
  // reference::linear_to_lab: the sRGB matrix's rows, each summed left to right.
  const double x = __ddiv_rn(
      __dadd_rn(__dadd_rn(__dmul_rn(stereo::esaw::SRGB_XR, r), __dmul_rn(stereo::esaw::SRGB_XG, g)),
                __dmul_rn(stereo::esaw::SRGB_XB, b)),
      stereo::esaw::WHITE_X);
  const double y =
      __dadd_rn(__dadd_rn(__dmul_rn(stereo::esaw::SRGB_YR, r), __dmul_rn(stereo::esaw::SRGB_YG, g)),
                __dmul_rn(stereo::esaw::SRGB_YB, b));
  const double z = __ddiv_rn(
      __dadd_rn(__dadd_rn(__dmul_rn(stereo::esaw::SRGB_ZR, r), __dmul_rn(stereo::esaw::SRGB_ZG, g)),
                __dmul_rn(stereo::esaw::SRGB_ZB, b)),
      stereo::esaw::WHITE_Z);
  const double fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
  const double l_star = __dsub_rn(__dmul_rn(116.0, fy), 16.0);
  const double a_star = __dmul_rn(500.0, __dsub_rn(fx, fy));
  const double b_star = __dmul_rn(200.0, __dsub_rn(fy, fz));
  // reference::lab8_unrounded, then the bytes.
  lab8[i] = make_uchar4(lab8_byte(__dmul_rn(l_star, 255.0 / 100.0)), lab8_byte(__dadd_rn(a_star, 128.0)),
                        lab8_byte(__dadd_rn(b_star, 128.0)), 255);
}

}  // namespace

void rgb2lab8(const DeviceImage<uchar4>& rgba, DeviceImage<uchar4>& lab8, cudaStream_t stream) {
  require(rgba.width == lab8.width && rgba.height == lab8.height, [&] {
    return "esaw/cuda: rgb2lab8: the RGBA image is " + std::to_string(rgba.width) + "x" + std::to_string(rgba.height) +
           ", the lab8 image " + std::to_string(lab8.width) + "x" + std::to_string(lab8.height);
  });
  const std::size_t pixels = rgba.count();
  if (pixels == 0) return;
  require(rgba.get() != lab8.get(), "esaw/cuda: rgb2lab8: the output may not alias the input");
  static const SrgbTable table = srgb_table();  // once per process: 256 pow() calls
  rgb2lab8_kernel<<<blocks_1d(pixels, THREADS, "esaw/cuda rgb2lab8"), THREADS, 0, stream>>>(rgba.get(), pixels, table,
                                                                                          lab8.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
