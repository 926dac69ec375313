// Image views over the caller's pixels (python/views.h).

#include "python/views.h"

#include <atomic>

namespace stereo::python {
namespace {
std::atomic<std::uint64_t> copies{0};
}  // namespace

InputView view_input(const Pixels& in, bool gather_cuda, const std::string& what) {
  InputView out;
  const std::size_t dense_pitch = ImageView::dense_pitch(in.width, in.channels);
  if (in.residence == Residence::host) {
    if (in.row_pitched()) {
      out.view = ImageView(in.data, in.width, in.height, in.channels, std::size_t(in.row_stride));
    } else {
      out.host_copy = to_image(in);
      out.view = ImageView(out.host_copy);
      out.host_copy_bytes = in.bytes();
      copies.fetch_add(1);
    }
    return out;
  }
  if (in.row_pitched()) {
    out.view = ImageView::cuda(in.data, in.width, in.height, in.channels, std::size_t(in.row_stride), in.device,
                               in.stream);
  } else if (gather_cuda) {
    out.device_copy = gather_on_device(in, what);
    out.view = ImageView::cuda(out.device_copy->data(), in.width, in.height, in.channels, dense_pitch, in.device,
                               in.stream);
    out.device_copy_bytes = in.bytes();
    copies.fetch_add(1);
  } else {
    out.view = ImageView::cuda(in.data, in.width, in.height, in.channels, dense_pitch, in.device, in.stream);
  }
  return out;
}

std::uint64_t input_copies() { return copies.load(); }

}  // namespace stereo::python
