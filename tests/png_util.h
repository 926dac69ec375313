#pragma once
// Writing PNGs of any colour type for the loaders' tests (libpng's simplified API), beside
// app/image_io.h's writer, which only writes what the suite itself produces.

#include <gtest/gtest.h>
#include <png.h>

#include <filesystem>

namespace stereo::test {

/// Writes a w x h PNG of `format` from `pixels` (`colormap` with `colormap_entries` for the
/// palette formats); a failed write fails the test with libpng's message.
inline void write_png_as(const std::filesystem::path& path, int w, int h, png_uint_32 format, const void* pixels,
                         const void* colormap = nullptr, int colormap_entries = 0) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = png_uint_32(w);
  image.height = png_uint_32(h);
  image.format = format;
  image.colormap_entries = png_uint_32(colormap_entries);
  ASSERT_TRUE(png_image_write_to_file(&image, path.c_str(), 0, pixels, 0, colormap)) << image.message;
}

}  // namespace stereo::test
