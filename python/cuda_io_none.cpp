// The module without the CUDA backends: no matcher reads CUDA memory here, so these are
// reached only by a CUDA-resident input or out='cuda', and say why they cannot be served.

#include "python/cuda_io.h"

#include "core/error.h"

namespace stereo::python {
namespace {
[[noreturn]] void no_cuda(const std::string& what) {
  throw Error("stereo: this build has no CUDA backends: " + what, ErrorKind::unavailable);
}
}  // namespace

bool cuda_built() { return false; }

DeviceMemory::DeviceMemory(std::size_t /*bytes*/, int /*ordinal*/, const char* what) {
  no_cuda(std::string(what) + " cannot be allocated");
}

DeviceMemory::~DeviceMemory() = default;

int cuda_device_of(const void* /*pointer*/, const std::string& what) {
  no_cuda(what + " is a CUDA array (__cuda_array_interface__), which it cannot read");
}

std::unique_ptr<DeviceMemory> gather_on_device(const Pixels& /*in*/, const std::string& what) {
  no_cuda(what + " is a CUDA array, which it cannot read");
}

py::object frame_image_copies() { return py::none(); }

void bind_cuda_io(py::module_& /*m*/) {}

}  // namespace stereo::python
