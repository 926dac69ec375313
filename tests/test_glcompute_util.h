#pragma once
// Helpers of the glcompute tests.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>

#include "gl/context.h"
#include "host/image.h"

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

/// Channel `c` of a multi-channel image as a one-channel image.
inline ImageF channel(const ImageF& img, int c) {
  ImageF out(img.width, img.height, 1);
  for (std::size_t i = 0; i < out.data.size(); ++i) out.data[i] = img.data[i * std::size_t(img.channels) + std::size_t(c)];
  return out;
}

}  // namespace stereo::test
