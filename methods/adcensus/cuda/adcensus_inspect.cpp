#include "methods/adcensus/cuda/adcensus_inspect.h"

#include <cstdint>
#include <utility>

#include "cuda/shared/inspect_reads.h"
#include "methods/adcensus/stage_names.h"

namespace stereo::cu::adcensus {
namespace {

ImageF volume_level(const DeviceVolume& v, int k, int ordinal) {
  const std::vector<std::uint16_t> bits = volume_level_u16(v.get(), v.width, v.height, v.range.count, k, ordinal);
  ImageF out(v.width, v.height, 1);
  for (std::size_t i = 0; i < bits.size(); ++i) out.data[i] = half_bits_to_float(bits[i]);
  return out;
}

}  // namespace

void show_frame(PassTable& table, const KeptFrame& f, int ordinal) {
  table.clear();
  const int w = f.mean->width, h = f.mean->height;
  const char* side[2] = {"left", "right"};
  for (int v = 0; v < 2; ++v) {
    const DeviceImage<std::uint64_t>* census = f.census[v];
    table.add(image_layout(std::string("census.") + side[v], stereo::adcensus::CENSUS_WHAT, "uint64 device image",
                            w, h, 4),
               [census, ordinal](int) {
                 const std::vector<std::uint64_t> words = host_copy(*census, ordinal);
                 ImageF out(census->width, census->height, 4);
                 for (std::size_t i = 0; i < words.size(); ++i)
                   for (std::size_t c = 0; c < 4; ++c) out.data[i * 4 + c] = float((words[i] >> (16 * c)) & 0xffff);
                 return out;
               });
  }
  for (int v = 0; v < 2; ++v) {
    const DeviceImage<uchar4>* arms = f.arms[v];
    table.add(image_layout(std::string("cross.") + side[v], stereo::adcensus::ARMS_WHAT, "uchar4 device image",
                            w, h, 4),
               [arms, ordinal](int) {
                 const std::vector<uchar4> cells = host_copy(*arms, ordinal);
                 ImageF out(arms->width, arms->height, 4);
                 for (std::size_t i = 0; i < cells.size(); ++i) {
                   out.data[i * 4 + 0] = float(cells[i].x);
                   out.data[i * 4 + 1] = float(cells[i].y);
                   out.data[i * 4 + 2] = float(cells[i].z);
                   out.data[i * 4 + 3] = float(cells[i].w);
                 }
                 return out;
               });
  }
  const auto add_volume = [&](const std::string& name, const std::string& what, const DeviceVolume* v) {
    table.add(level_layout(name, what, "fp16 device volume, disparity fastest", w, h, v->range),
               [v, ordinal](int k) { return volume_level(*v, k, ordinal); });
  };
  if (f.cost_right)
    add_volume("cost+aggregate.right", stereo::adcensus::C1_RIGHT_WHAT, f.cost_right);
  const char* paths[4] = {"lr", "rl", "tb", "bt"};
  const DeviceVolume* path_volumes[4] = {&f.paths->lr, &f.paths->rl, &f.paths->tb, &f.paths->bt};
  for (int r = 0; r < 4; ++r)
    add_volume(std::string("scanline+wta.") + paths[r],
               std::string("L_r of the left view along path ") + paths[r] + " (Sec. 2.3, eq. 4)", path_volumes[r]);
  add_volume("scanline+wta", stereo::adcensus::C2_WHAT, f.mean);
  for (int v = 0; v < 2; ++v) {
    const DeviceImage<float>* map = f.disparity[v];
    if (!map) continue;
    table.add(image_layout(std::string("scanline+wta.") + side[v], stereo::adcensus::WTA_WHAT, "float device image",
                            w, h),
               [map, ordinal](int) { return host_image(*map, ordinal); });
  }
}

}  // namespace stereo::cu::adcensus
