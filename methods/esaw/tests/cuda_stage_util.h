#pragma once
// The ESAW/ESMP CUDA stage tests' conversions between the reference's cost volumes (disparity
// fastest) and the stages' fp16 planes (the CUDA library sees no reference type; it converts
// host floats in the planes' layout, methods/esaw/cuda/memory.cu).

#include <cstddef>
#include <string>
#include <vector>

#include "core/error.h"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/reference/esaw.h"

namespace stereo::cuda_test::esaw {

/// Index of (x, y, k) in the planes' layout.
inline std::size_t plane_index(int width, int height, int x, int y, int k) {
  return (std::size_t(k) * std::size_t(height) + std::size_t(y)) * std::size_t(width) + std::size_t(x);
}

/// A reference volume whose values are all half values, as planes on the device; synchronous.
inline cu::esaw::DeviceVolume upload_volume(const reference::CostVolume& volume) {
  std::vector<float> planes(volume.data.size());
  for (int y = 0; y < volume.height; ++y)
    for (int x = 0; x < volume.width; ++x)
      for (int k = 0; k < volume.range.count; ++k)
        planes[plane_index(volume.width, volume.height, x, y, k)] = volume.at(x, y, k);
  return cu::esaw::upload_volume(volume.width, volume.height, volume.range.count, planes);
}

/// Planes back into a reference volume over `range` (range.count == volume.planes); synchronous.
inline reference::CostVolume download_volume(const cu::esaw::DeviceVolume& volume, DisparityRange range) {
  require(range.count == volume.planes, "esaw/cuda test: download_volume: range has " + std::to_string(range.count) +
                                            " levels, the volume " + std::to_string(volume.planes) + " planes");
  const std::vector<float> planes = cu::esaw::download_cells(volume);
  reference::CostVolume out(volume.width, volume.height, range);
  for (int y = 0; y < volume.height; ++y)
    for (int x = 0; x < volume.width; ++x)
      for (int k = 0; k < volume.planes; ++k)
        out.at(x, y, k) = planes[plane_index(volume.width, volume.height, x, y, k)];
  return out;
}

}  // namespace stereo::cuda_test::esaw
