// Image views: the dense copy the cpu backends read, and the row copy into a caller's map.

#include "core/image_view.h"

#include <cstring>
#include <string>
#include <utility>

#include "core/error.h"

namespace stereo {

const char* to_string(Memory memory) { return memory == Memory::cuda ? "cuda" : "host"; }

ImageU8 to_image(const ImageView& view) {
  require(view.memory == Memory::host, "image view: a dense copy needs host memory, the view is in CUDA memory");
  ImageU8 out(view.width, view.height, view.channels);
  const std::size_t row_bytes = view.row_bytes();
  if (view.dense()) {
    if (!out.data.empty()) std::memcpy(out.data.data(), view.data, out.data.size());
    return out;
  }
  for (int y = 0; y < view.height; ++y) std::memcpy(out.row(y), view.row(y), row_bytes);
  return out;
}

ImageView as_rgb(const ImageView& view, ImageU8& storage, const std::string& component) {
  if (view.order == ChannelOrder::rgb || view.channels != 3) return view;
  require(view.memory == Memory::host,
          component + ": a BGR view in CUDA memory is not reordered on the device; pass it as RGB "
                      "(reverse the channel axis, e.g. tensor.flip(-1)) or from host memory",
          ErrorKind::invalid_argument);
  storage = to_image(view);
  for (std::size_t i = 0; i + 2 < storage.data.size(); i += 3) std::swap(storage.data[i], storage.data[i + 2]);
  return ImageView(storage);
}

void copy_rows(const ImageF& map, const DisparityView& out) {
  require(out.memory == Memory::host, "disparity view: a host copy cannot write CUDA memory");
  require(map.channels == 1 && map.width == out.width && map.height == out.height,
          "disparity view: a " + std::to_string(map.width) + "x" + std::to_string(map.height) + " map into a " +
              std::to_string(out.width) + "x" + std::to_string(out.height) + " view");
  const std::size_t row_bytes = out.row_bytes();
  if (out.pitch == row_bytes) {
    if (!map.data.empty()) std::memcpy(out.data, map.data.data(), map.data.size() * sizeof(float));
    return;
  }
  for (int y = 0; y < map.height; ++y) std::memcpy(out.row(y), map.row(y), row_bytes);
}

void validate_output(const DisparityView& out, int width, int height, const std::string& component) {
  // Messages made only on failure: every compute_into() call checks its output.
  require(out.data != nullptr, [&] { return component + ": the disparity view has no memory (null data)"; });
  require(out.width == width && out.height == height, [&] {
    return component + ": the disparity view is " + std::to_string(out.width) + "x" + std::to_string(out.height) +
           " but the images are " + std::to_string(width) + "x" + std::to_string(height);
  });
  require(out.pitch >= out.row_bytes(), [&] {
    return component + ": the disparity view's pitch " + std::to_string(out.pitch) + " bytes is below its row of " +
           std::to_string(out.row_bytes()) + " bytes (width x 4)";
  });
  require(out.pitch % sizeof(float) == 0 && reinterpret_cast<std::uintptr_t>(out.data) % alignof(float) == 0, [&] {
    return component + ": the disparity view's data and pitch (" + std::to_string(out.pitch) +
           " bytes) must be 4-byte aligned";
  });
  require(out.memory == Memory::host || out.device >= 0, [&] {
    return component + ": a disparity view in CUDA memory names no device (device " + std::to_string(out.device) +
           ")";
  });
}

}  // namespace stereo
