#pragma once
// The AD-Census CUDA stage tests' conversions between the reference's float cost volumes and
// the stages' fp16 device volumes (the CUDA library sees no reference type; it converts host
// floats, methods/adcensus/cuda/memory.cu).

#include "methods/adcensus/cuda/stages.h"
#include "methods/adcensus/reference/adcensus.h"

namespace stereo::cuda_test::adcensus {

/// A reference volume on the device, each value rounded to fp16 (nearest even); synchronous.
inline cu::adcensus::DeviceVolume upload_volume(const reference::CostVolume& volume) {
  return cu::adcensus::upload_volume(volume.width, volume.height, volume.range, volume.data);
}

/// A device volume back as a reference volume (fp16 -> float, exact); synchronous.
inline reference::CostVolume download_volume(const cu::adcensus::DeviceVolume& volume) {
  reference::CostVolume out(volume.width, volume.height, volume.range);
  out.data = cu::adcensus::download_cells(volume);
  return out;
}

/// The same values rounded to fp16 and back: what a volume holds after upload_volume.
inline reference::CostVolume round_to_half(const reference::CostVolume& volume) {
  reference::CostVolume out(volume.width, volume.height, volume.range);
  out.data = cu::adcensus::round_to_half(volume.data);
  return out;
}

}  // namespace stereo::cuda_test::adcensus
