// `stereo compare` and `stereo report`. Like the other commands they name no method or
// backend: the lanes are the registry's entries, the papers' figures each MethodInfo's.

#include "app/cli/compare_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "app/measure.h"
#include "app/dataset.h"
#include "core/error.h"
#include "app/image_io.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "app/protocol.h"
#include "app/report.h"
#include "app/revision.h"
#include "core/thread_pool.h"
#include "methods/builtin.h"
#include "core/validate.h"

namespace stereo::cli {
namespace fs = std::filesystem;
using nlohmann::json;

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
  std::string out;
};

/// Six significant digits, no trailing zeros ("0.02", "40").
std::string general(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

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
  return t + " --out " + a.out;
}

// What the timed images are; speed does not depend on content (host/synth.h bench_pair).
constexpr const char* SPEED_INPUT =
    "synthetic: uniform random RGB left view (fixed seed), right view = left shifted by 8 px (bench_pair)";

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// A dataset folder's name ("middlebury-v2"), trailing separators ignored.
std::string dataset_name(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

struct Dataset {
  std::string name;
  std::string path;
  std::vector<Scene> scenes;
};

/// One method x backend: the matcher is made once and serves every cell of the lane.
struct Lane {
  const MethodInfo* info = nullptr;
  std::string backend;
  std::unique_ptr<Matcher> matcher;
  std::optional<std::string> reason;  ///< why the lane cannot run (unavailable, or creation threw)
  json params = nullptr, device_info = nullptr;
  std::string device;
  [[nodiscard]] std::string label() const { return info->name + "/" + backend; }
  [[nodiscard]] bool on_cpu() const { return device.rfind("CPU", 0) == 0; }
};

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

/// The fields every row has, filled from the lane.
json base_row(const Lane& lane, const char* kind, const std::string& input) {
  json row = {{"kind", kind}, {"method", lane.info->name}, {"backend", lane.backend}, {"input", input},
              {"status", "ok"}, {"reason", nullptr}, {"params", lane.params}, {"device", lane.device},
              {"device_info", lane.device_info}, {"cpu", nullptr}, {"cpu_threads", nullptr}};
  if (lane.on_cpu()) {
    // A CPU backend that takes a `threads` parameter says how many it used; 0 or none = all.
    const int asked = lane.params.is_object() && lane.params.contains("threads") && lane.params["threads"].is_number()
                          ? lane.params["threads"].get<int>()
                          : 0;
    row["cpu"] = lane.device;
    row["cpu_threads"] = asked > 0 ? unsigned(asked) : ThreadPool::hardware_threads();
  }
  return row;
}

void add_times(json& row, int width, int height, int levels, double total_ms) {
  row["mdes"] = mdes(width, height, levels, total_ms);
  row["ns_per_de"] = total_ms > 0 ? total_ms * 1e6 / (double(width) * double(height) * double(levels)) : 0.0;
}

constexpr const char* TIME_INCLUDES =
    "total_ms = upload of both images + algorithm + read-back of the disparity map (CPU backends copy nothing: "
    "upload and read-back are 0); input generation and matcher creation excluded";

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

/// A paper setting's parameter overrides as JSON ({} for none), as speed rows carry them.
json set_json(const BenchConfig& b) {
  json set = json::object();
  if (b.paper)
    for (const auto& [key, value] : b.paper->set) set[key] = value;
  return set;
}

/// ", wavelets=30": a paper setting's overrides for the progress line; empty for none.
std::string set_text(const BenchConfig& b) {
  std::string t;
  if (b.paper)
    for (const auto& [key, value] : b.paper->set) t += ", " + key + "=" + value;
  return t;
}

json speed_row(Lane& lane, const Cell& c, int repeats, const WarmUp& warmup, double reference_max_mde) {
  const BenchConfig& b = c.config;
  json row = base_row(lane, "speed", std::to_string(b.width) + "x" + std::to_string(b.height) + " synthetic");
  row.update({{"setting", c.setting}, {"width", b.width}, {"height", b.height}, {"min_disparity", b.range.min},
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
    own = create_matcher(lane.info->name, lane.backend, b.paper->set);
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
  json j = bench_one(own ? *own : *lane.matcher, *lane.info, lane.backend, b, repeats, warmup);
  for (const char* key : {"clock", "algorithm_ms", "upload_ms", "readback_ms", "total_ms", "total_ms_min",
                          "total_ms_max", "algorithm_ms_min", "algorithm_ms_max", "runs", "warmup_runs", "fps",
                          "mdes_algorithm", "stages", "copy_gb_s", "paper"})
    if (j.contains(key)) row[key] = j[key];
  add_times(row, b.width, b.height, b.range.count, j["total_ms"].get<double>());
  return row;
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

  std::vector<std::string> dataset_paths = a.datasets;
  if (dataset_paths.empty() && !a.no_accuracy) {
    for (const char* d : {"middlebury-v2", "middlebury-v3-quarter"})
      if (fs::is_directory(data_root() / d)) dataset_paths.push_back((data_root() / d).string());
    require(!dataset_paths.empty(), "compare: no DATASET given and none under " + data_root().string() +
                                        " (set STEREO_DATA, pass folders, or --no-accuracy)");
  }
  std::vector<Dataset> datasets;
  if (!a.no_accuracy)
    for (const std::string& p : dataset_paths) datasets.push_back({dataset_name(p), p, load_dataset(p)});

  const fs::path out = a.out;
  std::error_code ec;
  fs::create_directories(out, ec);
  require(!ec, "compare: cannot create " + out.string() + ": " + ec.message());

  // Each scene's left view and ground truth once, for the montages.
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

  std::vector<Lane> lanes;
  json backends = json::array();
  for (const MethodInfo* m : methods)
    for (const std::string& b : reg.backends(m->name)) {
      if (!a.backends.empty() && std::find(a.backends.begin(), a.backends.end(), b) == a.backends.end()) continue;
      Lane lane;
      lane.info = m;
      lane.backend = b;
      lane.reason = unavailable(reg.find(m->name, b));
      if (!lane.reason) {
        try {
          lane.matcher = create_matcher(m->name, b, {});
          lane.params = lane.matcher->params();
          lane.device = lane.matcher->device();
          lane.device_info = lane.matcher->device_info();
        } catch (const std::exception& e) {
          lane.reason = std::string("could not be created: ") + e.what();
        }
      }
      backends.push_back({{"method", m->name}, {"backend", b}, {"available", !lane.reason},
                          {"reason", lane.reason ? json(*lane.reason) : json(nullptr)}, {"device", lane.device},
                          {"device_info", lane.device_info}, {"params", lane.params}});
      if (lane.reason) std::cerr << "compare: " << lane.label() << " not run: " << *lane.reason << "\n";
      lanes.push_back(std::move(lane));
    }

  std::vector<Cell> cells;
  for (std::size_t li = 0; li < lanes.size(); ++li) {
    if (lanes[li].reason) continue;
    for (std::size_t di = 0; di < datasets.size(); ++di)
      for (std::size_t si = 0; si < datasets[di].scenes.size(); ++si) cells.push_back(accuracy_cell(li, di, si));
    if (a.no_speed) continue;
    const MethodInfo& info = *lanes[li].info;
    // A grid cell runs the lane's parameters, so it stands for a paper setting only where the
    // setting's overrides are those parameters; the other settings get cells of their own.
    const auto paper_setting = [&](int w, int h, int levels) -> std::optional<PaperSpeed> {
      for (const PaperSpeed& s : info.speed)
        if (s.width == w && s.height == h && s.levels == levels && set_holds(s.set, lanes[li].params)) return s;
      return std::nullopt;
    };
    for (const auto& [w, h] : sizes)
      for (int l : a.levels) cells.push_back(speed_cell(li, {w, h, {0, l}, paper_setting(w, h, l)}, "grid"));
    if (a.no_paper_speed) continue;
    for (const PaperSpeed& s : info.speed) {
      const bool in_grid = std::find(sizes.begin(), sizes.end(), std::pair{s.width, s.height}) != sizes.end() &&
                           std::find(a.levels.begin(), a.levels.end(), s.levels) != a.levels.end() &&
                           set_holds(s.set, lanes[li].params);
      if (!in_grid) cells.push_back(speed_cell(li, {s.width, s.height, {0, s.levels}, s}, "paper"));
    }
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
            << a.repeats << " repeats per speed cell; writing " << out.string() << "\n";
  // Cells run lane by lane; a lane's matcher is released after its last cell, so GPU buffers
  // sized for the largest input are not held while the next lanes run.
  std::vector<std::size_t> last_cell(lanes.size(), cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) last_cell[cells[i].lane] = i;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Cell& c = cells[i];
    Lane& lane = lanes[c.lane];
    const std::string what = c.accuracy ? "accuracy " + datasets[c.dataset].name + "/" +
                                              datasets[c.dataset].scenes[c.scene].name
                                        : "speed " + std::to_string(c.config.width) + "x" +
                                              std::to_string(c.config.height) + " x " +
                                              std::to_string(c.config.range.count) + " (" + c.setting +
                                              set_text(c.config) + ")";
    json row;
    try {
      row = c.accuracy ? accuracy_row(lane, datasets[c.dataset], datasets[c.dataset].scenes[c.scene], out,
                                      scene_maps[c.dataset][c.scene])
                       : speed_row(lane, c, a.repeats, warmup, a.reference_max_mde);
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
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "[" << (i + 1) << "/" << cells.size() << "] " << fmt(elapsed, 1) << " s  " << lane.label() << "  "
              << what << ": " << cell_text(row) << std::endl;
    doc["rows"].push_back(std::move(row));
    write_json(out / "results.json", doc);
    if (last_cell[c.lane] == i) lane.matcher.reset();
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
                "scene folders or folders of scenes (default: middlebury-v2 and middlebury-v3-quarter under "
                "$STEREO_DATA)");
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
