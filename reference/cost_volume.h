#pragma once
/// \file reference/cost_volume.h
/// The CPU references' cost volumes: a value per pixel and disparity level, disparity fastest,
/// as the CUDA volumes of AD-Census, the cross-based method and ESAW/ESMP are laid out, so a
/// reference stage and its kernel index their volumes the same way. CostVolume holds floats;
/// the cross-based reference keeps its integer costs in Volume<std::uint16_t / uint32_t>.

#include <cstddef>
#include <vector>

#include "core/disparity_range.h"

namespace stereo::reference {

/// A value per pixel and disparity, disparity fastest: at(x, y, k) is disparity range.min + k.
template <class T>
struct Volume {
  int width = 0;
  int height = 0;
  DisparityRange range;
  std::vector<T> data;  ///< index (y * width + x) * range.count + k

  Volume() = default;
  Volume(int w, int h, DisparityRange r, T fill = T{})
      : width(w), height(h), range(r),
        data(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(r.count), fill) {}
  [[nodiscard]] std::size_t index(int x, int y, int k) const {
    return (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) *
               static_cast<std::size_t>(range.count) +
           static_cast<std::size_t>(k);
  }
  T& at(int x, int y, int k) { return data[index(x, y, k)]; }
  [[nodiscard]] const T& at(int x, int y, int k) const { return data[index(x, y, k)]; }
};

/// The float cost volume of AD-Census and ESAW/ESMP.
using CostVolume = Volume<float>;

}  // namespace stereo::reference
