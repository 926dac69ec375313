#pragma once
/// \file cuda/nvml_energy.h
/// The GPU board's energy counter, read through NVML (the NVIDIA Management Library, part of
/// the driver). NVML is loaded at run time (dlopen of libnvidia-ml.so.1): its header is not a
/// build dependency, and the program starts on machines without the driver (CI), where the
/// reading says why it has no value.

#include <string>

#include "core/matcher.h"

namespace stereo::cu {

/// The total energy counter of CUDA device `ordinal` (nvmlDeviceGetTotalEnergyConsumption:
/// millijoules the whole board used since the driver loaded, Volta and newer), the device
/// found in NVML by its PCI bus id (cudaDeviceGetPCIBusId). No value where NVML is missing,
/// fails to initialise, does not know the device or the device has no counter; `unavailable`
/// then says which ("no NVML (libnvidia-ml.so.1 not found)", "NVML: ... Not Supported").
/// The counter advances in steps (every few tens of milliseconds), so a difference of two
/// readings is meaningful over a window of a second or more. NVML is loaded and initialised
/// once per process, shut down at exit. Thread-safe.
EnergyReading read_energy_mj(int ordinal);

/// Why NVML loaded from `library` cannot be used (dlopen, its entry points, nvmlInit_v2), or
/// empty where it can: what read_energy_mj says before it asks about a device (it loads
/// "libnvidia-ml.so.1"). Loads, initialises and shuts down an instance of its own.
std::string nvml_unavailable(const std::string& library);

}  // namespace stereo::cu
