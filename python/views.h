#pragma once
/// \file python/views.h
/// The image view (core/image_view.h) a matcher reads of one input, built without the GIL from
/// its Pixels: the caller's memory itself wherever a view expresses the layout (interleaved
/// pixels, rows of any pitch; host or CUDA memory), else a dense copy made here, once (a host
/// gather for host pixels, a device-to-device one for CUDA pixels). Every copy is counted
/// (input_copies(), the tests' proof that a layout is read in place).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/image.h"
#include "core/image_view.h"
#include "python/arrays.h"
#include "python/cuda_io.h"

namespace stereo::python {

/// One input's view and, where the layout needed one, the copy behind it (owned here, so the
/// view stays valid as long as this lives).
struct InputView {
  ImageView view;
  ImageU8 host_copy;                         ///< host pixels no view expresses
  std::unique_ptr<DeviceMemory> device_copy;  ///< CUDA pixels no view expresses
  std::size_t host_copy_bytes = 0;
  std::size_t device_copy_bytes = 0;
};

/// The view of `in`. CUDA pixels no view expresses are gathered on the device only where
/// `gather_cuda` (a cuda backend); for any other backend the view names the memory with a
/// dense pitch unread, since every host backend refuses CUDA views before reading them (the
/// core's error). `what` ("salap/cuda: left") names the input in errors.
InputView view_input(const Pixels& in, bool gather_cuda, const std::string& what);

/// The inputs the binding has copied in this process (host and device gathers): a test reads
/// it before and after a call.
std::uint64_t input_copies();

}  // namespace stereo::python
