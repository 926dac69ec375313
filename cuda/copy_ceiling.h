#pragma once
/// \file cuda/copy_ceiling.h
/// The device-memory ceiling every CUDA stage is measured against: a large device-to-device
/// copy on the current device, timed with CUDA events.

#include <cuda_runtime.h>

#include <cstddef>

namespace stereo::cu {

/// Bytes read + written per second by cudaMemcpyAsync device-to-device of `bytes` (default
/// 512 MiB, far past the L2), median of `repeat` copies after one warm-up, on `stream`.
/// Measured once per process and size and cached, so a bench sweep pays for it once.
double measure_copy_gb_s(std::size_t bytes = std::size_t(512) << 20, int repeat = 9, cudaStream_t stream = nullptr);

}  // namespace stereo::cu
