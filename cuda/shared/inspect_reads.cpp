#include "cuda/shared/inspect_reads.h"

#include <cmath>

namespace stereo::cu {

std::vector<std::uint16_t> volume_level_u16(const std::uint16_t* d_volume, int width, int height, int levels,
                                            int level, int ordinal) {
  const DeviceScope scope(ordinal);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> out(std::size_t(width) * std::size_t(height));
  CUDA_CHECK(cudaMemcpy2D(out.data(), sizeof(std::uint16_t), d_volume + level, std::size_t(levels) * sizeof(std::uint16_t),
                          sizeof(std::uint16_t), out.size(), cudaMemcpyDeviceToHost));
  return out;
}

float half_bits_to_float(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (exponent == 0) return sign * std::ldexp(float(mantissa), -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(mantissa | 0x400), exponent - 25);
}

}  // namespace stereo::cu
