// `stereo compare` and `stereo report`: the options, the plan of cells (the lanes' accuracy
// cells: app/cli/compare_accuracy.h; their speed cells: app/cli/compare_speed.h) and the run
// that writes results.json cell by cell. Like the other commands they name no method or backend:
// the lanes are the registry's entries, the papers' figures each MethodInfo's.

#include "app/cli/compare_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "app/cli/compare_accuracy.h"
#include "app/cli/compare_lane.h"
#include "app/cli/compare_speed.h"
#include "app/dataset.h"
#include "app/image_io.h"
#include "app/measure.h"
#include "app/parallel/device_pool.h"
#include "app/report.h"
#include "app/revision.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "methods/builtin.h"

namespace stereo::cli {
namespace fs = std::filesystem;
using nlohmann::json;
using namespace compare;

namespace {

struct CompareArgs {
  std::vector<std::string> datasets;
  std::vector<std::string> methods;
  std::vector<std::string> backends;
  std::vector<std::string> sizes{"640x480", "1280x720", "1920x1080"};
  std::vector<int> levels{64, 128, 256};
  int repeats = 5;
  double warmup_ms = WarmUp{}.min_ms;
  double reference_max_mde = 40.0;
  bool no_accuracy = false;
  bool no_speed = false;
  bool no_paper_speed = false;
  std::string devices;  ///< --devices: spread each CUDA lane's cells over these GPUs
  std::string out;
};

/// The command that repeats this run, for results.json and the report.
std::string command_text(const CompareArgs& a) {
  const auto join = [](const auto& v) {
    std::string s;
    for (const auto& x : v) {
      if (!s.empty()) s += ",";
      if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) s += x;
      else s += std::to_string(x);
    }
    return s;
  };
  std::string t = "stereo compare";
  for (const std::string& d : a.datasets) t += " " + d;
  if (!a.methods.empty()) t += " --methods " + join(a.methods);
  if (!a.backends.empty()) t += " --backends " + join(a.backends);
  t += " --sizes " + join(a.sizes) + " --levels " + join(a.levels) + " --repeats " + std::to_string(a.repeats) +
       " --warmup-ms " + general(a.warmup_ms) + " --reference-max-mde " + general(a.reference_max_mde);
  if (a.no_accuracy) t += " --no-accuracy";
  if (a.no_speed) t += " --no-speed";
  if (a.no_paper_speed) t += " --no-paper-speed";
  if (!a.devices.empty()) t += " --devices " + a.devices;
  return t + " --out " + a.out;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct Cell {
  std::size_t lane = 0;
  bool accuracy = true;
  std::size_t dataset = 0, scene = 0;  // accuracy
  BenchConfig config;                  // speed
  std::string setting;                 // speed: "grid" or "paper"
};

Cell accuracy_cell(std::size_t lane, std::size_t dataset, std::size_t scene) {
  Cell c;
  c.lane = lane;
  c.dataset = dataset;
  c.scene = scene;
  return c;
}

Cell speed_cell(std::size_t lane, const BenchConfig& config, const std::string& setting) {
  Cell c;
  c.lane = lane;
  c.accuracy = false;
  c.config = config;
  c.setting = setting;
  return c;
}

std::string cell_text(const json& row) {
  if (row["status"] != "ok") return row["status"].get<std::string>() + ": " + row["reason"].get<std::string>();
  if (row["kind"] == "accuracy") {
    const json& m = row["metrics"];
    std::string t = fmt(row["total_ms"].get<double>(), 1) + " ms";
    if (m.is_object())
      for (const char* k : {"nonocc", "all", "disc"})
        if (m[k].is_number()) t += ", bad " + std::string(k) + " " + fmt(m[k].get<double>()) + "%";
    return t;
  }
  return fmt(row["mdes"].get<double>(), 1) + " Mde/s, median " + fmt(row["total_ms"].get<double>(), 3) + " ms (" +
         fmt(row["total_ms_min"].get<double>(), 3) + " .. " + fmt(row["total_ms_max"].get<double>(), 3) + ")";
}

void write_json(const fs::path& path, const json& doc) {
  write_atomically(path, [&](const fs::path& tmp) {
    std::ofstream f(tmp);
    f << doc.dump(2) << "\n";
    if (!f) throw Error("compare: cannot write " + path.string());
  });
}

void cmd_compare(const CompareArgs& a) {
  require(a.repeats >= 1, "compare: --repeats must be >= 1, got " + std::to_string(a.repeats));
  require(a.warmup_ms >= 0.0 && std::isfinite(a.warmup_ms),
          "compare: --warmup-ms must be >= 0, got " + general(a.warmup_ms));
  WarmUp warmup;
  warmup.min_ms = a.warmup_ms;
  require(!a.out.empty(), "compare: --out DIR is required");
  const Registry& reg = builtin_registry();

  // ---- what to run ----
  std::vector<const MethodInfo*> methods;
  if (a.methods.empty())
    for (const MethodInfo& m : reg.methods()) methods.push_back(&m);
  else
    for (const std::string& name : a.methods) methods.push_back(&reg.method(name));
  for (const std::string& b : a.backends)
    require(std::any_of(reg.entries().begin(), reg.entries().end(), [&](const BackendEntry& e) { return e.backend == b; }),
            "compare: no method of this build has a backend '" + b + "'");
  std::vector<std::pair<int, int>> sizes;
  if (!a.no_speed)
    for (const std::string& s : a.sizes) sizes.push_back(parse_size(s, "compare: --sizes"));
  for (int l : a.levels) require(l >= 1, "compare: --levels must be >= 1, got " + std::to_string(l));
  // --devices: the GPUs a CUDA lane's cells are spread over (GL and CPU lanes run as before).
  const std::vector<int> ordinals =
      a.devices.empty() ? std::vector<int>{} : parallel::parse_devices(a.devices, "cuda", "compare");

  std::vector<std::string> dataset_paths = a.datasets;
  if (dataset_paths.empty() && !a.no_accuracy) {
    for (const char* d : {"middlebury-v2", "middlebury-v3-quarter"})
      if (fs::is_directory(data_root() / d)) dataset_paths.push_back((data_root() / d).string());
    require(!dataset_paths.empty(), "compare: no DATASET given and none under the data root " + data_root().string() +
                                        " (stereo data get middlebury-v2; or --data DIR, STEREO_DATA, "
                                        "dataset folders, or --no-accuracy)");
  }
  std::vector<Dataset> datasets;
  if (!a.no_accuracy)
    for (const std::string& p : dataset_paths) datasets.push_back({dataset_name(p), p, load_dataset(resolve_dataset(p))});

  const fs::path out = a.out;
  std::error_code ec;
  fs::create_directories(out, ec);
  require(!ec, "compare: cannot create " + out.string() + ": " + ec.message());

  // Each scene's left view and ground truth once, for the montages.
  const std::vector<std::vector<json>> scene_maps = write_scene_maps(datasets, out);

  json backends = json::array();
  std::vector<Lane> lanes = make_lanes(methods, a.backends, backends);

  std::vector<Cell> cells;
  for (std::size_t li = 0; li < lanes.size(); ++li) {
    if (lanes[li].reason) continue;
    for (std::size_t di = 0; di < datasets.size(); ++di)
      for (std::size_t si = 0; si < datasets[di].scenes.size(); ++si) cells.push_back(accuracy_cell(li, di, si));
    if (a.no_speed) continue;
    for (const auto& [config, setting] : speed_settings(lanes[li], sizes, a.levels, !a.no_paper_speed))
      cells.push_back(speed_cell(li, config, setting));
  }

  json settings = {{"repeats", a.repeats}, {"warmup", warmup_json(warmup)},
                   {"sizes", a.no_speed ? std::vector<std::string>{} : a.sizes},
                   {"levels", a.levels}, {"datasets", dataset_paths}, {"speed_input", SPEED_INPUT},
                   {"paper_settings", !a.no_speed && !a.no_paper_speed},
                   {"reference_max_mde", a.reference_max_mde}};
  json method_docs = json::array();
  for (const MethodInfo* m : methods) method_docs.push_back(method_json(*m));
  json doc = {{"schema", RESULTS_SCHEMA},
              {"created", utc_now()},
              {"command", command_text(a)},
              {"revision", source_revision()},
              {"host", {{"cpu", cpu_name()}, {"threads", ThreadPool::hardware_threads()}}},
              {"settings", settings},
              {"methods", method_docs},
              {"backends", backends},
              {"rows", json::array()}};

  // ---- run, cell by cell; results.json is rewritten after each so a long run stopped
  // halfway still leaves every finished cell on disk ----
  const auto start = std::chrono::steady_clock::now();
  std::cerr << "compare: " << cells.size() << " cells over " << lanes.size() << " method/backend lanes, "
            << (a.no_speed ? std::string("accuracy only")
                           : std::to_string(a.repeats) + " repeats per speed cell")
            << "; writing " << out.string() << "\n";
  // One cell's row: what it measured, or why it has none (the run goes on either way).
  const auto run_cell = [&](const Cell& c, Lane& lane) {
    json row;
    try {
      row = c.accuracy ? accuracy_row(lane, datasets[c.dataset], datasets[c.dataset].scenes[c.scene], out,
                                      scene_maps[c.dataset][c.scene])
                       : speed_row(lane, c.config, c.setting, a.repeats, warmup, a.reference_max_mde);
    } catch (const std::exception& e) {
      // A backend that refuses a cell (too large for its limits, out of memory) says why with
      // a stereo::Error; anything else is a failure. Either way the run goes on.
      const bool refused = dynamic_cast<const Error*>(&e) != nullptr;
      row = c.accuracy ? base_row(lane, "accuracy", datasets[c.dataset].name + "/" + datasets[c.dataset].scenes[c.scene].name)
                       : base_row(lane, "speed", std::to_string(c.config.width) + "x" +
                                                     std::to_string(c.config.height) + " synthetic");
      row["status"] = refused ? "refused" : "failed";
      // One line, so the CSV keeps one line per row and the terminal one per cell.
      std::string reason = e.what();
      std::replace(reason.begin(), reason.end(), '\n', ' ');
      while (!reason.empty() && reason.back() == ' ') reason.pop_back();
      row["reason"] = reason;
      if (c.accuracy) {
        const Scene& s = datasets[c.dataset].scenes[c.scene];
        row.update({{"dataset", datasets[c.dataset].name}, {"scene", s.name}, {"width", s.left.width},
                    {"height", s.left.height}, {"min_disparity", s.min_disparity}, {"levels", s.levels},
                    {"threshold", s.default_threshold}});
      } else {
        row.update({{"setting", c.setting}, {"width", c.config.width}, {"height", c.config.height},
                    {"min_disparity", c.config.range.min}, {"levels", c.config.range.count}, {"repeats", a.repeats},
                    {"set", set_json(c.config)}});
      }
    }
    if (row["status"] == "ok" && row.contains("paper") && row["paper"].is_object() && row["paper"].contains("ratio_mdes") &&
        row["paper"]["mdes"].is_number())
      row["paper"]["ratio_mdes"] = row["mdes"].get<double>() / row["paper"]["mdes"].get<double>();
    return row;
  };
  // Cells run lane by lane (a lane's cells are contiguous); a lane's matchers are released
  // after its last cell, so GPU buffers sized for the largest input are not held while the
  // next lanes run. With --devices a CUDA lane's cells go to a copy of the lane per GPU as each
  // frees up (app/parallel/device_pool.h); rows are recorded in cell order either way.
  for (std::size_t begin = 0; begin < cells.size();) {
    std::size_t end = begin;
    while (end < cells.size() && cells[end].lane == cells[begin].lane) ++end;
    Lane& lane = lanes[cells[begin].lane];
    std::vector<Lane> copies;
    if (!ordinals.empty() && lane.backend.rfind("cuda", 0) == 0) {
      lane.matcher.reset();
      copies = lane_per_device(lane, ordinals);
    }
    std::vector<json> rows(end - begin);
    parallel::spread_items(
        copies.empty() ? 1 : copies.size(), end - begin,
        [&](std::size_t worker, std::size_t k) { rows[k] = run_cell(cells[begin + k], copies.empty() ? lane : copies[worker]); },
        [&](std::size_t k, std::size_t worker) {
          const Cell& c = cells[begin + k];
          const std::string what = c.accuracy ? "accuracy " + datasets[c.dataset].name + "/" +
                                                    datasets[c.dataset].scenes[c.scene].name
                                              : "speed " + std::to_string(c.config.width) + "x" +
                                                    std::to_string(c.config.height) + " x " +
                                                    std::to_string(c.config.range.count) + " (" + c.setting +
                                                    set_text(c.config) + ")";
          const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          std::cerr << "[" << (begin + k + 1) << "/" << cells.size() << "] " << fmt(elapsed, 1) << " s  "
                    << lane.label() << (copies.empty() ? "" : " on device " + std::to_string(copies[worker].ordinal))
                    << "  " << what << ": " << cell_text(rows[k]) << std::endl;
          doc["rows"].push_back(std::move(rows[k]));
          write_json(out / "results.json", doc);
        });
    lane.matcher.reset();
    begin = end;
  }
  write_json(out / "results.json", doc);
  const std::vector<std::string> written = write_report(doc, out, std::cerr);
  std::cout << summary_table(doc) << "\nwritten to " << out.string() << ": results.json";
  for (const std::string& f : written) std::cout << ", " << f;
  std::cout << "\n";
}

void cmd_report(const std::string& dir, const std::string& repeat_of) {
  json doc = read_results(dir);
  if (!repeat_of.empty()) {
    // The other run is summarised into this one's results.json, so the Repeatability section
    // is remade by a later `stereo report DIR` from that file alone.
    require(fs::absolute(repeat_of).lexically_normal() != fs::absolute(dir).lexically_normal(),
            "report: --repeat-of names the folder being reported, " + dir + "; give the other run's folder");
    doc["repeat_of"] = repeat_summary(read_results(repeat_of), repeat_of);
    write_json(fs::path(dir) / "results.json", doc);
  }
  const std::vector<std::string> written = write_report(doc, dir, std::cerr);
  std::cout << summary_table(doc);
  if (doc.contains("repeat_of")) std::cout << repeat_headline(compare_repeat(doc)) << " (report.md: Repeatability)\n";
  std::cout << "\nwritten to " << dir << ":";
  for (const std::string& f : written) std::cout << " " << f;
  std::cout << "\n";
}

}  // namespace

void add_compare_commands(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  auto* c = app.add_subcommand(
      "compare", "every method x backend on the Middlebury data (accuracy) and a size x levels grid plus each "
                 "paper's settings (speed): results.json, results.csv, report.md, plots");
  c->add_option("DATASET", args->datasets,
                "scene folders, folders of scenes or dataset names under the data root (default: middlebury-v2 and "
                "middlebury-v3-quarter there; stereo data list)");
  c->add_option("--methods", args->methods, "methods to run (default: every method of this build)")->delimiter(',');
  c->add_option("--backends", args->backends, "backends to run (default: every available one)")->delimiter(',');
  c->add_option("--sizes", args->sizes, "speed grid sizes, WxH")->delimiter(',')->capture_default_str();
  c->add_option("--levels", args->levels, "speed grid disparity counts")->delimiter(',')->capture_default_str();
  c->add_option("--repeats", args->repeats, "timed runs per speed cell after the warm-up (median and spread)")
      ->capture_default_str();
  c->add_option("--warmup-ms", args->warmup_ms,
                "untimed warm-up of each speed cell: runs of the same matcher, pair and range for at least this "
                "long (and at least one run)")
      ->capture_default_str();
  c->add_option("--reference-max-mde", args->reference_max_mde,
                "skip speed cells of the `cpu` reference backends above this many million disparity evaluations")
      ->capture_default_str();
  c->add_flag("--no-accuracy", args->no_accuracy, "leave out the accuracy runs");
  c->add_flag("--no-speed", args->no_speed, "leave out the speed runs");
  c->add_flag("--no-paper-speed", args->no_paper_speed, "time the grid only, not each paper's own settings");
  c->add_option("--devices", args->devices,
                "spread each CUDA lane's cells over these GPUs (0,1 or all), a matcher per GPU, each cell to the "
                "next free one; every row names its GPU, and its times are that GPU's");
  c->add_option("-o,--out", args->out, "results folder (created)")->required();
  c->callback([args] { cmd_compare(*args); });

  auto dir = std::make_shared<std::string>();
  auto repeat_of = std::make_shared<std::string>();
  auto* r = app.add_subcommand("report", "remake report.md, results.csv, the map montages and the plots of a "
                                         "`stereo compare` folder from its results.json alone");
  r->add_option("DIR", *dir, "the folder `stereo compare --out` wrote")->required();
  r->add_option("--repeat-of", *repeat_of,
                "another `stereo compare` folder of the same command: add a Repeatability section (accuracy cells "
                "identical or not, each speed cell's two medians against the stated noise); the other run's rows "
                "are kept in DIR/results.json, so later reports keep the section");
  r->callback([dir, repeat_of] { cmd_report(*dir, *repeat_of); });
}

}  // namespace stereo::cli
