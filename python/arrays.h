#pragma once
/// \file python/arrays.h
/// Arrays in and out of the module: an input image as the caller gave it (a NumPy array, any
/// object with `__dlpack__` or `__cuda_array_interface__`, or anything numpy.asarray takes),
/// read where it lies (python/views.h makes the image view); the disparity map and images
/// handed back as NumPy arrays that own the C++ buffers (no copy); and JSON values as Python
/// objects.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/image.h"

namespace stereo::python {
namespace py = pybind11;

/// Where an input's pixels live.
enum class Residence { host, cuda };

/// 8-bit pixels, height x width x channels, with byte strides as given (a row pitch, a column
/// step, even negative steps), and where they are: what is read without the GIL.
struct Pixels {
  const std::uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 1;
  std::ptrdiff_t row_stride = 0;      ///< bytes from a pixel to the one below it
  std::ptrdiff_t pixel_stride = 1;    ///< bytes from a pixel to the one right of it
  std::ptrdiff_t channel_stride = 1;  ///< bytes from a channel to the next
  Residence residence = Residence::host;
  int device = 0;  ///< the CUDA ordinal, for Residence::cuda
  /// Residence::cuda: the stream (ImageView::stream's integer: 1 = CUDA's legacy default
  /// stream, 2 = per-thread default, else a cudaStream_t) after whose queued work the pixels
  /// are complete, as the producer promised it through DLPack or the CUDA Array Interface.
  std::uintptr_t stream = 0;

  /// Interleaved pixels, rows of any pitch >= width x channels: what an image view
  /// (core/image_view.h) reads as it is.
  [[nodiscard]] bool row_pitched() const {
    return channel_stride == 1 && pixel_stride == channels && row_stride >= std::ptrdiff_t(width) * channels;
  }
  /// "contiguous", "row pitch N" or "strided (row, pixel, channel steps in bytes)".
  [[nodiscard]] std::string layout() const;
  [[nodiscard]] std::size_t bytes() const {
    return std::size_t(width) * std::size_t(height) * std::size_t(channels);
  }
};

/// One input image as the caller gave it: its pixels and what keeps them alive. It must
/// outlive every read of the pixels and die with the GIL held; move-only, so that no copy of
/// its Python references is made or dropped where the GIL is released.
struct InputImage : Pixels {
  std::string source;      ///< "numpy", "dlpack", "cuda_array_interface" or "numpy.asarray"
  py::object owner;        ///< the caller's object
  std::shared_ptr<void> dlpack;  ///< the consumed DLPack tensor, released through its deleter
  double producer_ms = 0.0;      ///< spent in the producer's own protocol calls (__dlpack__ ...)

  InputImage() = default;
  InputImage(InputImage&&) = default;
  InputImage& operator=(InputImage&&) = default;
  InputImage(const InputImage&) = delete;
  InputImage& operator=(const InputImage&) = delete;
  ~InputImage() = default;
};

/// Reads `object` as an input image, in host or CUDA memory; `which` ("left", "right") and
/// `component` ("salap/cpu") name it in errors (stereo::Error of kind invalid_argument: dtype,
/// shape, device type). Whether the backend reads CUDA memory is the matcher's to say.
InputImage read_input(py::handle object, const std::string& component, const char* which);

/// The dense ImageU8 of host pixels of any strides (a copy): for the layouts no view expresses.
ImageU8 to_image(const Pixels& in);

/// A NumPy float32 array of shape (height, width) owning the map's buffer (moved, not copied).
py::array to_numpy(ImageF&& image);
/// A NumPy uint8 array, (height, width) for grey or (height, width, channels), owning the buffer.
py::array to_numpy(ImageU8&& image);
/// A copy of a 2-D array-like as an ImageF (float32; other real dtypes are converted).
ImageF to_image_f(py::handle object, const std::string& what);

/// A JSON value as the Python object json.loads would give.
py::object to_python(const nlohmann::json& value);

}  // namespace stereo::python
