#pragma once
/// \file python/cuda_io.h
/// The module's CUDA side: CUDA-resident inputs (DLPack tensors of PyTorch, CuPy, ...) and
/// results kept in CUDA memory (`compute(..., out="cuda")`, a DeviceArray exposing `__dlpack__`
/// and `__cuda_array_interface__`). Built with the CUDA backends only (cuda_io.cpp); without
/// them cuda_io_none.cpp says so.
///
/// What is connected today and what is not: the matchers take host images (Matcher::compute on
/// ImageU8), so a CUDA-resident input is copied to the host here (cudaMemcpy2D, counted in
/// InputTransfer::device_to_host_bytes) and the frame uploads it again, and an out="cuda" map is
/// uploaded from the host map the frame read back. Once the CUDA frame takes device-resident
/// images and writes its map to device memory, download_input() and device_result() give way
/// to that entry and both counts drop to zero.

#include <pybind11/pybind11.h>

#include <cstddef>

#include "core/image.h"
#include "python/arrays.h"

namespace stereo::python {

/// What the binding itself moved for one compute() call (not what the backend's frame does).
struct InputTransfer {
  std::size_t host_copy_bytes = 0;       ///< host bytes copied to make dense images
  std::size_t device_to_host_bytes = 0;  ///< CUDA-resident input bytes brought to the host
  std::size_t host_to_device_bytes = 0;  ///< result bytes put into CUDA memory for out="cuda"
};

/// True when the module was built with the CUDA backends.
bool cuda_built();

/// The dense host image of a CUDA-resident input (a device-to-host copy on the legacy default
/// stream, so it follows the producer's work that `__dlpack__(stream=1)` ordered there).
ImageU8 download_input(const InputImage& in, InputTransfer& transfer);

/// `map` as a DeviceArray in the memory of CUDA device `ordinal`.
py::object device_result(ImageF&& map, int ordinal, InputTransfer& transfer);

/// Registers stereo.DeviceArray.
void bind_cuda_io(py::module_& m);

}  // namespace stereo::python
