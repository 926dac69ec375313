// `stereo eval`: a method over a dataset, scored against ground truth under a protocol
// (app/protocol.h): the maps as the format's benchmark received them, or as computed. The
// paper's figures sit beside the scores made under the protocol the paper was scored under.

#include "app/cli/eval_command.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/method_choice.h"
#include "app/dataset.h"
#include "app/image_io.h"
#include "app/measure.h"
#include "app/metrics.h"
#include "app/protocol.h"
#include "app/revision.h"
#include "core/error.h"
#include "methods/builtin.h"

namespace stereo::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct EvalArgs {
  std::string dataset, out;
  std::optional<double> threshold;
  std::vector<double> also_thresholds;  ///< more thresholds evaluated on the same maps
  std::string protocol = "submitted";
  bool json_out = false;
  MethodChoice choice;
};

/// Sums for one column (nonocc, all or disc) of the averages.
struct ColumnSums {
  double ours = 0.0;  ///< over every scene with our figure, under the run's protocol
  int n = 0;
  double ours_vs = 0.0;  ///< over the scenes where the paper has a figure too, under the paper's protocol
  double paper = 0.0;
  int n_vs = 0;

  void add(const std::optional<double>& mine, const std::optional<double>& mine_as_paper_scored,
           const std::optional<double>& theirs) {
    if (mine) ours += *mine, ++n;
    if (mine_as_paper_scored && theirs) ours_vs += *mine_as_paper_scored, paper += *theirs, ++n_vs;
  }
  [[nodiscard]] std::optional<double> average() const { return n ? std::optional(ours / n) : std::nullopt; }
  [[nodiscard]] std::optional<double> average_vs() const { return n_vs ? std::optional(ours_vs / n_vs) : std::nullopt; }
  [[nodiscard]] std::optional<double> paper_average() const {
    return n_vs ? std::optional(paper / n_vs) : std::nullopt;
  }
};

/// nonocc, all and disc over the scenes, for the block of the other protocol's figures.
struct TripleSums {
  ColumnSums nonocc, all, disc;
  void add(const Metrics& m) {
    nonocc.add(m.bad_nonocc, std::nullopt, std::nullopt);
    all.add(m.bad_all, std::nullopt, std::nullopt);
    disc.add(m.bad_disc, std::nullopt, std::nullopt);
  }
};

// Column widths of the eval table, shared by the header, the rows and the averages.
constexpr int W_SCENE = 14, W_SIZE = 10, W_RANGE = 12, W_BAD = 8, W_TIME = 10, W_MDES = 9;
constexpr int W_LEAD = W_SCENE + W_SIZE + W_RANGE;

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

std::string triple(const std::optional<double>& nonocc, const std::optional<double>& all,
                   const std::optional<double>& disc) {
  std::ostringstream s;
  s << std::setw(W_BAD) << fmt(nonocc) << std::setw(W_BAD) << fmt(all) << std::setw(W_BAD) << fmt(disc);
  return s.str();
}

/// The paper's side of `c` as a ColumnSums of its own (for mean_of_columns over the paper's figures).
ColumnSums paper_sums(const ColumnSums& c) {
  ColumnSums p = c;
  p.ours_vs = c.paper;
  return p;
}

/// The papers' usual ranking figure: the mean of nonocc, all and disc over the scenes (Middlebury
/// v2's "average of 12" over four scenes), where every scene has all three.
std::optional<double> mean_of_columns(const ColumnSums& nonocc, const ColumnSums& all, const ColumnSums& disc,
                                      bool vs_paper) {
  const auto get = [vs_paper](const ColumnSums& c) { return vs_paper ? c.average_vs() : c.average(); };
  const auto n = [vs_paper](const ColumnSums& c) { return vs_paper ? c.n_vs : c.n; };
  if (!get(nonocc) || !get(all) || !get(disc) || n(nonocc) != n(all) || n(all) != n(disc)) return std::nullopt;
  return (*get(nonocc) + *get(all) + *get(disc)) / 3.0;
}

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

void cmd_eval(const EvalArgs& a) {
  require(!a.threshold || *a.threshold >= 0.0, "eval: --threshold must be >= 0");
  for (double t : a.also_thresholds) require(t >= 0.0, "eval: --also-threshold must be >= 0, got " + fmt(t));
  const ScoreProtocol protocol = parse_protocol(a.protocol);
  const ScoreProtocol other = protocol == ScoreProtocol::submitted ? ScoreProtocol::float_maps : ScoreProtocol::submitted;
  const std::vector<Scene> scenes = load_dataset(a.dataset);
  if (!a.out.empty()) {
    std::error_code ec;
    fs::create_directories(a.out, ec);
    require(!ec, "cannot create output folder " + a.out + ": " + ec.message());
  }
  auto matcher = create_matcher(a.choice.method, a.choice.backend, a.choice.overrides());
  const MethodInfo& info = builtin_registry().method(a.choice.method);
  const json params = matcher->params();
  const std::optional<ParamPreset> preset = a.choice.preset();

  // Each scene's format brings its own threshold (v2: 1, MiddEval3: 2); --threshold overrides all.
  std::vector<double> thresholds;
  for (const Scene& s : scenes) thresholds.push_back(a.threshold.value_or(s.default_threshold));
  const bool uniform = std::all_of(thresholds.begin(), thresholds.end(), [&](double t) { return t == thresholds[0]; });
  // The paper's figures are at its own threshold; beside any other they would mislead.
  const auto paper_applies = [&](double threshold) { return threshold == info.accuracy_threshold; };
  const bool paper_shown = std::any_of(thresholds.begin(), thresholds.end(), paper_applies);
  const bool any_quantized =
      std::any_of(scenes.begin(), scenes.end(), [](const Scene& s) { return submission_rule(s).quantizes; });

  if (!a.json_out) {
    print_params(a.choice.method, a.choice.backend, *matcher, preset);
    std::cout << "bad pixels (%): |d - gt| > ";
    if (uniform) {
      std::cout << thresholds[0] << " px" << (a.threshold ? "" : " (the format's default; --threshold changes it)");
    } else {
      std::cout << "the format's threshold per scene:";
      for (std::size_t i = 0; i < scenes.size(); ++i) std::cout << " " << scenes[i].name << " " << thresholds[i];
    }
    std::cout << "\n";
    print_scoring(protocol, info.accuracy_protocol, scenes, paper_shown && !info.accuracy.empty());
    std::cout << "time = one run including upload and read-back"
              << (a.choice.backend != "cpu" ? ", after one warm-up run of the scene" : "") << "\n";
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
  ColumnSums sum_nonocc, sum_all, sum_disc;
  TripleSums other_sums;
  std::vector<std::string> other_lines;
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
    const SubmissionRule rule = submission_rule(s);
    // The map this run scores, and the scores under both protocols where the format quantises.
    const ImageF scored = scored_map(r.disparity, s, protocol);
    std::optional<Metrics> m, m_other;
    if (s.has_ground_truth()) {
      m = evaluate(scored, s, threshold);
      m_other = rule.quantizes ? evaluate(scored_map(r.disparity, s, other), s, threshold) : *m;
    }
    const std::optional<Metrics>& m_as_paper = info.accuracy_protocol == protocol ? m : m_other;
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
                {"submission_rule", rule.text},
                {to_string(protocol), m ? metrics_json(*m) : json(nullptr)},
                {to_string(other), m_other ? metrics_json(*m_other) : json(nullptr)},
                {"time_ms", total}, {"mdes", mdes(s.left.width, s.left.height, range.count, total)},
                {"timing", timing_json(r.timing)},
                {"paper", paper ? json{{"nonocc", optional_json(paper->nonocc)}, {"all", optional_json(paper->all)},
                                       {"disc", optional_json(paper->disc)}}
                                : json(nullptr)}};
    if (m) {
      sum_nonocc.add(m->bad_nonocc, m_as_paper->bad_nonocc, paper ? paper->nonocc : std::nullopt);
      sum_all.add(m->bad_all, m_as_paper->bad_all, paper ? paper->all : std::nullopt);
      sum_disc.add(m->bad_disc, m_as_paper->bad_disc, paper ? paper->disc : std::nullopt);
      other_sums.add(*m_other);
      std::ostringstream line;
      line << std::left << std::setw(W_LEAD) << s.name << std::right
           << triple(m_other->bad_nonocc, m_other->bad_all, m_other->bad_disc);
      other_lines.push_back(line.str());
    }
    if (paper) paper_scenes.push_back(s.name);
    if (m && !a.also_thresholds.empty()) {
      json also = json::array();
      std::ostringstream line;
      line << std::left << std::setw(W_SCENE) << s.name << std::right;
      for (std::size_t j = 0; j < a.also_thresholds.size(); ++j) {
        const Metrics mt = evaluate(scored, s, a.also_thresholds[j]);
        also.push_back({{"threshold", a.also_thresholds[j]}, {"nonocc", optional_json(mt.bad_nonocc)},
                        {"all", optional_json(mt.bad_all)}});
        also_nonocc[j].add(mt.bad_nonocc, std::nullopt, std::nullopt);
        also_all[j].add(mt.bad_all, std::nullopt, std::nullopt);
        line << std::setw(W_BAD + 2) << fmt(mt.bad_nonocc) << std::setw(W_BAD) << fmt(mt.bad_all);
      }
      row["also"] = also;
      also_lines.push_back(line.str());
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
  if (sum_nonocc.n + sum_all.n + sum_disc.n > 0) {
    std::cout << std::left << std::setw(W_LEAD) << "average" << std::right
              << triple(sum_nonocc.average(), sum_all.average(), sum_disc.average());
    if (const auto all3 = mean_of_columns(sum_nonocc, sum_all, sum_disc, false))
      std::cout << "   (mean of the " << 3 * sum_nonocc.n << " figures: " << fmt(*all3) << ")";
    std::cout << "\n";
  }
  if (!paper_scenes.empty())
    std::cout << std::left << std::setw(W_LEAD)
              << ("vs paper (" + std::to_string(paper_scenes.size()) + (paper_scenes.size() == 1 ? " scene)" : " scenes)"))
              << std::right << triple(sum_nonocc.average_vs(), sum_all.average_vs(), sum_disc.average_vs())
              << std::string(2 * W_BAD + W_TIME + W_MDES, ' ')
              << paper_cells(sum_nonocc.paper_average(), sum_all.paper_average(), sum_disc.paper_average())
              << "\n";
  if (!paper_scenes.empty()) {
    const auto ours = mean_of_columns(sum_nonocc, sum_all, sum_disc, true);
    const auto theirs = mean_of_columns(paper_sums(sum_nonocc), paper_sums(sum_all), paper_sums(sum_disc), true);
    if (ours && theirs)
      std::cout << "mean of the " << 3 * sum_nonocc.n_vs << " figures vs paper: ours " << fmt(*ours) << ", paper "
                << fmt(*theirs) << "\n";
    std::cout << "(vs paper: ours scored " << to_string(info.accuracy_protocol)
              << " as the paper was, and the paper's, each over the scenes where both give that column)\n";
  }
  if (any_quantized && !other_lines.empty()) {
    std::cout << "\nscored " << to_string(other)
              << (other == ScoreProtocol::float_maps ? " (the maps as computed)" : " (the maps as each benchmark received them)")
              << ":\n";
    for (const std::string& line : other_lines) std::cout << line << "\n";
    std::cout << std::left << std::setw(W_LEAD) << "average" << std::right
              << triple(other_sums.nonocc.average(), other_sums.all.average(), other_sums.disc.average());
    if (const auto all3 = mean_of_columns(other_sums.nonocc, other_sums.all, other_sums.disc, false))
      std::cout << "   (mean of the " << 3 * other_sums.nonocc.n << " figures: " << fmt(*all3) << ")";
    std::cout << "\n";
  }
  if (!also_lines.empty()) {
    std::cout << "\nbad pixels (%) at other thresholds on the same maps (scored " << to_string(protocol)
              << "), nonocc / all:\n"
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

void add_eval_command(CLI::App& app) {
  auto ev = std::make_shared<EvalArgs>();
  auto* e = app.add_subcommand("eval", "run a method over a dataset and evaluate against ground truth");
  e->add_option("DATASET", ev->dataset, "a scene folder or a folder of scenes (each searched over its own range)")
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
  e->callback([ev] { cmd_eval(*ev); });
}

}  // namespace stereo::cli
