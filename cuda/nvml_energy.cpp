// The GPU energy counter through NVML, loaded with dlopen (cuda/nvml_energy.h).
//
// The few entry points used are declared here from the NVML API reference
// (https://docs.nvidia.com/deploy/nvml-api/: "Initialization and Cleanup" nvmlInit_v2 and
// nvmlShutdown, "Error reporting" nvmlErrorString, "Device Queries"
// nvmlDeviceGetHandleByPciBusId_v2 and nvmlDeviceGetTotalEnergyConsumption), with the types
// as nvml.h gives them: nvmlReturn_t is an enum whose NVML_SUCCESS is 0, nvmlDevice_t an opaque
// pointer, the energy an unsigned long long in millijoules.

#include "cuda/nvml_energy.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <optional>
#include <type_traits>

namespace stereo::cu {
namespace {

using NvmlReturn = int;       // nvmlReturn_t
using NvmlDevice = void*;     // nvmlDevice_t (struct nvmlDevice_st*)
constexpr NvmlReturn NVML_SUCCESS = 0;
constexpr const char* NVML_LIBRARY = "libnvidia-ml.so.1";  // the driver's soname (no -dev link)

struct Nvml {
  void* library = nullptr;
  std::string unavailable;  // why none of it works, or empty
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*total_energy)(NvmlDevice, unsigned long long*) = nullptr;
  std::mutex mutex;
  std::map<int, std::optional<NvmlDevice>> devices;  // by CUDA ordinal; empty: not in NVML
  std::map<int, std::string> device_errors;

  explicit Nvml(const char* soname) {
    library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      unavailable = std::string("no NVML (") + soname + " not found)";
      return;
    }
    const auto bind = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
      if (fn == nullptr && unavailable.empty()) unavailable = std::string("NVML: the library has no ") + name;
    };
    bind(init, "nvmlInit_v2");
    bind(shutdown, "nvmlShutdown");
    bind(error_string, "nvmlErrorString");
    bind(handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
    bind(total_energy, "nvmlDeviceGetTotalEnergyConsumption");
    if (!unavailable.empty()) return;
    if (const NvmlReturn r = init(); r != NVML_SUCCESS) {
      unavailable = "NVML: nvmlInit_v2: " + text(r);
      init = nullptr;  // not initialised: no shutdown
    }
  }
  ~Nvml() {
    if (library == nullptr) return;
    if (init != nullptr && unavailable.empty()) (void)shutdown();
    dlclose(library);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  [[nodiscard]] std::string text(NvmlReturn r) const {
    const char* s = error_string != nullptr ? error_string(r) : nullptr;
    return s != nullptr ? std::string(s) : "error " + std::to_string(r);
  }

  /// The NVML handle of CUDA device `ordinal`, matched by PCI bus id (NVML's order need not be
  /// CUDA's, which CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER change); null with the reason.
  NvmlDevice device(int ordinal, std::string& why) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = devices.find(ordinal);
    if (it == devices.end()) {
      char bus_id[32] = {};
      std::optional<NvmlDevice> found;
      NvmlDevice handle = nullptr;
      if (const cudaError_t e = cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal); e != cudaSuccess) {
        device_errors[ordinal] = std::string("cudaDeviceGetPCIBusId: ") + cudaGetErrorString(e);
      } else if (const NvmlReturn r = handle_by_pci_bus_id(bus_id, &handle); r != NVML_SUCCESS) {
        device_errors[ordinal] = "NVML: nvmlDeviceGetHandleByPciBusId_v2(" + std::string(bus_id) + "): " + text(r);
      } else {
        found = handle;
      }
      it = devices.emplace(ordinal, found).first;
    }
    if (!it->second) why = device_errors[ordinal];
    return it->second.value_or(nullptr);
  }
};

Nvml& nvml() {
  static Nvml instance(NVML_LIBRARY);  // loaded and initialised on first use, shut down at exit
  return instance;
}

}  // namespace

EnergyReading read_energy_mj(int ordinal) {
  Nvml& n = nvml();
  if (!n.unavailable.empty()) return {std::nullopt, n.unavailable};
  std::string why;
  NvmlDevice device = n.device(ordinal, why);
  if (device == nullptr) return {std::nullopt, why};
  unsigned long long mj = 0;
  if (const NvmlReturn r = n.total_energy(device, &mj); r != NVML_SUCCESS)
    return {std::nullopt, "NVML: nvmlDeviceGetTotalEnergyConsumption: " + n.text(r)};
  return {double(mj), {}};
}

std::string nvml_unavailable(const std::string& library) { return Nvml(library.c_str()).unavailable; }

}  // namespace stereo::cu
