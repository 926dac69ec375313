#pragma once
// Shared by the image-view tests of every backend (test_image_view.cpp, test_gl_views.cpp,
// test_cuda_views.cpp): an image copied into rows with a pitch whose padding holds bytes that
// must never be read, and the check that a matcher gives on views exactly the maps it gives on
// ImageU8s.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/image.h"
#include "core/image_view.h"
#include "core/matcher.h"

namespace stereo::test {

/// `image`'s rows `pad` bytes apart beyond their width (libSGM's tests: 631x479 at pitch 640),
/// the padding filled with `fill`: a backend that reads it makes another map.
struct PitchedImage {
  std::vector<std::uint8_t> bytes;
  ImageView view;

  PitchedImage(const ImageU8& image, std::size_t pad, std::uint8_t fill = 0xA5) {
    const std::size_t row = std::size_t(image.width) * std::size_t(image.channels), pitch = row + pad;
    bytes.assign(pitch * std::size_t(image.height), fill);
    for (int y = 0; y < image.height; ++y) std::memcpy(bytes.data() + std::size_t(y) * pitch, image.row(y), row);
    view = ImageView(bytes.data(), image.width, image.height, image.channels, pitch);
  }
};

/// A host float map of width x height with `pad` bytes (a multiple of 4) after each row, all
/// set to NaN first: the rows must be written, the padding must stay NaN.
struct PitchedMap {
  std::vector<float> floats;
  DisparityView view;

  PitchedMap(int width, int height, std::size_t pad_floats) {
    const std::size_t pitch = std::size_t(width) + pad_floats;
    floats.assign(pitch * std::size_t(height), std::numeric_limits<float>::quiet_NaN());
    view = DisparityView(floats.data(), width, height, pitch * sizeof(float));
  }
  [[nodiscard]] ImageF dense() const {
    ImageF out(view.width, view.height, 1);
    for (int y = 0; y < view.height; ++y) std::memcpy(out.row(y), view.row(y), view.row_bytes());
    return out;
  }
  [[nodiscard]] bool padding_untouched() const {
    const std::size_t pitch = view.pitch / sizeof(float);
    for (int y = 0; y < view.height; ++y)
      for (std::size_t x = std::size_t(view.width); x < pitch; ++x)
        if (floats[std::size_t(y) * pitch + x] == floats[std::size_t(y) * pitch + x]) return false;  // not NaN
    return true;
  }
};

/// Pixels whose disparities differ (exact comparison, +inf == +inf); -1 for another size.
inline long differing_pixels(const ImageF& a, const ImageF& b) {
  if (a.width != b.width || a.height != b.height || a.data.size() != b.data.size()) return -1;
  long n = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) n += a.data[i] != b.data[i] ? 1 : 0;
  return n;
}

/// compute() on views with a pitch, compute_compact() on them and compute_into() a pitched
/// host map all give `matcher`'s ImageU8 map, bit for bit.
inline void expect_views_match_images(Matcher& matcher, const ImageU8& left, const ImageU8& right,
                                      DisparityRange range) {
  const ImageF expected = matcher.compute(left, right, range).disparity;
  const PitchedImage l(left, 7), r(right, 13, 0x3C);
  EXPECT_EQ(differing_pixels(matcher.compute(l.view, r.view, range).disparity, expected), 0)
      << matcher.component() << ": compute on views with a pitch";
  EXPECT_EQ(differing_pixels(matcher.compute_compact(l.view, r.view, range).to_float(), expected), 0)
      << matcher.component() << ": compute_compact on views";
  EXPECT_EQ(differing_pixels(matcher.compute(ImageView(left), ImageView(right), range).disparity, expected), 0)
      << matcher.component() << ": compute on dense views";
  PitchedMap out(left.width, left.height, 5);
  const Timing t = matcher.compute_into(l.view, r.view, range, out.view);
  EXPECT_EQ(differing_pixels(out.dense(), expected), 0) << matcher.component() << ": compute_into a pitched map";
  EXPECT_TRUE(out.padding_untouched()) << matcher.component() << ": compute_into wrote past a row's width";
  EXPECT_GT(t.total_ms(), 0.0) << matcher.component() << ": compute_into returned no timing";
}

}  // namespace stereo::test
