#pragma once
// Helpers shared by the test files: textured random pairs with a known shift.

#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "core/error.h"
#include "core/image.h"

namespace stereo::test {

/// Smooth-ish random RGB texture (random values, box-blurred once) so matching is well posed.
inline ImageU8 random_texture(int width, int height, unsigned seed, int channels = 3) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(0, 255);
  ImageU8 raw(width, height, channels);
  for (auto& v : raw.data) v = static_cast<std::uint8_t>(u(rng));
  ImageU8 out(width, height, channels);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        int sum = 0;
        for (int dx = -1; dx <= 1; ++dx) sum += at_clamped(raw, x + dx, y, c);
        out.at(x, y, c) = static_cast<std::uint8_t>(sum / 3);
      }
  return out;
}

/// Right view of a fronto-parallel plane at disparity d: right(x) = left(x + d).
inline ImageU8 shifted(const ImageU8& left, int d) {
  ImageU8 right(left.width, left.height, left.channels);
  for (int y = 0; y < left.height; ++y)
    for (int x = 0; x < left.width; ++x)
      for (int c = 0; c < left.channels; ++c) right.at(x, y, c) = at_clamped(left, x + d, y, c);
  return right;
}

/// The message of the stereo::Error `f` throws, or "" when it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace stereo::test
