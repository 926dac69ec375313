#include "methods/adcensus/reference/adcensus_inspect.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "methods/adcensus/reference/adcensus.h"
#include "methods/adcensus/stage_names.h"

namespace stereo::reference {
namespace {

ImageF census_image(const Image<std::uint64_t>& census) {
  ImageF out(census.width, census.height, 4);
  for (std::size_t i = 0; i < census.data.size(); ++i)
    for (std::size_t c = 0; c < 4; ++c) out.data[i * 4 + c] = float((census.data[i] >> (16 * c)) & 0xffff);
  return out;
}

ImageF as_float(const Image<std::uint8_t>& image) {
  ImageF out(image.width, image.height, image.channels);
  for (std::size_t i = 0; i < image.data.size(); ++i) out.data[i] = float(image.data[i]);
  return out;
}

void add_volume(PassTable& table, std::string name, std::string what, const CostVolume& volume) {
  PassLayout l = level_layout(std::move(name), std::move(what), "float host volume, disparity fastest", volume.width,
                              volume.height, volume.range);
  auto kept = std::make_shared<const CostVolume>(volume);
  table.add(std::move(l), [kept](int k) {
    ImageF out(kept->width, kept->height, 1);
    for (int y = 0; y < kept->height; ++y)
      for (int x = 0; x < kept->width; ++x) out.at(x, y) = kept->at(x, y, k);
    return out;
  });
}

}  // namespace

void keep_adcensus_stages(PassTable& table, const AdCensusStages& s) {
  table.clear();
  const int w = s.census_left.width, h = s.census_left.height;
  const std::string census_what = stereo::adcensus::CENSUS_WHAT, arms_what = stereo::adcensus::ARMS_WHAT,
                    wta_what = stereo::adcensus::WTA_WHAT;
  table.add_kept(image_layout("census.left", census_what, "uint64 host image", w, h, 4), {census_image(s.census_left)});
  table.add_kept(image_layout("census.right", census_what, "uint64 host image", w, h, 4), {census_image(s.census_right)});
  table.add_kept(image_layout("cross.left", arms_what, "uint8 host image", w, h, 4), {as_float(s.arms_left)});
  table.add_kept(image_layout("cross.right", arms_what, "uint8 host image", w, h, 4), {as_float(s.arms_right)});
  if (s.c1_right)
    add_volume(table, "cost+aggregate.right", stereo::adcensus::C1_RIGHT_WHAT, *s.c1_right);
  add_volume(table, "scanline+wta", stereo::adcensus::C2_WHAT, s.c2_left);
  table.add_kept(image_layout("scanline+wta.left", wta_what, "float host image", w, h, 1), {winner_takes_all(s.c2_left)});
  if (s.c2_right)
    table.add_kept(image_layout("scanline+wta.right", wta_what, "float host image", w, h, 1), {winner_takes_all(*s.c2_right)});
}

}  // namespace stereo::reference
