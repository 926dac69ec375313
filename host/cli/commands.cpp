#include "host/cli/commands.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "host/dataset.h"
#include "host/error.h"
#include "host/image_io.h"
#include "host/matcher.h"
#include "host/metrics.h"
#include "host/synth.h"

namespace stereo::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// ---- shared helpers --------------------------------------------------------------------

struct MethodChoice {
  std::string method;
  std::string backend = "cpu";
  std::vector<std::string> sets;

  void add_to(CLI::App* sub, bool backend_optional_default = true) {
    sub->add_option("-m,--method", method, "method name (see `stereo list`)")->required();
    auto* b = sub->add_option("-b,--backend", backend, "backend: cpu, gl, glcompute, cuda (see `stereo list`)");
    if (backend_optional_default) b->capture_default_str();
    sub->add_option("--set", sets, "override a parameter: --set key=value (repeatable)");
  }
  [[nodiscard]] Overrides overrides() const {
    Overrides o;
    for (const auto& s : sets) o.push_back(parse_override(s));
    return o;
  }
};

double mdes(int width, int height, int levels, double ms) {
  return ms > 0.0 ? double(width) * double(height) * double(levels) / (ms * 1e-3) / 1e6 : 0.0;
}

json timing_json(const Timing& t) {
  json stages = json::object();
  for (const auto& [name, ms] : t.stages) stages[name] = ms;
  return {{"algorithm_ms", t.algorithm_ms}, {"upload_ms", t.upload_ms}, {"readback_ms", t.readback_ms},
          {"total_ms", t.total_ms()}, {"stages", stages}, {"clock", t.clock}};
}

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string fmt(double v, int precision = 2) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}
std::string fmt(const std::optional<double>& v, int precision = 2) { return v ? fmt(*v, precision) : "-"; }

float max_finite(const ImageF& img, float fallback) {
  float m = 0.0f;
  for (float v : img.data)
    if (std::isfinite(v)) m = std::max(m, v);
  return m > 0.0f ? m : fallback;
}

// The paper's own figures (bad > 1, %) where it gives them: Lu et al. Table 1.
struct PaperFigure {
  double nonocc;
  double disc;
};
std::optional<PaperFigure> paper_figure(const std::string& method, const json& params, const std::string& scene) {
  if (method != "salap") return std::nullopt;
  const bool nine = params.value("windows", std::string("9")) == "9";
  std::string n = scene;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (n == "tsukuba") return nine ? PaperFigure{3.95, 14.42} : PaperFigure{7.63, 14.30};
  if (n == "venus") return nine ? PaperFigure{5.04, 10.12} : PaperFigure{9.04, 9.20};
  return std::nullopt;
}

void print_params(const std::string& method, const std::string& backend, const Matcher& m) {
  std::cout << method << "/" << backend << " on " << m.device() << "\nparams: " << m.params().dump() << "\n";
}

// ---- list ------------------------------------------------------------------------------

void cmd_list(bool as_json) {
  json rows = json::array();
  for (const BackendEntry& e : Registry::builtin().entries()) {
    const auto reason = e.unavailable ? e.unavailable() : std::nullopt;
    rows.push_back({{"method", e.method}, {"backend", e.backend}, {"available", !reason.has_value()},
                    {"reason", reason ? json(*reason) : json(nullptr)}, {"summary", e.summary}});
  }
  if (as_json) {
    std::cout << rows.dump(2) << "\n";
    return;
  }
  std::cout << std::left << std::setw(10) << "method" << std::setw(11) << "backend" << std::setw(11) << "available"
            << "notes\n";
  for (const auto& r : rows)
    std::cout << std::setw(10) << r["method"].get<std::string>() << std::setw(11) << r["backend"].get<std::string>()
              << std::setw(11) << (r["available"].get<bool>() ? "yes" : "no")
              << (r["available"].get<bool>() ? r["summary"].get<std::string>() : r["reason"].get<std::string>())
              << "\n";
}

// ---- run -------------------------------------------------------------------------------

struct RunArgs {
  std::string left, right, out, png16, color;
  int levels = 64;
  bool json_out = false;
  MethodChoice choice;
};

void check_output_folder(const std::string& path) {
  if (path.empty()) return;
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  require(parent.empty() || fs::is_directory(parent, ec), "cannot write " + path + ": folder " + parent.string() + " does not exist");
}

void cmd_run(const RunArgs& a) {
  for (const auto& p : {a.out, a.png16, a.color}) check_output_folder(p);
  const ImageU8 left = to_rgb(read_image(a.left));
  const ImageU8 right = to_rgb(read_image(a.right));
  validate_pair(left, right, a.levels, "run");
  auto matcher = create_matcher(a.choice.method, a.choice.backend, a.choice.overrides());
  if (!a.json_out) print_params(a.choice.method, a.choice.backend, *matcher);
  const StereoResult r = matcher->compute(left, right, a.levels);
  write_pfm(a.out, r.disparity);
  if (!a.png16.empty()) write_disparity_png16(a.png16, r.disparity);
  if (!a.color.empty()) write_png(a.color, colorize_disparity(r.disparity, float(a.levels - 1)));
  const double total = r.timing.total_ms();
  if (a.json_out) {
    json j = {{"method", a.choice.method}, {"backend", a.choice.backend}, {"device", matcher->device()},
              {"params", matcher->params()}, {"width", left.width}, {"height", left.height}, {"levels", a.levels},
              {"timing", timing_json(r.timing)}, {"mdes", mdes(left.width, left.height, a.levels, total)},
              {"mdes_algorithm", mdes(left.width, left.height, a.levels, r.timing.algorithm_ms)},
              {"outputs", {{"pfm", a.out}, {"png16", a.png16.empty() ? json(nullptr) : json(a.png16)},
                           {"color", a.color.empty() ? json(nullptr) : json(a.color)}}}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << left.width << "x" << left.height << ", " << a.levels << " levels: algorithm " << fmt(r.timing.algorithm_ms)
            << " ms, upload " << fmt(r.timing.upload_ms) << " ms, read-back " << fmt(r.timing.readback_ms)
            << " ms, total " << fmt(total) << " ms (" << r.timing.clock << ", one cold run)\n"
            << "throughput " << fmt(mdes(left.width, left.height, a.levels, total), 1)
            << " Mde/s including upload and read-back\n"
            << "disparity: " << a.out << "\n";
  if (!a.png16.empty()) std::cout << "16-bit PNG: " << a.png16 << "\n";
  if (!a.color.empty()) std::cout << "colour map: " << a.color << "\n";
}

// ---- eval ------------------------------------------------------------------------------

struct EvalArgs {
  std::string dataset, out;
  std::optional<double> threshold;
  bool json_out = false;
  MethodChoice choice;
};

void cmd_eval(const EvalArgs& a) {
  const double threshold = a.threshold.value_or(1.0);
  require(threshold >= 0.0, "eval: --threshold must be >= 0");
  const std::vector<Scene> scenes = load_dataset(a.dataset);
  if (!a.out.empty()) {
    std::error_code ec;
    fs::create_directories(a.out, ec);
    require(!ec, "cannot create output folder " + a.out + ": " + ec.message());
  }
  auto matcher = create_matcher(a.choice.method, a.choice.backend, a.choice.overrides());
  const json params = matcher->params();
  if (!a.json_out) {
    print_params(a.choice.method, a.choice.backend, *matcher);
    std::cout << "bad pixels: |d - gt| > " << threshold << " (%); time = one run including upload and read-back"
              << (a.choice.backend != "cpu" ? ", after one warm-up run of the scene" : "") << "\n\n";
    std::cout << std::left << std::setw(12) << "scene" << std::right << std::setw(10) << "size" << std::setw(7) << "levels"
              << std::setw(9) << "nonocc" << std::setw(9) << "all" << std::setw(9) << "disc" << std::setw(9) << "avg err"
              << std::setw(9) << "density" << std::setw(11) << "time ms" << std::setw(10) << "Mde/s"
              << "   paper nonocc/disc\n";
  }
  json rows = json::array();
  double sum_nonocc = 0, sum_all = 0, sum_disc = 0;
  int n_nonocc = 0, n_all = 0, n_disc = 0;
  // GPU backends run each scene once untimed first (allocation for the size, shader
  // compilation, module load), so the time is the method's; the CPU reference runs once.
  const bool warm_up = a.choice.backend != "cpu";
  for (const Scene& s : scenes) {
    if (warm_up) matcher->compute(s.left, s.right, s.levels);
    const StereoResult r = matcher->compute(s.left, s.right, s.levels);
    const double total = r.timing.total_ms();
    std::optional<Metrics> m;
    if (s.has_ground_truth()) m = evaluate(r.disparity, s, threshold);
    json row = {{"name", s.name}, {"width", s.left.width}, {"height", s.left.height}, {"levels", s.levels},
                {"nonocc", m ? optional_json(m->bad_nonocc) : json(nullptr)},
                {"all", m ? optional_json(m->bad_all) : json(nullptr)},
                {"disc", m ? optional_json(m->bad_disc) : json(nullptr)},
                {"avg_error", m ? optional_json(m->avg_error) : json(nullptr)},
                {"density", m ? json(m->density) : json(nullptr)},
                {"d1_all", m ? optional_json(m->d1_all) : json(nullptr)},
                {"time_ms", total}, {"mdes", mdes(s.left.width, s.left.height, s.levels, total)},
                {"timing", timing_json(r.timing)}};
    const auto paper = paper_figure(a.choice.method, params, s.name);
    if (paper) row["paper"] = {{"nonocc", paper->nonocc}, {"disc", paper->disc}};
    if (m && m->bad_nonocc) sum_nonocc += *m->bad_nonocc, ++n_nonocc;
    if (m && m->bad_all) sum_all += *m->bad_all, ++n_all;
    if (m && m->bad_disc) sum_disc += *m->bad_disc, ++n_disc;
    if (!a.out.empty()) {
      const fs::path base = fs::path(a.out) / s.name;
      write_pfm(base.string() + ".pfm", r.disparity);
      write_png(base.string() + "_color.png",
                colorize_disparity(r.disparity, s.has_ground_truth() ? max_finite(s.gt, float(s.levels - 1)) : float(s.levels - 1)));
      row["outputs"] = {{"pfm", base.string() + ".pfm"}, {"color", base.string() + "_color.png"}};
      if (s.has_ground_truth()) {
        write_png(base.string() + "_error.png", error_map(r.disparity, s, threshold));
        write_png(base.string() + "_gt_color.png", colorize_disparity(s.gt, max_finite(s.gt, float(s.levels - 1))));
        row["outputs"]["error"] = base.string() + "_error.png";
      }
    }
    if (!a.json_out) {
      std::cout << std::left << std::setw(12) << s.name << std::right << std::setw(10)
                << (std::to_string(s.left.width) + "x" + std::to_string(s.left.height)) << std::setw(7) << s.levels
                << std::setw(9) << (m ? fmt(m->bad_nonocc) : "-") << std::setw(9) << (m ? fmt(m->bad_all) : "-")
                << std::setw(9) << (m ? fmt(m->bad_disc) : "-") << std::setw(9) << (m ? fmt(m->avg_error) : "-")
                << std::setw(9) << (m ? fmt(m->density, 1) : "-") << std::setw(11) << fmt(total) << std::setw(10)
                << fmt(mdes(s.left.width, s.left.height, s.levels, total), 1) << "   "
                << (paper ? fmt(paper->nonocc) + " / " + fmt(paper->disc) : "-") << "\n";
      if (!a.out.empty())
        std::cout << "    -> " << row["outputs"]["pfm"].get<std::string>() << ", "
                  << row["outputs"]["color"].get<std::string>()
                  << (s.has_ground_truth() ? ", " + row["outputs"]["error"].get<std::string>() : "") << "\n";
    }
    rows.push_back(row);
  }
  auto avg = [](double sum, int n) { return n > 0 ? json(sum / n) : json(nullptr); };
  json doc = {{"method", a.choice.method}, {"backend", a.choice.backend}, {"device", matcher->device()},
              {"params", params}, {"threshold", threshold}, {"scenes", rows},
              {"average", {{"nonocc", avg(sum_nonocc, n_nonocc)}, {"all", avg(sum_all, n_all)}, {"disc", avg(sum_disc, n_disc)}}}};
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
  } else if (n_nonocc > 0) {
    std::cout << std::left << std::setw(29) << "average" << std::right << std::setw(9) << fmt(sum_nonocc / n_nonocc)
              << std::setw(9) << (n_all ? fmt(sum_all / n_all) : "-") << std::setw(9)
              << (n_disc ? fmt(sum_disc / n_disc) : "-") << "\n";
  }
}

// ---- bench -----------------------------------------------------------------------------

struct BenchArgs {
  std::string size;
  int levels = 0;
  int repeat = 10;
  bool json_out = false;
  MethodChoice choice;
  bool backend_given = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

json bench_one(Matcher& m, const std::string& method, const std::string& backend, int width, int height, int levels,
               int repeat) {
  const auto [left, right] = bench_pair(width, height);
  m.compute(left, right, levels);  // warm-up: allocation, shader compilation, module load
  std::vector<double> alg, up, rb, tot;
  for (int i = 0; i < repeat; ++i) {
    const StereoResult r = m.compute(left, right, levels);
    alg.push_back(r.timing.algorithm_ms);
    up.push_back(r.timing.upload_ms);
    rb.push_back(r.timing.readback_ms);
    tot.push_back(r.timing.total_ms());
  }
  const double total = median(tot), algorithm = median(alg);
  json j = {{"method", method}, {"backend", backend}, {"device", m.device()}, {"width", width}, {"height", height},
            {"levels", levels}, {"repeat", repeat}, {"algorithm_ms", algorithm}, {"upload_ms", median(up)},
            {"readback_ms", median(rb)}, {"total_ms", total}, {"fps", total > 0 ? 1000.0 / total : 0.0},
            {"mdes", mdes(width, height, levels, total)}, {"mdes_algorithm", mdes(width, height, levels, algorithm)}};
  if (const auto fetch = m.fetch_stats(width, height, levels)) {
    const double achieved = algorithm > 0 ? fetch->fetches_per_run / (algorithm * 1e-3) / 1e9 : 0.0;
    j["fetch_gtexel_s"] = achieved;
    j["ceiling_gtexel_s"] = fetch->ceiling_gtexel_s;
    j["fetch_share"] = fetch->ceiling_gtexel_s > 0 ? achieved / fetch->ceiling_gtexel_s : 0.0;
    j["ceiling_pass"] = fetch->ceiling_pass;
  }
  return j;
}

std::pair<int, int> parse_size(const std::string& s) {
  int w = 0, h = 0;
  char x = 0, extra = 0;
  std::istringstream in(s);
  if (!(in >> w >> x >> h) || (x != 'x' && x != 'X') || (in >> extra) || w <= 0 || h <= 0)
    throw Error("bench: --size expects WxH with positive integers, got '" + s + "'");
  return {w, h};
}

void print_bench_header(const std::string& device, const json& params) {
  std::cout << "GPU/CPU: " << device << "\nparams: " << params.dump() << "\n"
            << "times are medians; total = upload of both images + algorithm + read-back of the disparity map; "
               "Mde/s = W x H x levels / total time (the paper's convention), alg Mde/s over algorithm time alone\n\n";
  std::cout << std::left << std::setw(11) << "backend" << std::right << std::setw(11) << "size" << std::setw(7) << "disp"
            << std::setw(11) << "alg ms" << std::setw(10) << "upload" << std::setw(10) << "readback" << std::setw(10)
            << "total ms" << std::setw(9) << "fps" << std::setw(11) << "Mde/s" << std::setw(12) << "alg Mde/s"
            << "   fetch Gtex/s (ceiling, share)\n";
}

void print_bench_row(const json& j) {
  std::cout << std::left << std::setw(11) << j["backend"].get<std::string>() << std::right << std::setw(11)
            << (std::to_string(j["width"].get<int>()) + "x" + std::to_string(j["height"].get<int>())) << std::setw(7)
            << j["levels"].get<int>() << std::setw(11) << fmt(j["algorithm_ms"].get<double>(), 3) << std::setw(10)
            << fmt(j["upload_ms"].get<double>(), 3) << std::setw(10) << fmt(j["readback_ms"].get<double>(), 3)
            << std::setw(10) << fmt(j["total_ms"].get<double>(), 3) << std::setw(9) << fmt(j["fps"].get<double>(), 1)
            << std::setw(11) << fmt(j["mdes"].get<double>(), 0) << std::setw(12)
            << fmt(j["mdes_algorithm"].get<double>(), 0);
  if (j.contains("fetch_gtexel_s"))
    std::cout << "   " << fmt(j["fetch_gtexel_s"].get<double>(), 1) << " (" << fmt(j["ceiling_gtexel_s"].get<double>(), 1)
              << ", " << fmt(100.0 * j["fetch_share"].get<double>(), 0) << "%)";
  std::cout << std::endl;
}

void cmd_bench(const BenchArgs& a) {
  require(a.repeat >= 1, "bench: --repeat must be >= 1, got " + std::to_string(a.repeat));
  std::vector<std::string> backends;
  if (a.backend_given) {
    backends.push_back(a.choice.backend);
  } else {
    for (const std::string& b : Registry::builtin().backends(a.choice.method)) {
      if (b == "cpu") continue;
      const auto& e = Registry::builtin().find(a.choice.method, b);
      const auto reason = e.unavailable ? e.unavailable() : std::nullopt;
      if (!reason) backends.push_back(b);
      else std::cerr << "bench: skipping " << a.choice.method << "/" << b << ": " << *reason << "\n";
    }
    (void)Registry::builtin().find(a.choice.method, "cpu");  // throws for an unknown method
    require(!backends.empty(), "bench: no GPU backend of " + a.choice.method + " is available here; pass -b cpu");
  }
  std::vector<std::tuple<int, int, int>> configs;
  if (!a.size.empty()) {
    const auto [w, h] = parse_size(a.size);
    require(a.levels >= 1, "bench: -d LEVELS is required with --size");
    require(a.levels < w, "bench: disparity levels " + std::to_string(a.levels) + " must be below the width " + std::to_string(w));
    configs.emplace_back(w, h, a.levels);
  } else {
    require(a.levels == 0, "bench: -d needs --size");
    // Lu et al. Table 2 (512^2 and 256^2 at 16..96 levels), plus full HD at 128 and 256.
    for (int s : {512, 256})
      for (int d : {16, 32, 64, 96}) configs.emplace_back(s, s, d);
    for (int d : {128, 256}) configs.emplace_back(1920, 1080, d);
  }
  json rows = json::array();
  bool header = false;
  std::vector<std::unique_ptr<Matcher>> matchers;
  for (const auto& b : backends) {
    matchers.push_back(create_matcher(a.choice.method, b, a.choice.overrides()));
    if (matchers.back()->device().find("llvmpipe") != std::string::npos && a.size.empty())
      std::cerr << "bench: " << b << " runs on Mesa's llvmpipe (software rendering): the full sweep takes many "
                << "minutes; --size WxH -d LEVELS times one configuration\n";
  }
  for (const auto& [w, h, d] : configs)
    for (std::size_t i = 0; i < backends.size(); ++i) {
      if (!a.json_out && !header) {
        print_bench_header(matchers[i]->device(), matchers[i]->params());
        header = true;
      }
      json j = bench_one(*matchers[i], a.choice.method, backends[i], w, h, d, a.repeat);
      if (!a.json_out) print_bench_row(j);
      rows.push_back(j);
    }
  if (a.json_out) std::cout << (rows.size() == 1 ? rows[0].dump(2) : rows.dump(2)) << "\n";
}

}  // namespace

void add_core_commands(CLI::App& app) {
  auto* list = app.add_subcommand("list", "list every method x backend and whether it runs here");
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_json, "print JSON");
  list->callback([list_json] { cmd_list(*list_json); });

  auto run = std::make_shared<RunArgs>();
  auto* r = app.add_subcommand("run", "compute the disparity map of one pair");
  r->add_option("LEFT", run->left, "left (reference) image")->required();
  r->add_option("RIGHT", run->right, "right image")->required();
  run->choice.add_to(r);
  r->add_option("-d,--levels", run->levels, "disparity levels searched, 0..LEVELS-1")->capture_default_str();
  r->add_option("-o,--out", run->out, "disparity map, PFM (inf = none)")->required();
  r->add_option("--png", run->png16, "also a 16-bit PNG, disparity x 256 (KITTI convention)");
  r->add_option("--color", run->color, "also a colour-mapped PNG for people");
  r->add_flag("--json", run->json_out, "print JSON");
  r->callback([run] { cmd_run(*run); });

  auto ev = std::make_shared<EvalArgs>();
  auto* e = app.add_subcommand("eval", "run a method over a dataset and evaluate against ground truth");
  e->add_option("DATASET", ev->dataset, "a scene folder or a folder of scenes")->required();
  ev->choice.add_to(e);
  e->add_option("--threshold", ev->threshold, "bad-pixel threshold in pixels (default 1.0, the v2 convention)");
  e->add_option("--out", ev->out, "write disparity (PFM), colour and error pictures and result.json here");
  e->add_flag("--json", ev->json_out, "print JSON");
  e->callback([ev] { cmd_eval(*ev); });

  auto be = std::make_shared<BenchArgs>();
  auto* b = app.add_subcommand("bench", "time a method (Lu et al. Table 2 layout without --size)");
  be->choice.add_to(b, false);
  b->add_option("--size", be->size, "image size WxH (default: the Table 2 sizes and 1920x1080)");
  b->add_option("-d,--levels", be->levels, "disparity levels (with --size)");
  b->add_option("--repeat", be->repeat, "timed runs after one warm-up; medians are reported")->capture_default_str();
  b->add_flag("--json", be->json_out, "print JSON");
  b->callback([be, b] {
    be->backend_given = b->count("--backend") > 0;
    cmd_bench(*be);
  });
}

}  // namespace stereo::cli
