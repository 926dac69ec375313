#pragma once
/// \file python/cuda_io.h
/// The module's CUDA side: device memory it owns (the out="cuda" map, a DeviceArray exposing
/// `__dlpack__` and `__cuda_array_interface__`; the dense copy of a CUDA-resident input whose
/// layout no image view expresses), the device of a pointer, and the CUDA frame's copy counts
/// for the tests. CUDA-resident inputs themselves go to the matcher as device image views
/// (python/views.h), never through the host. Built with the CUDA backends only (cuda_io.cpp);
/// without them cuda_io_none.cpp says so.

#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>
#include <string>

#include "core/image_view.h"
#include "python/arrays.h"

namespace stereo::python {

/// True when the module was built with the CUDA backends.
bool cuda_built();

/// `bytes` of device memory on CUDA device `ordinal` (cudaMalloc), owned; `what` names it in
/// the out-of-memory error. Made and freed without the GIL.
class DeviceMemory {
 public:
  DeviceMemory(std::size_t bytes, int ordinal, const char* what);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  [[nodiscard]] void* data() const { return data_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  [[nodiscard]] int ordinal() const { return ordinal_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  int ordinal_ = 0;
  bool pooled_ = false;  // from the stream-ordered pool (cudaMallocAsync), else cudaMalloc
};

/// A float32 height x width map in the memory of one CUDA device (dense rows), owned: what
/// compute(..., out="cuda") writes through Matcher::compute_into and returns.
class DeviceArray {
 public:
  DeviceArray(int height, int width, int ordinal)
      : memory_(std::size_t(height) * std::size_t(width) * sizeof(float), ordinal, "the disparity map (out='cuda')"),
        height_(height), width_(width) {}

  /// The view compute_into writes.
  [[nodiscard]] DisparityView view() const {
    return DisparityView::cuda(static_cast<float*>(memory_.data()), width_, height_, 0, memory_.ordinal());
  }
  [[nodiscard]] void* data() const { return memory_.data(); }
  [[nodiscard]] std::size_t bytes() const { return memory_.bytes(); }
  [[nodiscard]] int height() const { return height_; }
  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int ordinal() const { return memory_.ordinal(); }

 private:
  DeviceMemory memory_;
  int height_, width_;
};

/// The CUDA device ordinal whose memory `pointer` is in (`__cuda_array_interface__` names no
/// device); stereo::Error (invalid_argument, naming `what`) where it is no CUDA memory.
int cuda_device_of(const void* pointer, const std::string& what);

/// A dense device copy of CUDA-resident pixels whose layout no view expresses (a column step,
/// a channel stride), device to device, queued on `in.stream` after the producer's work; the
/// view over it names that stream. Positive column and channel steps only (cudaMemcpy2D's).
std::unique_ptr<DeviceMemory> gather_on_device(const Pixels& in, const std::string& what);

/// The CUDA frames' image copies so far (stereo::testing::image_copies: host_to_device,
/// device_to_device), or None without the CUDA backends.
py::object frame_image_copies();

/// Registers stereo.DeviceArray.
void bind_cuda_io(py::module_& m);

}  // namespace stereo::python
