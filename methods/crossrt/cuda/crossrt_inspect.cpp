#include "methods/crossrt/cuda/crossrt_inspect.h"

#include <cstdint>

#include "cuda/shared/inspect_reads.h"

namespace stereo::cu::crossrt {
namespace {

ImageF arms_image(const DeviceImage<uchar2>& arms, int ordinal) {
  const std::vector<uchar2> cells = host_copy(arms, ordinal);
  ImageF out(arms.width, arms.height, 2);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out.data[i * 2] = float(cells[i].x);
    out.data[i * 2 + 1] = float(cells[i].y);
  }
  return out;
}

}  // namespace

void show_frame(PassTable& table, const KeptFrame& f, int ordinal) {
  table.clear();
  const char* side[2] = {"left", "right"};
  const auto add_image = [&](const std::string& name, const std::string& what, const char* storage, const auto* image) {
    table.add(image_layout(name, what, storage, image->width, image->height),
               [image, ordinal](int) { return host_image(*image, ordinal); });
  };
  for (int v = 0; v < 2; ++v)
    add_image(std::string("SD.") + side[v], "the scaled grey image (eq. 2)", "uint8 device image", f.scaled[v]);
  for (int axis = 0; axis < 2; ++axis)
    for (int v = 0; v < 2; ++v) {
      const DeviceImage<uchar2>* arms = axis == 0 ? f.arms_x[v] : f.arms_y[v];
      table.add(image_layout(std::string(axis == 0 ? "arms x." : "arms y.") + side[v],
                              axis == 0 ? "horizontal arm lengths: left, right" : "vertical arm lengths: up, down",
                              "uchar2 device image", arms->width, arms->height, 2),
                 [arms, ordinal](int) { return arms_image(*arms, ordinal); });
    }
  for (int v = 0; v < 2; ++v) {
    const DeviceVolume16* cax = f.cax[v];
    table.add(level_layout(std::string("C+CA_x.") + side[v],
                            "CA_x: the cost summed along the horizontal arms (eq. 3-7), per scaled level",
                            "uint16 device volume, disparity fastest", cax->width, cax->height, cax->range),
               [cax, ordinal](int k) {
                 const std::vector<std::uint16_t> cells =
                     volume_level_u16(cax->get(), cax->width, cax->height, cax->range.count, k, ordinal);
                 ImageF out(cax->width, cax->height, 1);
                 for (std::size_t i = 0; i < cells.size(); ++i) out.data[i] = float(cells[i]);
                 return out;
               });
  }
  for (int v = 0; v < 2; ++v)
    add_image(std::string("CA.") + side[v], "the winner-takes-all of CA (eq. 8-9), scaled disparity",
              "float device image", f.disparity[v]);
  add_image("CC", "the ground control points (eq. 10): 1 where the maps agree", "uint8 device image", f.gcp_mask);
  add_image("Post.median", "the 3x3 median of the left map", "float device image", f.median);
  add_image("Post", "the filled map (eq. 11)", "float device image", f.filled);
  if (f.full) add_image("SU", "the full-size map (Sec. IV-H)", "float device image", f.full);
}

}  // namespace stereo::cu::crossrt
