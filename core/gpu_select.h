#pragma once
/// \file core/gpu_select.h
/// Which GPU this process runs on. One place for every backend: the CLI's global `--device N`
/// sets the STEREO_DEVICE environment variable before any matcher exists, and the CUDA
/// matchers (cudaSetDevice) and the GL context (the EGL device of the same physical GPU)
/// read it back through requested_gpu().

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace stereo {

/// The environment variable that carries the GPU ordinal.
inline constexpr const char* GPU_ENV = "STEREO_DEVICE";

/// The GPU ordinal STEREO_DEVICE asks for, or nothing when it is unset or empty. It is a CUDA
/// device ordinal: CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER apply, so it matches
/// nvidia-smi's numbering only with CUDA_DEVICE_ORDER=PCI_BUS_ID. The GL side finds the same
/// physical GPU by UUID. Throws stereo::Error when it is set
/// to anything but a non-negative decimal integer ("STEREO_DEVICE=abc is not a GPU ordinal").
std::optional<int> requested_gpu();

/// Parses `text` as requested_gpu() parses the variable (exposed for tests).
std::optional<int> parse_gpu_ordinal(const std::string& text);

/// A GPU's 16-byte UUID as nvidia-smi -L prints it: "GPU-" + 8-4-4-4-12 lower-case hex digits.
/// One format for every backend (cudaDeviceProp::uuid, EGL_DEVICE_UUID_EXT), so that results
/// from CUDA and GL runs name the same GPU with the same string.
std::string format_gpu_uuid(const std::array<std::uint8_t, 16>& bytes);

/// Sets STEREO_DEVICE to `ordinal` for this process (the CLI's --device); throws stereo::Error
/// when the ordinal is negative.
void request_gpu(int ordinal);

}  // namespace stereo
