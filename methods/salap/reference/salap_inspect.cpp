#include "methods/salap/reference/salap_inspect.h"

#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "methods/salap/reference/salap.h"
#include "methods/salap/stage_names.h"

namespace stereo::reference {
namespace {

// The stages per level, in pipeline order.
constexpr int STAGES = 8;
constexpr std::array<salap::StageName, STAGES> STAGE_NAMES = {
    salap::TAD_STAGE,          salap::HORIZONTAL_STAGES[0], salap::HORIZONTAL_STAGES[1], salap::VERTICAL_STAGES[0],
    salap::VERTICAL_STAGES[1], salap::VERTICAL_STAGES[2],   salap::VERTICAL_STAGES[3],   salap::WINDOW_COST_STAGE};

constexpr const char* STORAGE = "float host image (the reference stage function)";

}  // namespace

void keep_salap_stages(PassTable& table, const ImageU8& left, const ImageU8& right, DisparityRange range,
                       const ImageF& disparity, const SalapParams& params, int quantize, ThreadPool& pool) {
  const auto levels = std::size_t(range.count);
  std::array<std::vector<ImageF>, STAGES> kept;
  for (auto& stage : kept) stage.resize(levels);
  pool.parallel_for(levels, [&](std::size_t k) {
    const int d = range.min + int(k);
    ImageF tad = tad_cost(left, right, d, params, quantize);
    ImageF cl = filter_horizontal(tad, Side::left, params, quantize);
    ImageF cr = filter_horizontal(tad, Side::right, params, quantize);
    ImageF c0 = filter_vertical(cl, Side::down, params, quantize), c1 = filter_vertical(cl, Side::up, params, quantize);
    ImageF c2 = filter_vertical(cr, Side::down, params, quantize), c3 = filter_vertical(cr, Side::up, params, quantize);
    kept[7][k] = window_cost(c0, c1, c2, c3, params);
    kept[0][k] = std::move(tad);
    kept[1][k] = std::move(cl);
    kept[2][k] = std::move(cr);
    kept[3][k] = std::move(c0);
    kept[4][k] = std::move(c1);
    kept[5][k] = std::move(c2);
    kept[6][k] = std::move(c3);
  });
  table.clear();
  for (std::size_t s = 0; s < STAGES; ++s)
    table.add_kept(level_layout(STAGE_NAMES[s].name, STAGE_NAMES[s].what, STORAGE, disparity.width, disparity.height,
                                range),
                   std::move(kept[s]));
  ImageF index = disparity;
  for (float& v : index.data)
    if (std::isfinite(v)) v -= float(range.min);
  table.add_kept(image_layout(salap::SELECT_STAGE.name, salap::SELECT_STAGE.what, STORAGE, disparity.width,
                              disparity.height),
                 {std::move(index)});
}

}  // namespace stereo::reference
