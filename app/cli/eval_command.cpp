// `stereo eval`: a method over a dataset, scored against ground truth under a protocol
// (app/protocol.h): the maps as the format's benchmark received them, or as computed. The
// paper's figures sit beside the scores made under the protocol the paper was scored under.

#include "app/cli/eval_command.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/eval_table.h"
#include "app/cli/method_choice.h"
#include "app/dataset.h"
#include "app/image_io.h"
#include "app/measure.h"
#include "app/metrics.h"
#include "app/parallel/device_pool.h"
#include "app/parallel/ranks.h"
#include "app/protocol.h"
#include "app/revision.h"
#include "core/error.h"
#include "methods/builtin.h"

namespace stereo::cli {
namespace fs = std::filesystem;
using nlohmann::json;
using namespace eval;

namespace {

struct EvalArgs {
  std::string dataset, out;
  std::optional<double> threshold;
  std::vector<double> also_thresholds;  ///< more thresholds evaluated on the same maps
  std::string protocol = "submitted";
  bool json_out = false;
  std::string devices;  ///< --devices: "0,1" or "all"; empty = the one device of --device
  MethodChoice choice;
};

json metrics_json(const Metrics& m) {
  return {{"nonocc", optional_json(m.bad_nonocc)}, {"all", optional_json(m.bad_all)},
          {"disc", optional_json(m.bad_disc)},     {"avg_error", optional_json(m.avg_error)},
          {"density", m.density},                  {"d1_all", optional_json(m.d1_all)}};
}

/// What the header says of the scoring: the protocol, and each scene's submission rule once.
void print_scoring(ScoreProtocol protocol, ScoreProtocol paper_protocol, const std::vector<Scene>& scenes,
                   bool paper_shown) {
  std::cout << "scored: "
            << (protocol == ScoreProtocol::submitted ? "maps as each benchmark received them (--protocol submitted)"
                                                     : "float maps as computed (--protocol float)");
  if (paper_shown && paper_protocol != protocol)
    std::cout << "; the paper's columns and the vs-paper row: maps " << to_string(paper_protocol)
              << ", as the paper was scored";
  std::cout << "\n";
  std::vector<std::string> rules;
  for (const Scene& s : scenes) {
    const std::string rule = submission_rule(s).text;
    const auto seen = std::find(rules.begin(), rules.end(), rule);
    if (seen == rules.end()) rules.push_back(rule);
  }
  for (const std::string& rule : rules) {
    std::cout << "  submitted as " << rule << ":";
    for (const Scene& s : scenes)
      if (submission_rule(s).text == rule) std::cout << " " << s.name;
    std::cout << "\n";
  }
}

/// What every scene's row is made with: the run's choices, the same on every worker and rank.
struct EvalPlan {
  const EvalArgs* args = nullptr;
  std::vector<Scene> scenes;
  std::vector<double> thresholds;  ///< per scene
  ScoreProtocol protocol = ScoreProtocol::submitted, other = ScoreProtocol::float_maps;
  const MethodInfo* info = nullptr;
  json params;
  [[nodiscard]] bool paper_applies(double threshold) const { return threshold == info->accuracy_threshold; }
};

/// Scene `i` matched on `matcher`, scored under both protocols, its pictures written: its row
/// of the table and of result.json. Everything the table and the averages need is in the row.
json scene_row(const EvalPlan& p, Matcher& matcher, std::size_t i) {
  const EvalArgs& a = *p.args;
  const Scene& s = p.scenes[i];
  const double threshold = p.thresholds[i];
  const DisparityRange range = s.range();
  // GPU backends run each scene once untimed first (allocation for the size, shader
  // compilation, module load), so the time is the method's; the CPU reference runs once.
  if (a.choice.backend != "cpu") matcher.compute(s.left, s.right, range);
  const StereoResult r = matcher.compute(s.left, s.right, range);
  const double total = r.timing.total_ms();
  const SubmissionRule rule = submission_rule(s);
  // The map this run scores, and the scores under both protocols where the format quantises.
  const ImageF scored = scored_map(r.disparity, s, p.protocol);
  std::optional<Metrics> m, m_other;
  if (s.has_ground_truth()) {
    m = evaluate(scored, s, threshold);
    m_other = rule.quantizes ? evaluate(scored_map(r.disparity, s, p.other), s, threshold) : *m;
  }
  const std::optional<PaperAccuracy> paper =
      m && p.paper_applies(threshold) ? p.info->paper_accuracy(s.name, p.params) : std::nullopt;
  json row = {{"name", s.name}, {"width", s.left.width}, {"height", s.left.height},
              {"min_disparity", range.min}, {"levels", range.count}, {"threshold", threshold},
              {"nonocc", m ? optional_json(m->bad_nonocc) : json(nullptr)},
              {"all", m ? optional_json(m->bad_all) : json(nullptr)},
              {"disc", m ? optional_json(m->bad_disc) : json(nullptr)},
              {"avg_error", m ? optional_json(m->avg_error) : json(nullptr)},
              {"density", m ? json(m->density) : json(nullptr)},
              {"d1_all", m ? optional_json(m->d1_all) : json(nullptr)},
              {"submission_rule", rule.text},
              {to_string(p.protocol), m ? metrics_json(*m) : json(nullptr)},
              {to_string(p.other), m_other ? metrics_json(*m_other) : json(nullptr)},
              {"time_ms", total}, {"mdes", mdes(s.left.width, s.left.height, range.count, total)},
              {"timing", timing_json(r.timing)},
              {"paper", paper ? json{{"nonocc", optional_json(paper->nonocc)}, {"all", optional_json(paper->all)},
                                     {"disc", optional_json(paper->disc)}}
                              : json(nullptr)}};
  if (m && !a.also_thresholds.empty()) {
    json also = json::array();
    for (const double t : a.also_thresholds) {
      const Metrics mt = evaluate(scored, s, t);
      also.push_back({{"threshold", t}, {"nonocc", optional_json(mt.bad_nonocc)}, {"all", optional_json(mt.bad_all)}});
    }
    row["also"] = also;
  }
  if (!a.out.empty()) {
    // The map as computed (PFM, colour); the error picture of the map as scored.
    const fs::path base = fs::path(a.out) / s.name;
    write_pfm(base.string() + ".pfm", r.disparity);
    write_png(base.string() + "_color.png", colorize_range(r.disparity, range));
    row["outputs"] = {{"pfm", base.string() + ".pfm"}, {"color", base.string() + "_color.png"}};
    if (s.has_ground_truth()) {
      write_png(base.string() + "_error.png", error_map(scored, s, threshold));
      write_png(base.string() + "_gt_color.png", colorize_range(s.gt, range));
      row["outputs"]["error"] = base.string() + "_error.png";
      row["outputs"]["gt_color"] = base.string() + "_gt_color.png";
    }
  }
  return row;
}

void cmd_eval(const EvalArgs& a) {
  parallel::Ranks ranks("eval");
  EvalPlan p;
  p.args = &a;
  std::vector<std::unique_ptr<Matcher>> matchers;
  std::vector<int> ordinals;
  std::optional<ParamPreset> preset;
  std::exception_ptr error;
  try {
    require(!a.threshold || *a.threshold >= 0.0, "eval: --threshold must be >= 0");
    for (double t : a.also_thresholds) require(t >= 0.0, "eval: --also-threshold must be >= 0, got " + fmt(t));
    p.protocol = parse_protocol(a.protocol);
    p.other = p.protocol == ScoreProtocol::submitted ? ScoreProtocol::float_maps : ScoreProtocol::submitted;
    p.scenes = load_dataset(resolve_dataset(a.dataset));  // a path, or a name under the data root
    if (!a.out.empty()) {
      std::error_code ec;
      fs::create_directories(a.out, ec);
      require(!ec, "cannot create output folder " + a.out + ": " + ec.message());
    }
    matchers = parallel::place_matchers(
        a.devices, a.choice.backend, "eval", ranks,
        [&] { return create_matcher(a.choice.method, a.choice.backend, a.choice.overrides()); }, ordinals);
    p.info = &builtin_registry().method(a.choice.method);
    p.params = matchers.front()->params();
    preset = a.choice.preset();
  } catch (...) {
    error = std::current_exception();
  }
  ranks.agree(error);
  const MethodInfo& info = *p.info;
  const std::vector<Scene>& scenes = p.scenes;
  const Matcher& matcher = *matchers.front();
  const json& params = p.params;
  // Each scene's format brings its own threshold (v2: 1, MiddEval3: 2); --threshold overrides all.
  for (const Scene& s : scenes) p.thresholds.push_back(a.threshold.value_or(s.default_threshold));
  const std::vector<double>& thresholds = p.thresholds;
  const bool uniform = std::all_of(thresholds.begin(), thresholds.end(), [&](double t) { return t == thresholds[0]; });
  // The paper's figures are at its own threshold; beside any other they would mislead.
  const bool paper_shown = std::any_of(thresholds.begin(), thresholds.end(),
                                       [&](double t) { return p.paper_applies(t); });
  const bool any_quantized =
      std::any_of(scenes.begin(), scenes.end(), [](const Scene& s) { return submission_rule(s).quantizes; });
  const bool spread = ranks.spread() || matchers.size() > 1;

  if (!a.json_out && ranks.rank() == 0) {
    print_params(a.choice.method, a.choice.backend, matcher, preset);
    std::cout << "bad pixels (%): |d - gt| > ";
    if (uniform) {
      std::cout << thresholds[0] << " px" << (a.threshold ? "" : " (the format's default; --threshold changes it)");
    } else {
      std::cout << "the format's threshold per scene:";
      for (std::size_t i = 0; i < scenes.size(); ++i) std::cout << " " << scenes[i].name << " " << thresholds[i];
    }
    std::cout << "\n";
    print_scoring(p.protocol, info.accuracy_protocol, scenes, paper_shown && !info.accuracy.empty());
    std::cout << "time = one run including upload and read-back"
              << (a.choice.backend != "cpu" ? ", after one warm-up run of the scene" : "") << "\n";
    if (spread)
      std::cout << "scenes spread over "
                << (ranks.spread() ? std::to_string(ranks.size()) + " MPI ranks (interleaved)" : std::string())
                << (ranks.spread() && matchers.size() > 1 ? " x " : "")
                << (matchers.size() > 1 ? std::to_string(matchers.size()) + " GPUs (each scene to the next free one)"
                                        : std::string())
                << "; each time is that device's, the row says which\n";
    if (info.accuracy.empty())
      std::cout << "paper: " << info.citation << " gives no accuracy table\n";
    else
      std::cout << "paper: " << info.citation << ", " << info.accuracy_source
                << (paper_shown ? "" : "; not shown: its threshold is " + fmt(info.accuracy_threshold, 1) + " px")
                << "\n";
    std::cout << "\n";
    print_eval_header();
  }
  json rows = json::array();
  Totals totals;
  totals.also_nonocc.resize(a.also_thresholds.size());
  totals.also_all.resize(a.also_thresholds.size());
  // Interleaved over the ranks (app/parallel/ranks.h); within a rank, to each device as it frees up.
  const std::vector<std::size_t> mine = parallel::interleaved_of(scenes.size(), ranks.rank(), ranks.size());
  std::vector<json> mine_rows(mine.size());
  const auto work = [&](std::size_t worker, std::size_t k) {
    mine_rows[k] = scene_row(p, *matchers[worker], mine[k]);
    if (spread)
      mine_rows[k]["ran_on"] = {{"rank", ranks.rank()}, {"host", ranks.host()},
                                {"device", matchers[worker]->device()},
                                {"ordinal", ordinals[worker] >= 0 ? json(ordinals[worker]) : json(nullptr)}};
  };
  // One process prints each row as it comes; ranks send theirs to rank 0, which prints them all.
  const auto take = [&](const json& row) {
    totals.add(row, p.protocol, p.other, p.info->accuracy_protocol);
    if (!a.json_out) print_row(row, spread);
    rows.push_back(row);
  };
  try {
    parallel::spread_items(matchers.size(), mine.size(), work, [&](std::size_t k, std::size_t) {
      if (!ranks.spread()) take(mine_rows[k]);
    });
  } catch (...) {
    error = std::current_exception();
  }
  ranks.agree(error);
  if (ranks.spread()) {
    json local = json::array();
    for (std::size_t k = 0; k < mine.size(); ++k) local.push_back({{"index", mine[k]}, {"row", mine_rows[k]}});
    std::vector<json> gathered(scenes.size());
    for (const std::string& text : ranks.gather(local.dump()))
      for (const json& item : json::parse(text)) gathered[item["index"].get<std::size_t>()] = item["row"];
    ranks.no_more_collectives();
    if (ranks.rank() != 0) return;
    for (const json& row : gathered) take(row);
  }
  const ColumnSums& sum_nonocc = totals.nonocc;
  const ColumnSums& sum_all = totals.all;
  const ColumnSums& sum_disc = totals.disc;
  const TripleSums& other_sums = totals.other_sums;
  const ScoreProtocol protocol = p.protocol, other = p.other;
  const std::vector<std::string>& paper_scenes = totals.paper_scenes;
  const std::vector<ColumnSums>& also_nonocc = totals.also_nonocc;
  const std::vector<ColumnSums>& also_all = totals.also_all;
  json doc = {{"method", a.choice.method},
              {"backend", a.choice.backend},
              {"revision", source_revision()},
              {"device", matcher.device()}, {"device_info", matcher.device_info()},
              {"params", params},
              {"preset", preset_json(preset)},
              {"threshold", uniform ? json(thresholds[0]) : json(nullptr)},
              {"protocol", to_string(protocol)},
              {"scenes", rows},
              {"average", {{"nonocc", optional_json(sum_nonocc.average())},
                           {"all", optional_json(sum_all.average())},
                           {"disc", optional_json(sum_disc.average())}}},
              {"average_of_columns", optional_json(mean_of_columns(sum_nonocc, sum_all, sum_disc, false))},
              {"average_" + std::string(to_string(other)),
               {{"nonocc", optional_json(other_sums.nonocc.average())},
                {"all", optional_json(other_sums.all.average())},
                {"disc", optional_json(other_sums.disc.average())}}},
              {"paper", {{"citation", info.citation}, {"source", info.accuracy_source},
                         {"threshold", info.accuracy_threshold}, {"protocol", to_string(info.accuracy_protocol)},
                         {"scenes", paper_scenes}}}};
  // Ours (scored as the paper was) and the paper's, each averaged over the scenes where both have
  // the column's figure.
  json paper_average = json::object();
  const std::pair<const char*, const ColumnSums*> columns[] = {{"nonocc", &sum_nonocc}, {"all", &sum_all}, {"disc", &sum_disc}};
  for (const auto& [name, c] : columns)
    paper_average[name] = {{"ours", optional_json(c->average_vs())}, {"paper", optional_json(c->paper_average())},
                           {"scenes", c->n_vs}};
  doc["paper_average"] = paper_average;
  doc["paper_average"]["of_columns"] = {
      {"ours", optional_json(mean_of_columns(sum_nonocc, sum_all, sum_disc, true))},
      {"paper", optional_json(mean_of_columns(paper_sums(sum_nonocc), paper_sums(sum_all), paper_sums(sum_disc), true))}};
  if (!a.also_thresholds.empty()) {
    json also = json::array();
    for (std::size_t j = 0; j < a.also_thresholds.size(); ++j)
      also.push_back({{"threshold", a.also_thresholds[j]}, {"nonocc", optional_json(also_nonocc[j].average())},
                      {"all", optional_json(also_all[j].average())}});
    doc["also_average"] = also;
  }
  if (spread) {
    // Which device each scene ran on is in its row ("ran_on"); here every one that took part.
    json devices = json::array();
    for (const json& row : rows) {
      const json& d = row["ran_on"];
      if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
    }
    doc["devices"] = devices;
    doc["ranks"] = ranks.size();
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
  print_totals(totals, protocol, other, info.accuracy_protocol, any_quantized, a.also_thresholds);
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto ev = std::make_shared<EvalArgs>();
  auto* e = app.add_subcommand("eval", "run a method over a dataset and evaluate against ground truth");
  e->add_option("DATASET", ev->dataset, "a scene folder, a folder of scenes (each searched over its own range), or a dataset name "
                "under the data root (middlebury-v2, middlebury-v2/tsukuba: stereo data list)")
      ->required();
  ev->choice.add_to(e);
  e->add_option("--threshold", ev->threshold,
                "bad-pixel threshold in pixels (default: the scene format's, 1.0 for Middlebury v2)");
  e->add_option("--also-threshold", ev->also_thresholds,
                "also report bad nonocc/all at this threshold, on the same maps (repeatable)");
  e->add_option("--protocol", ev->protocol,
                "submitted: score each map as its format's benchmark received it (Middlebury v2: 8-bit at the "
                "ground truth's scale); float: as computed. The other is printed beside it")
      ->check(CLI::IsMember({"submitted", "float"}))
      ->capture_default_str();
  e->add_option("--out", ev->out, "write disparity (PFM), colour and error pictures and result.json here");
  e->add_flag("--json", ev->json_out, "print JSON");
  e->add_option("--devices", ev->devices,
                "spread the scenes over these GPUs, one matcher each, as each frees up: 0,1 or all (CUDA; GL: one "
                "per process). Under mpirun each rank spreads its share over its devices");
  e->callback([ev] { cmd_eval(*ev); });
}

}  // namespace stereo::cli
