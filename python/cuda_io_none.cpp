// The module without the CUDA backends: no input can be CUDA-resident here (only a cuda
// backend accepts one, and there is none), so these are reached only by a wrong call.

#include "python/cuda_io.h"

#include "core/error.h"

namespace stereo::python {

bool cuda_built() { return false; }

ImageU8 download_input(const InputImage& /*in*/, InputTransfer& /*transfer*/) {
  throw Error("stereo: this build has no CUDA backends: a CUDA-resident input cannot be read",
              ErrorKind::unavailable);
}

py::object device_result(ImageF&& /*map*/, int /*ordinal*/, InputTransfer& /*transfer*/) {
  throw Error("stereo: this build has no CUDA backends: out='cuda' is not available", ErrorKind::unavailable);
}

void bind_cuda_io(py::module_& /*m*/) {}

}  // namespace stereo::python
