#pragma once
// Helpers of the GL tests (gl and glcompute backends).

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>

#include "gl/context.h"
#include "core/image.h"

/// Skips the test, with the reason, when no OpenGL 4.5 context (and so no compute shaders)
/// can be made here.
#define STEREO_REQUIRE_GL45()                                                       \
  do {                                                                              \
    if (const auto why = ::stereo::gl::context_unavailable()) GTEST_SKIP() << *why; \
  } while (false)

namespace stereo::test {

/// Largest |a - b| over all samples, and the share of samples equal bit for bit.
struct Difference {
  double max_abs = 0.0;
  double identical = 1.0;
};

inline Difference difference(const ImageF& a, const ImageF& b) {
  Difference d;
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    d.max_abs = std::max(d.max_abs, double(std::abs(a.data[i] - b.data[i])));
    same += a.data[i] == b.data[i];
  }
  d.identical = a.data.empty() ? 1.0 : double(same) / double(a.data.size());
  return d;
}

/// The same on the 8-bit grid: values compared as round(v * 255), so the last-bit differences
/// between GL's k / 255 and reference::quantize8's round(v * 255) / 255 do not count;
/// max_abs is in grid steps.
inline Difference grid_difference(const ImageF& a, const ImageF& b) {
  Difference d;
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    const long ka = std::lround(double(a.data[i]) * 255.0), kb = std::lround(double(b.data[i]) * 255.0);
    d.max_abs = std::max(d.max_abs, double(std::labs(ka - kb)));
    same += ka == kb;
  }
  d.identical = a.data.empty() ? 1.0 : double(same) / double(a.data.size());
  return d;
}

/// Channel `c` of a multi-channel image as a one-channel image.
inline ImageF channel(const ImageF& img, int c) {
  ImageF out(img.width, img.height, 1);
  for (std::size_t i = 0; i < out.data.size(); ++i) out.data[i] = img.data[i * std::size_t(img.channels) + std::size_t(c)];
  return out;
}

}  // namespace stereo::test
