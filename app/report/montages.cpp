// The map montages of report.md (app/report/montages.h).

#include "app/report/montages.h"

#include <algorithm>
#include <array>

#include "app/image_io.h"
#include "app/montage.h"
#include "app/report/document.h"

namespace stereo::report {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int TILE_WIDTH = 360;  // a montage of two tiles stays readable on one screen

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> write_montages(const json& doc, const fs::path& dir,
                                                                            std::vector<std::string>& written) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  std::vector<std::string> inputs;
  for (const json* r : rows_where(doc, "accuracy", ""))
    if (std::find(inputs.begin(), inputs.end(), text(*r, "input")) == inputs.end()) inputs.push_back(text(*r, "input"));
  for (const std::string& input : inputs) {
    std::vector<std::pair<std::string, std::array<std::string, 2>>> grid;  // label, two files
    for (const json* r : rows_where(doc, "accuracy", "")) {
      if (text(*r, "input") != input || !r->contains("maps") || !(*r)["maps"].is_object()) continue;
      const json& m = (*r)["maps"];
      if (grid.empty()) grid.push_back({"left view | ground truth", {text(m, "left"), text(m, "gt")}});
      grid.push_back({lane_of(*r) + ": disparity | error", {text(m, "disparity"), text(m, "error")}});
    }
    if (grid.size() < 2) continue;
    std::vector<MontageRow> rows;
    bool any_tile = false;
    for (const auto& [label, files] : grid) {
      MontageRow row{label, {}, {}};
      for (int i = 0; i < 2; ++i)
        if (!files[std::size_t(i)].empty() && fs::exists(dir / files[std::size_t(i)])) {
          (i == 0 ? row.left : row.right) = shrink(read_image(dir / files[std::size_t(i)]), TILE_WIDTH);
          any_tile = true;
        }
      rows.push_back(std::move(row));
    }
    std::string name = input;
    std::replace(name.begin(), name.end(), '/', '-');
    const std::string file = (fs::path("maps") / ("montage_" + name + ".png")).string();
    std::vector<std::string> labels;
    for (const auto& g : grid) labels.push_back(g.first);
    if (!any_tile) {
      // No map of this scene is here (a results folder kept without its maps): an existing
      // montage, made where the maps were, still stands for the same rows.
      if (fs::exists(dir / file)) out.push_back({file, labels});
      continue;
    }
    const ImageU8 canvas = compose_montage(input, rows);
    fs::create_directories(dir / "maps");
    write_png(dir / file, canvas);
    written.push_back(file);
    out.push_back({file, labels});
  }
  return out;
}

}  // namespace stereo::report
