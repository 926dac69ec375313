#pragma once
/// \file include/stereo/image.h
/// Plain row-major host images with interleaved channels.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stereo/error.h"

namespace stereo {

template <class T>
struct Image {
  int width = 0;
  int height = 0;
  int channels = 1;
  std::vector<T> data;

  Image() = default;
  Image(int w, int h, int c = 1, T fill = T{})
      : width(w), height(h), channels(c),
        data(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(c), fill) {}

  [[nodiscard]] bool empty() const { return data.empty(); }
  [[nodiscard]] std::size_t pixel_count() const {
    return static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  }
  [[nodiscard]] std::size_t index(int x, int y, int c = 0) const {
    return (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) *
               static_cast<std::size_t>(channels) +
           static_cast<std::size_t>(c);
  }
  T& at(int x, int y, int c = 0) { return data[index(x, y, c)]; }
  const T& at(int x, int y, int c = 0) const { return data[index(x, y, c)]; }
  T* row(int y) { return data.data() + index(0, y); }
  const T* row(int y) const { return data.data() + index(0, y); }
  [[nodiscard]] bool same_size(int w, int h) const { return width == w && height == h; }
};

using ImageU8 = Image<std::uint8_t>;
using ImageU16 = Image<std::uint16_t>;
using ImageF = Image<float>;

/// Clamp-to-edge read: the border convention every SA-LAP backend shares.
template <class T>
const T& at_clamped(const Image<T>& img, int x, int y, int c = 0) {
  x = x < 0 ? 0 : (x >= img.width ? img.width - 1 : x);
  y = y < 0 ? 0 : (y >= img.height ? img.height - 1 : y);
  return img.at(x, y, c);
}

/// Expands a grey image to RGB (or returns an RGB image unchanged); drops alpha.
ImageU8 to_rgb(const ImageU8& img);

}  // namespace stereo
