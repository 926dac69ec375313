// The speed cells of `stereo compare` (app/cli/compare_speed.h).

#include "app/cli/compare_speed.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "core/validate.h"
#include "methods/builtin.h"

namespace stereo::cli::compare {
using nlohmann::json;

std::vector<std::pair<BenchConfig, std::string>> speed_settings(const Lane& lane,
                                                                const std::vector<std::pair<int, int>>& sizes,
                                                                const std::vector<int>& levels, bool paper) {
  std::vector<std::pair<BenchConfig, std::string>> out;
  const MethodInfo& info = *lane.info;
  // A grid cell runs the lane's parameters, so it stands for a paper setting only where the
  // setting's overrides are those parameters; the other settings get cells of their own.
  const auto paper_setting = [&](int w, int h, int l) -> std::optional<PaperSpeed> {
    for (const PaperSpeed& s : info.speed)
      if (s.width == w && s.height == h && s.levels == l && set_holds(s.set, lane.params)) return s;
    return std::nullopt;
  };
  for (const auto& [w, h] : sizes)
    for (int l : levels) out.push_back({{w, h, {0, l}, paper_setting(w, h, l)}, "grid"});
  if (!paper) return out;
  for (const PaperSpeed& s : info.speed) {
    const bool in_grid = std::find(sizes.begin(), sizes.end(), std::pair{s.width, s.height}) != sizes.end() &&
                         std::find(levels.begin(), levels.end(), s.levels) != levels.end() &&
                         set_holds(s.set, lane.params);
    if (!in_grid) out.push_back({{s.width, s.height, {0, s.levels}, s}, "paper"});
  }
  return out;
}

json set_json(const BenchConfig& b) {
  json set = json::object();
  if (b.paper)
    for (const auto& [key, value] : b.paper->set) set[key] = value;
  return set;
}

std::string set_text(const BenchConfig& b) {
  std::string t;
  if (b.paper)
    for (const auto& [key, value] : b.paper->set) t += ", " + key + "=" + value;
  return t;
}

json speed_row(Lane& lane, const BenchConfig& b, const std::string& setting, int repeats, const WarmUp& warmup,
               double reference_max_mde) {
  json row = base_row(lane, "speed", std::to_string(b.width) + "x" + std::to_string(b.height) + " synthetic");
  row.update({{"setting", setting}, {"width", b.width}, {"height", b.height}, {"min_disparity", b.range.min},
              {"levels", b.range.count}, {"repeats", repeats}, {"set", set_json(b)}, {"paper", nullptr},
              {"time_includes", std::string(TIME_INCLUDES) + "; median of the repeats after " + warmup_text(warmup)}});
  if (b.paper)
    row["paper"] = {{"gpu", lane.info->paper_gpu}, {"ms", optional_json(b.paper->ms)},
                    {"mdes", optional_json(b.paper->mdes)}, {"note", b.paper->note}, {"ratio_mdes", nullptr}};
  // A paper setting with parameters of its own (SymStereo's N, ESAW's iterations) is timed on
  // a matcher made with them (the lane runs the defaults; this one the defaults plus the
  // setting's overrides); it serves the warm-up and every timed run of the cell, and its
  // parameters are the row's (a skipped row's too).
  std::unique_ptr<Matcher> own;
  if (b.paper && !set_holds(b.paper->set, lane.params)) {
    own = create_like(lane, b.paper->set);
    row["params"] = own->params();
  }
  const double work = double(b.width) * double(b.height) * double(b.range.count) / 1e6;
  if (lane.backend == "cpu" && work > reference_max_mde) {
    row["status"] = "skipped";
    row["reason"] = "the CPU reference (written for clarity, not speed) at " + general(work) +
                    " M disparity evaluations is over --reference-max-mde " + general(reference_max_mde);
    return row;
  }
  validate_pair(ImageU8(b.width, 1, 3), ImageU8(b.width, 1, 3), b.range, lane.label());
  // No energy window here: it adds a second or more to every cell of the grid; `bench` reads it.
  json j = bench_one(own ? *own : *lane.matcher, *lane.info, lane.backend, b, repeats, warmup, EnergyWindow{0.0});
  for (const char* key : {"clock", "algorithm_ms", "upload_ms", "readback_ms", "total_ms", "total_ms_min",
                          "total_ms_max", "algorithm_ms_min", "algorithm_ms_max", "runs", "warmup_runs", "fps",
                          "mdes_algorithm", "stages", "copy_gb_s", "floor", "device_memory_bytes",
                          "device_memory_declared_bytes", "paper"})
    if (j.contains(key)) row[key] = j[key];
  add_times(row, b.width, b.height, b.range.count, j["total_ms"].get<double>());
  return row;
}

}  // namespace stereo::cli::compare
