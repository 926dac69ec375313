// The core commands. They name no method: titles, citations, the papers' accuracy tables and
// speed settings all come from the registry's MethodInfo (host/methods/<name>.cpp).

#include "app/cli/commands.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include "app/dataset.h"
#include "core/error.h"
#include "app/image_io.h"
#include "app/listing.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "app/revision.h"
#include "app/synth.h"
#include "app/cli/bench_command.h"
#include "app/cli/method_choice.h"
#include "app/cli/compare_command.h"
#include "app/measure.h"
#include "methods/builtin.h"
#include "core/validate.h"

namespace stereo::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// ---- shared helpers --------------------------------------------------------------------

void print_params(const std::string& method, const std::string& backend, const Matcher& m) {
  std::cout << method << "/" << backend << " on " << m.device() << "\nparams: " << m.params().dump() << "\n";
}

// ---- list, params ----------------------------------------------------------------------

void cmd_list(bool as_json) {
  if (as_json) std::cout << list_json(builtin_registry()).dump(2) << "\n";
  else std::cout << list_text(builtin_registry());
}

void cmd_params(const std::string& method, bool as_json) {
  if (as_json) std::cout << params_json(builtin_registry(), method).dump(2) << "\n";
  else std::cout << params_text(builtin_registry(), method);
}

// ---- run -------------------------------------------------------------------------------

struct RunArgs {
  std::string left, right, out, png16, color, dsi;
  int levels = 64;
  int min_disparity = 0;
  bool json_out = false;
  MethodChoice choice;
};

void check_output_folder(const std::string& path) {
  if (path.empty()) return;
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  require(parent.empty() || fs::is_directory(parent, ec), "cannot write " + path + ": folder " + parent.string() + " does not exist");
  require(!fs::is_directory(path, ec), "cannot write " + path + ": it is a folder");
}

// The DSI as raw little-endian float32 (DisparitySpaceImage's layout) and a JSON sidecar
// PATH.json with its dimensions and meaning, so a reader needs no header parser.
void write_dsi(const std::string& path, const DisparitySpaceImage& dsi) {
  write_atomically(path, [&](const fs::path& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    out.write(reinterpret_cast<const char*>(dsi.data.data()), std::streamsize(dsi.data.size() * sizeof(float)));
    require(bool(out), "cannot write " + path + " (disk full?)");
  });
  const json side = {{"format", "raw float32, little-endian, index (level * height + y) * width + x"},
                     {"width", dsi.width}, {"height", dsi.height}, {"levels", dsi.range.count},
                     {"min_disparity", dsi.range.min}, {"meaning", dsi.meaning}, {"better", dsi.better}};
  write_atomically(path + ".json", [&](const fs::path& tmp) {
    std::ofstream meta(tmp);
    meta << side.dump(2) << "\n";
    require(bool(meta), "cannot write " + path + ".json");
  });
}

void cmd_run(const RunArgs& a) {
  for (const auto& p : {a.out, a.png16, a.color, a.dsi}) check_output_folder(p);
  const DisparityRange range{a.min_disparity, a.levels};
  const ImageU8 left = to_rgb(read_image(a.left));
  const ImageU8 right = to_rgb(read_image(a.right));
  validate_pair(left, right, range, "run");
  auto matcher = create_matcher(a.choice.method, a.choice.backend, a.choice.overrides());
  if (!a.dsi.empty()) matcher->request_cost_volume(true);
  if (!a.json_out) print_params(a.choice.method, a.choice.backend, *matcher);
  const StereoResult r = matcher->compute(left, right, range);
  write_pfm(a.out, r.disparity);
  if (!a.dsi.empty()) {
    require(r.dsi.has_value(), "run: " + matcher->component() + " returned no cost volume for --dsi");
    write_dsi(a.dsi, *r.dsi);
  }
  if (!a.png16.empty()) write_disparity_png16(a.png16, r.disparity);
  if (!a.color.empty()) write_png(a.color, colorize_range(r.disparity, range));
  const double total = r.timing.total_ms();
  if (a.json_out) {
    json j = {{"method", a.choice.method}, {"backend", a.choice.backend}, {"revision", source_revision()},
              {"device", matcher->device()}, {"device_info", matcher->device_info()},
              {"params", matcher->params()}, {"width", left.width}, {"height", left.height},
              {"min_disparity", range.min}, {"levels", range.count},
              {"timing", timing_json(r.timing)}, {"mdes", mdes(left.width, left.height, range.count, total)},
              {"mdes_algorithm", mdes(left.width, left.height, range.count, r.timing.algorithm_ms)},
              {"outputs", {{"pfm", a.out}, {"png16", a.png16.empty() ? json(nullptr) : json(a.png16)},
                           {"color", a.color.empty() ? json(nullptr) : json(a.color)}}}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << left.width << "x" << left.height << ", disparities " << range_text(range) << " (" << range.count
            << " levels): algorithm " << fmt(r.timing.algorithm_ms) << " ms, upload " << fmt(r.timing.upload_ms)
            << " ms, read-back " << fmt(r.timing.readback_ms) << " ms, total " << fmt(total) << " ms ("
            << r.timing.clock << ", one cold run)\n"
            << "throughput " << fmt(mdes(left.width, left.height, range.count, total), 1)
            << " Mde/s including upload and read-back\n"
            << "disparity: " << a.out << "\n";
  if (!a.png16.empty()) std::cout << "16-bit PNG: " << a.png16 << "\n";
  if (!a.color.empty()) std::cout << "colour map: " << a.color << " (ramp over " << range_text(range) << ")\n";
  if (!a.dsi.empty())
    std::cout << "DSI: " << a.dsi << " (raw float32 " << left.width << " x " << left.height << " x " << range.count
              << ", x fastest, then y, then level = disparity - " << range.min << "; " << r.dsi->meaning << ", "
              << r.dsi->better << " is better; described in " << a.dsi << ".json)\n";
}

// ---- eval ------------------------------------------------------------------------------

struct EvalArgs {
  std::string dataset, out;
  std::optional<double> threshold;
  std::vector<double> also_thresholds;  ///< more thresholds evaluated on the same maps
  bool json_out = false;
  MethodChoice choice;
};

/// Sums for one column (nonocc, all or disc) of the averages.
struct ColumnSums {
  double ours = 0.0;    ///< over every scene with our figure
  int n = 0;
  double ours_vs = 0.0;  ///< over the scenes where the paper has a figure too
  double paper = 0.0;
  int n_vs = 0;

  void add(const std::optional<double>& mine, const std::optional<double>& theirs) {
    if (!mine) return;
    ours += *mine, ++n;
    if (theirs) ours_vs += *mine, paper += *theirs, ++n_vs;
  }
  [[nodiscard]] std::optional<double> average() const { return n ? std::optional(ours / n) : std::nullopt; }
  [[nodiscard]] std::optional<double> average_vs() const { return n_vs ? std::optional(ours_vs / n_vs) : std::nullopt; }
  [[nodiscard]] std::optional<double> paper_average() const {
    return n_vs ? std::optional(paper / n_vs) : std::nullopt;
  }
};

// Column widths of the eval table, shared by the header, the rows and the averages.
constexpr int W_SCENE = 14, W_SIZE = 10, W_RANGE = 12, W_BAD = 8, W_TIME = 10, W_MDES = 9;

void print_eval_header() {
  std::cout << std::left << std::setw(W_SCENE) << "scene" << std::right << std::setw(W_SIZE) << "size"
            << std::setw(W_RANGE) << "disparities" << std::setw(W_BAD) << "nonocc" << std::setw(W_BAD) << "all"
            << std::setw(W_BAD) << "disc" << std::setw(W_BAD) << "avg err" << std::setw(W_BAD) << "density"
            << std::setw(W_TIME) << "time ms" << std::setw(W_MDES) << "Mde/s"
            << "  | paper: " << std::setw(W_BAD - 2) << "nonocc" << std::setw(W_BAD) << "all" << std::setw(W_BAD)
            << "disc" << "\n";
}

std::string paper_cells(const std::optional<double>& nonocc, const std::optional<double>& all,
                        const std::optional<double>& disc) {
  std::ostringstream s;
  s << "  |        " << std::setw(W_BAD - 2) << fmt(nonocc) << std::setw(W_BAD) << fmt(all) << std::setw(W_BAD)
    << fmt(disc);
  return s.str();
}

void cmd_eval(const EvalArgs& a) {
  require(!a.threshold || *a.threshold >= 0.0, "eval: --threshold must be >= 0");
  for (double t : a.also_thresholds) require(t >= 0.0, "eval: --also-threshold must be >= 0, got " + fmt(t));
  const std::vector<Scene> scenes = load_dataset(a.dataset);
  if (!a.out.empty()) {
    std::error_code ec;
    fs::create_directories(a.out, ec);
    require(!ec, "cannot create output folder " + a.out + ": " + ec.message());
  }
  auto matcher = create_matcher(a.choice.method, a.choice.backend, a.choice.overrides());
  const MethodInfo& info = builtin_registry().method(a.choice.method);
  const json params = matcher->params();

  // Each scene's format brings its own threshold (v2: 1, MiddEval3: 2); --threshold overrides all.
  std::vector<double> thresholds;
  for (const Scene& s : scenes) thresholds.push_back(a.threshold.value_or(s.default_threshold));
  const bool uniform = std::all_of(thresholds.begin(), thresholds.end(), [&](double t) { return t == thresholds[0]; });
  // The paper's figures are at its own threshold; beside any other they would mislead.
  const auto paper_applies = [&](double threshold) { return threshold == info.accuracy_threshold; };

  if (!a.json_out) {
    print_params(a.choice.method, a.choice.backend, *matcher);
    std::cout << "bad pixels (%): |d - gt| > ";
    if (uniform) {
      std::cout << thresholds[0] << " px" << (a.threshold ? "" : " (the format's default; --threshold changes it)");
    } else {
      std::cout << "the format's threshold per scene:";
      for (std::size_t i = 0; i < scenes.size(); ++i) std::cout << " " << scenes[i].name << " " << thresholds[i];
    }
    std::cout << "\ntime = one run including upload and read-back"
              << (a.choice.backend != "cpu" ? ", after one warm-up run of the scene" : "") << "\n";
    if (info.accuracy.empty())
      std::cout << "paper: " << info.citation << " gives no accuracy table\n";
    else
      std::cout << "paper: " << info.citation << ", " << info.accuracy_source
                << (std::any_of(thresholds.begin(), thresholds.end(), paper_applies)
                        ? ""
                        : "; not shown: its threshold is " + fmt(info.accuracy_threshold, 1) + " px")
                << "\n";
    std::cout << "\n";
    print_eval_header();
  }
  json rows = json::array();
  ColumnSums sum_nonocc, sum_all, sum_disc;
  // --also-threshold: nonocc and all at each extra threshold, per scene (printed after the table).
  std::vector<ColumnSums> also_nonocc(a.also_thresholds.size()), also_all(a.also_thresholds.size());
  std::vector<std::string> also_lines;
  std::vector<std::string> paper_scenes;
  // GPU backends run each scene once untimed first (allocation for the size, shader
  // compilation, module load), so the time is the method's; the CPU reference runs once.
  const bool warm_up = a.choice.backend != "cpu";
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    const Scene& s = scenes[i];
    const double threshold = thresholds[i];
    const DisparityRange range = s.range();
    if (warm_up) matcher->compute(s.left, s.right, range);
    const StereoResult r = matcher->compute(s.left, s.right, range);
    const double total = r.timing.total_ms();
    std::optional<Metrics> m;
    if (s.has_ground_truth()) m = evaluate(r.disparity, s, threshold);
    const std::optional<PaperAccuracy> paper =
        m && paper_applies(threshold) ? info.paper_accuracy(s.name, params) : std::nullopt;
    json row = {{"name", s.name}, {"width", s.left.width}, {"height", s.left.height},
                {"min_disparity", range.min}, {"levels", range.count}, {"threshold", threshold},
                {"nonocc", m ? optional_json(m->bad_nonocc) : json(nullptr)},
                {"all", m ? optional_json(m->bad_all) : json(nullptr)},
                {"disc", m ? optional_json(m->bad_disc) : json(nullptr)},
                {"avg_error", m ? optional_json(m->avg_error) : json(nullptr)},
                {"density", m ? json(m->density) : json(nullptr)},
                {"d1_all", m ? optional_json(m->d1_all) : json(nullptr)},
                {"time_ms", total}, {"mdes", mdes(s.left.width, s.left.height, range.count, total)},
                {"timing", timing_json(r.timing)},
                {"paper", paper ? json{{"nonocc", optional_json(paper->nonocc)}, {"all", optional_json(paper->all)},
                                       {"disc", optional_json(paper->disc)}}
                                : json(nullptr)}};
    if (m) {
      sum_nonocc.add(m->bad_nonocc, paper ? paper->nonocc : std::nullopt);
      sum_all.add(m->bad_all, paper ? paper->all : std::nullopt);
      sum_disc.add(m->bad_disc, paper ? paper->disc : std::nullopt);
    }
    if (paper) paper_scenes.push_back(s.name);
    if (m && !a.also_thresholds.empty()) {
      json also = json::array();
      std::ostringstream line;
      line << std::left << std::setw(W_SCENE) << s.name << std::right;
      for (std::size_t j = 0; j < a.also_thresholds.size(); ++j) {
        const Metrics mt = evaluate(r.disparity, s, a.also_thresholds[j]);
        also.push_back({{"threshold", a.also_thresholds[j]}, {"nonocc", optional_json(mt.bad_nonocc)},
                        {"all", optional_json(mt.bad_all)}});
        also_nonocc[j].add(mt.bad_nonocc, std::nullopt);
        also_all[j].add(mt.bad_all, std::nullopt);
        line << std::setw(W_BAD + 2) << fmt(mt.bad_nonocc) << std::setw(W_BAD) << fmt(mt.bad_all);
      }
      row["also"] = also;
      also_lines.push_back(line.str());
    }
    if (!a.out.empty()) {
      const fs::path base = fs::path(a.out) / s.name;
      write_pfm(base.string() + ".pfm", r.disparity);
      write_png(base.string() + "_color.png", colorize_range(r.disparity, range));
      row["outputs"] = {{"pfm", base.string() + ".pfm"}, {"color", base.string() + "_color.png"}};
      if (s.has_ground_truth()) {
        write_png(base.string() + "_error.png", error_map(r.disparity, s, threshold));
        write_png(base.string() + "_gt_color.png", colorize_range(s.gt, range));
        row["outputs"]["error"] = base.string() + "_error.png";
        row["outputs"]["gt_color"] = base.string() + "_gt_color.png";
      }
    }
    if (!a.json_out) {
      std::cout << std::left << std::setw(W_SCENE) << s.name << std::right << std::setw(W_SIZE)
                << (std::to_string(s.left.width) + "x" + std::to_string(s.left.height)) << std::setw(W_RANGE)
                << range_text(range) << std::setw(W_BAD) << (m ? fmt(m->bad_nonocc) : "-") << std::setw(W_BAD)
                << (m ? fmt(m->bad_all) : "-") << std::setw(W_BAD) << (m ? fmt(m->bad_disc) : "-")
                << std::setw(W_BAD) << (m ? fmt(m->avg_error) : "-") << std::setw(W_BAD)
                << (m ? fmt(m->density, 1) : "-") << std::setw(W_TIME) << fmt(total) << std::setw(W_MDES)
                << fmt(mdes(s.left.width, s.left.height, range.count, total), 1)
                << (paper ? paper_cells(paper->nonocc, paper->all, paper->disc)
                          : paper_cells(std::nullopt, std::nullopt, std::nullopt))
                << "\n";
      if (!a.out.empty())
        std::cout << "    -> " << row["outputs"]["pfm"].get<std::string>() << ", "
                  << row["outputs"]["color"].get<std::string>()
                  << (s.has_ground_truth() ? ", " + row["outputs"]["error"].get<std::string>() : "") << "\n";
    }
    rows.push_back(row);
  }
  json doc = {{"method", a.choice.method},
              {"backend", a.choice.backend},
              {"revision", source_revision()},
              {"device", matcher->device()}, {"device_info", matcher->device_info()},
              {"params", params},
              {"threshold", uniform ? json(thresholds[0]) : json(nullptr)},
              {"scenes", rows},
              {"average", {{"nonocc", optional_json(sum_nonocc.average())},
                           {"all", optional_json(sum_all.average())},
                           {"disc", optional_json(sum_disc.average())}}},
              {"paper", {{"citation", info.citation}, {"source", info.accuracy_source},
                         {"threshold", info.accuracy_threshold}, {"scenes", paper_scenes}}}};
  // Ours and the paper's, each averaged over the scenes where both have the column's figure.
  json paper_average = json::object();
  const std::pair<const char*, const ColumnSums*> columns[] = {{"nonocc", &sum_nonocc}, {"all", &sum_all}, {"disc", &sum_disc}};
  for (const auto& [name, c] : columns)
    paper_average[name] = {{"ours", optional_json(c->average_vs())}, {"paper", optional_json(c->paper_average())},
                           {"scenes", c->n_vs}};
  doc["paper_average"] = paper_average;
  if (!a.also_thresholds.empty()) {
    json also = json::array();
    for (std::size_t j = 0; j < a.also_thresholds.size(); ++j)
      also.push_back({{"threshold", a.also_thresholds[j]}, {"nonocc", optional_json(also_nonocc[j].average())},
                      {"all", optional_json(also_all[j].average())}});
    doc["also_average"] = also;
  }
  if (!a.out.empty()) {
    const fs::path result = fs::path(a.out) / "result.json";
    write_atomically(result, [&](const fs::path& tmp) {
      std::ofstream f(tmp);
      f << doc.dump(2) << "\n";
      if (!f) throw Error("cannot write " + result.string());
    });
  }
  if (a.json_out) {
    std::cout << doc.dump(2) << "\n";
    return;
  }
  const int lead = W_SCENE + W_SIZE + W_RANGE;
  if (sum_nonocc.n + sum_all.n + sum_disc.n > 0)
    std::cout << std::left << std::setw(lead) << "average" << std::right << std::setw(W_BAD)
              << fmt(sum_nonocc.average()) << std::setw(W_BAD) << fmt(sum_all.average()) << std::setw(W_BAD)
              << fmt(sum_disc.average()) << "\n";
  if (!paper_scenes.empty())
    std::cout << std::left << std::setw(lead)
              << ("vs paper (" + std::to_string(paper_scenes.size()) + (paper_scenes.size() == 1 ? " scene)" : " scenes)"))
              << std::right << std::setw(W_BAD) << fmt(sum_nonocc.average_vs()) << std::setw(W_BAD)
              << fmt(sum_all.average_vs()) << std::setw(W_BAD) << fmt(sum_disc.average_vs())
              << std::string(2 * W_BAD + W_TIME + W_MDES, ' ')
              << paper_cells(sum_nonocc.paper_average(), sum_all.paper_average(), sum_disc.paper_average()) << "\n"
              << "(vs paper: ours and the paper's, each over the scenes where both give that column)\n";
  if (!also_lines.empty()) {
    std::cout << "\nbad pixels (%) at other thresholds on the same maps, nonocc / all:\n"
              << std::left << std::setw(W_SCENE) << "scene" << std::right;
    for (double t : a.also_thresholds)
      std::cout << std::setw(W_BAD + 2) << ("> " + fmt(t, 1)) << std::setw(W_BAD) << "";
    std::cout << "\n";
    for (const std::string& line : also_lines) std::cout << line << "\n";
    std::cout << std::left << std::setw(W_SCENE) << "average" << std::right;
    for (std::size_t j = 0; j < a.also_thresholds.size(); ++j)
      std::cout << std::setw(W_BAD + 2) << fmt(also_nonocc[j].average()) << std::setw(W_BAD)
                << fmt(also_all[j].average());
    std::cout << "\n";
  }
}

}  // namespace

void add_core_commands(CLI::App& app) {
  auto* list = app.add_subcommand("list", "list every method (title, paper) and its backends, and whether each runs here");
  auto list_as_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_as_json, "print JSON: each method's paper figures and parameters, and every backend");
  list->callback([list_as_json] { cmd_list(*list_as_json); });

  auto params_method = std::make_shared<std::string>();
  auto params_as_json = std::make_shared<bool>(false);
  auto* pa = app.add_subcommand("params", "print a method's parameters with their defaults and sources, then each "
                                          "backend's own options");
  pa->add_option("-m,--method", *params_method, "method name (see `stereo list`)")->required();
  pa->add_flag("--json", *params_as_json, "print JSON");
  pa->callback([params_method, params_as_json] { cmd_params(*params_method, *params_as_json); });

  auto run = std::make_shared<RunArgs>();
  auto* r = app.add_subcommand("run", "compute the disparity map of one pair");
  r->add_option("LEFT", run->left, "left (reference) image")->required();
  r->add_option("RIGHT", run->right, "right image")->required();
  run->choice.add_to(r);
  r->add_option("-d,--levels", run->levels, "number of disparities searched: MIN .. MIN+LEVELS-1")->capture_default_str();
  r->add_option("--min-disparity", run->min_disparity, "smallest disparity searched (may be negative)")
      ->capture_default_str();
  r->add_option("-o,--out", run->out, "disparity map, PFM (inf = none)")->required();
  r->add_option("--png", run->png16, "also a 16-bit PNG, disparity x 256 (KITTI convention)");
  r->add_option("--color", run->color, "also a colour-mapped PNG for people (ramp over the searched range)");
  r->add_option("--dsi", run->dsi,
                "also the cost volume (DSI), raw float32 x-y-level with a PATH.json description (methods that have one)");
  r->add_flag("--json", run->json_out, "print JSON");
  r->callback([run] { cmd_run(*run); });

  auto ev = std::make_shared<EvalArgs>();
  auto* e = app.add_subcommand("eval", "run a method over a dataset and evaluate against ground truth");
  e->add_option("DATASET", ev->dataset, "a scene folder or a folder of scenes (each searched over its own range)")
      ->required();
  ev->choice.add_to(e);
  e->add_option("--threshold", ev->threshold,
                "bad-pixel threshold in pixels (default: the scene format's, 1.0 for Middlebury v2)");
  e->add_option("--also-threshold", ev->also_thresholds,
                "also report bad nonocc/all at this threshold, on the same maps (repeatable)");
  e->add_option("--out", ev->out, "write disparity (PFM), colour and error pictures and result.json here");
  e->add_flag("--json", ev->json_out, "print JSON");
  e->callback([ev] { cmd_eval(*ev); });

  add_bench_command(app);
  add_compare_commands(app);
}

}  // namespace stereo::cli
