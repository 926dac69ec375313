#pragma once
/// \file reference/cost_volume.h
/// The CPU references' cost volume: a float cost per pixel and disparity level, disparity
/// fastest, as the CUDA volumes of AD-Census and ESAW/ESMP are laid out, so a reference stage
/// and its kernel index their volumes the same way.

#include <cstddef>
#include <vector>

#include "host/disparity_range.h"

namespace stereo::reference {

/// A cost per pixel and disparity, disparity fastest: at(x, y, k) is disparity range.min + k.
struct CostVolume {
  int width = 0;
  int height = 0;
  DisparityRange range;
  std::vector<float> data;  ///< index (y * width + x) * range.count + k

  CostVolume() = default;
  CostVolume(int w, int h, DisparityRange r, float fill = 0.0f)
      : width(w), height(h), range(r),
        data(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(r.count), fill) {}
  [[nodiscard]] std::size_t index(int x, int y, int k) const {
    return (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) *
               static_cast<std::size_t>(range.count) +
           static_cast<std::size_t>(k);
  }
  float& at(int x, int y, int k) { return data[index(x, y, k)]; }
  [[nodiscard]] const float& at(int x, int y, int k) const { return data[index(x, y, k)]; }
};

}  // namespace stereo::reference
