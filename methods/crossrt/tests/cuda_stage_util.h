#pragma once
// The crossrt CUDA stage tests' conversions between the reference's integer volumes and the
// stages' device volumes (the CUDA library sees no reference type).

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/common.h"
#include "methods/crossrt/cuda/stages.h"
#include "methods/crossrt/reference/crossrt.h"

namespace stereo::cuda_test::crossrt {

/// A reference volume (disparity fastest, as the device's) on the device, synchronously.
inline cu::crossrt::DeviceVolume16 upload_volume(const reference::crossrt::Volume<std::uint16_t>& volume) {
  cu::crossrt::DeviceVolume16 d(volume.width, volume.height, volume.range, "crossrt/cuda test", "a test volume");
  cu::copy_to_device(d.get(), volume.data.data(), volume.data.size() * sizeof(std::uint16_t));
  return d;
}

/// A device volume back as a reference volume, synchronously.
inline reference::crossrt::Volume<std::uint16_t> download_volume(const cu::crossrt::DeviceVolume16& volume) {
  reference::crossrt::Volume<std::uint16_t> h(volume.width, volume.height, volume.range);
  CUDA_CHECK(cudaMemcpy(h.data.data(), volume.get(), h.data.size() * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace stereo::cuda_test::crossrt
