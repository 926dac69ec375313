#pragma once
/// \file cuda/shared/inspect_reads.h
/// The device -> host copies of the CUDA pass inspectors (core/inspect.h, methods/*/cuda/
/// *_inspect.*): a whole image, or one level of a disparity-fastest volume, each after the
/// device has finished the run, widened to float without changing a value.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <string>

#include "core/disparity_range.h"
#include "core/image.h"
#include "core/inspect.h"
#include "cuda/common.h"

namespace stereo::cu {

/// The elements of `image` on the host, after every queued launch on device `ordinal`.
template <class T>
std::vector<T> host_copy(const DeviceImage<T>& image, int ordinal) {
  const DeviceScope scope(ordinal);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> out(image.count());
  CUDA_CHECK(cudaMemcpy(out.data(), image.get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

/// A one-component image (uint8, uint16, float, ...) as a one-channel float image.
template <class T>
ImageF host_image(const DeviceImage<T>& image, int ordinal) {
  const std::vector<T> cells = host_copy(image, ordinal);
  ImageF out(image.width, image.height, 1);
  for (std::size_t i = 0; i < cells.size(); ++i) out.data[i] = static_cast<float>(cells[i]);
  return out;
}

/// Level `level` of a disparity-fastest volume of 16-bit cells (`levels` per pixel, width x
/// height pixels): one strided 2D copy.
std::vector<std::uint16_t> volume_level_u16(const std::uint16_t* d_volume, int width, int height, int levels,
                                            int level, int ordinal);

/// The layout of a device image shown as one slice (not per disparity).
PassLayout image_layout(std::string name, std::string what, std::string storage, int width, int height,
                        int channels = 1);
/// The layout of a volume shown one disparity level per slice over `range`.
PassLayout level_layout(std::string name, std::string what, std::string storage, int width, int height,
                        DisparityRange range);

/// IEEE binary16 bits as float (exact: every half is a float).
float half_bits_to_float(std::uint16_t bits);

}  // namespace stereo::cu
