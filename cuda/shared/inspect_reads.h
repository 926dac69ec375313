#pragma once
/// \file cuda/shared/inspect_reads.h
/// The device -> host copies of the CUDA pass inspectors (core/inspect.h, methods/*/cuda/
/// *_inspect.*): a whole image, or one level of a disparity-fastest volume, each after the
/// device has finished the run, widened to float without changing a value.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/image.h"
#include "core/pass_table.h"  // image_layout, level_layout: what the inspectors add with these copies
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

/// IEEE binary16 bits as float (exact: every half is a float).
float half_bits_to_float(std::uint16_t bits);

}  // namespace stereo::cu
