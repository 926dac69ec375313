// The accuracy cells of `stereo compare` (app/cli/compare_accuracy.h).

#include "app/cli/compare_accuracy.h"

#include <optional>

#include "app/image_io.h"
#include "app/measure.h"
#include "app/metrics.h"
#include "app/protocol.h"

namespace stereo::cli::compare {
namespace fs = std::filesystem;
using nlohmann::json;

std::string dataset_name(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

std::vector<std::vector<json>> write_scene_maps(const std::vector<Dataset>& datasets, const fs::path& out) {
  std::vector<std::vector<json>> scene_maps(datasets.size());
  for (std::size_t di = 0; di < datasets.size(); ++di)
    for (const Scene& s : datasets[di].scenes) {
      fs::create_directories(out / "maps" / "scenes");
      const std::string stem = (fs::path("maps") / "scenes" / (datasets[di].name + "-" + s.name)).string();
      json m = {{"left", stem + "_left.png"}, {"gt", nullptr}};
      write_png(out / (stem + "_left.png"), s.left);
      if (s.has_ground_truth()) {
        m["gt"] = stem + "_gt.png";
        write_png(out / (stem + "_gt.png"), colorize_range(s.gt, s.range()));
      }
      scene_maps[di].push_back(m);
    }
  return scene_maps;
}

json accuracy_row(Lane& lane, const Dataset& d, const Scene& s, const fs::path& out, const json& scene_maps) {
  json row = base_row(lane, "accuracy", d.name + "/" + s.name);
  const DisparityRange range = s.range();
  row.update({{"dataset", d.name}, {"scene", s.name}, {"width", s.left.width}, {"height", s.left.height},
              {"min_disparity", range.min}, {"levels", range.count}, {"threshold", s.default_threshold},
              {"time_includes", std::string(TIME_INCLUDES) + "; one run" +
                                    (lane.backend != "cpu" ? " after one untimed warm-up run of the scene" : "")}});
  // As eval: GPU and library backends get an untimed warm-up (allocation, shader compilation,
  // module load); the CPU reference is slow enough that one run is the measurement.
  if (lane.backend != "cpu") lane.matcher->compute(s.left, s.right, range);
  const StereoResult r = lane.matcher->compute(s.left, s.right, range);
  row["timing"] = timing_json(r.timing);
  row["clock"] = r.timing.clock;
  row["total_ms"] = r.timing.total_ms();
  row["algorithm_ms"] = r.timing.algorithm_ms;
  row["upload_ms"] = r.timing.upload_ms;
  row["readback_ms"] = r.timing.readback_ms;
  add_times(row, s.left.width, s.left.height, range.count, r.timing.total_ms());
  // "metrics": the map as computed; "metrics_submitted": as the format's benchmark received it
  // (app/protocol.h; the same figures where the format takes float maps).
  const auto metrics = [&](const ImageF& map) -> json {
    const Metrics m = evaluate(map, s, s.default_threshold);
    return {{"nonocc", optional_json(m.bad_nonocc)}, {"all", optional_json(m.bad_all)},
            {"disc", optional_json(m.bad_disc)},     {"avg_error", optional_json(m.avg_error)},
            {"density", m.density},                  {"d1_all", optional_json(m.d1_all)}};
  };
  row["submission_rule"] = submission_rule(s).text;
  row["metrics"] = s.has_ground_truth() ? metrics(r.disparity) : json(nullptr);
  row["metrics_submitted"] = s.has_ground_truth() ? metrics(as_submitted(r.disparity, s)) : json(nullptr);
  // The paper's row only at the paper's own threshold: beside another it would mislead.
  const std::optional<PaperAccuracy> paper = s.default_threshold == lane.info->accuracy_threshold
                                                 ? lane.info->paper_accuracy(s.name, lane.params)
                                                 : std::nullopt;
  row["paper"] = paper ? json{{"nonocc", optional_json(paper->nonocc)}, {"all", optional_json(paper->all)},
                              {"disc", optional_json(paper->disc)}}
                       : json(nullptr);
  const fs::path rel = fs::path("maps") / (lane.info->name + "-" + lane.backend);
  fs::create_directories(out / rel);
  const std::string stem = d.name + "-" + s.name;
  json maps = scene_maps;
  maps["disparity"] = (rel / (stem + "_disparity.png")).string();
  write_png(out / maps["disparity"].get<std::string>(), colorize_range(r.disparity, range));
  if (s.has_ground_truth()) {
    maps["error"] = (rel / (stem + "_error.png")).string();
    write_png(out / maps["error"].get<std::string>(), error_map(r.disparity, s, s.default_threshold));
  } else {
    maps["error"] = nullptr;
  }
  row["maps"] = maps;
  return row;
}

}  // namespace stereo::cli::compare
