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
#include "core/matcher.h"
#include "app/metrics.h"
#include "app/revision.h"
#include "app/synth.h"
#include "app/cli/compare_command.h"
#include "app/cli/eval_command.h"
#include "app/cli/method_choice.h"
#include "app/measure.h"
#include "methods/builtin.h"
#include "core/validate.h"

namespace stereo::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// ---- shared helpers --------------------------------------------------------------------


// ---- list, params ----------------------------------------------------------------------

void cmd_list(bool as_json) {
  const Registry& reg = builtin_registry();
  if (as_json) {
    json methods = json::array();
    for (const MethodInfo& m : reg.methods()) {
      json j = method_json(m);
      j["backends"] = json::array();
      for (const std::string& b : reg.backends(m.name)) {
        const BackendEntry& e = reg.find(m.name, b);
        const auto reason = unavailable(e);
        j["backends"].push_back({{"backend", b}, {"available", !reason.has_value()},
                                 {"reason", reason ? json(*reason) : json(nullptr)}, {"summary", e.summary}});
      }
      methods.push_back(j);
    }
    std::cout << json{{"methods", methods}}.dump(2) << "\n";
    return;
  }
  // Backend rows keep the fixed columns (method 10, backend 11, available 11) that scripts
  // read with awk; the method's own lines above them start with "name:".
  bool first = true;
  for (const MethodInfo& m : reg.methods()) {
    if (!first) std::cout << "\n";
    first = false;
    std::cout << m.name << ": " << m.title << "\n  " << m.citation << "\n";
    if (!m.accuracy_source.empty()) std::cout << "  paper accuracy: " << m.accuracy_source << "\n";
    if (!m.speed_source.empty()) std::cout << "  paper speed: " << m.speed_source << "\n";
    std::cout << "  parameters: stereo params -m " << m.name << "\n";
    std::cout << std::left << std::setw(10) << "method" << std::setw(11) << "backend" << std::setw(11) << "available"
              << "notes\n";
    for (const std::string& b : reg.backends(m.name)) {
      const BackendEntry& e = reg.find(m.name, b);
      const auto reason = unavailable(e);
      std::cout << std::setw(10) << m.name << std::setw(11) << b << std::setw(11) << (reason ? "no" : "yes")
                << (reason ? *reason : e.summary) << "\n";
    }
  }
}

void cmd_params(const std::string& method) {
  const Registry& reg = builtin_registry();
  const MethodInfo& m = reg.method(method);
  std::string backends;
  for (const std::string& b : reg.backends(method)) backends += (backends.empty() ? "" : ", ") + b;
  std::cout << m.name << ": " << m.title << "\n  " << m.citation << "\n\n"
            << "parameters of every backend (--set key=value; key = default  (doc)):\n"
            << (m.describe_params ? m.describe_params() : std::string("  (none)\n"))
            << "\nbackends (" << backends << ") may add options of their own; every run prints all "
            << "parameters in force\n";
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

// ---- bench -----------------------------------------------------------------------------

struct BenchArgs {
  std::string size;
  int levels = 0;
  int min_disparity = 0;
  int repeat = 10;
  bool json_out = false;
  MethodChoice choice;
  bool backend_given = false;
};

void print_bench_header(const std::string& device, const json& params, const MethodInfo& info, const json& first,
                        bool any_paper) {
  const int repeat = first["repeat"].get<int>();
  std::cout << "GPU/CPU: " << device << "\nsource: " << source_revision() << "\nparams: " << params.dump() << "\n"
            << "time: median of " << repeat << (repeat == 1 ? " run" : " runs") << " after " << warmup_text(WarmUp{})
            << ", "
            << first["clock"].get<std::string>() << "; total = upload of both images + algorithm + read-back of "
            << "the disparity map (input generation and matcher creation excluded)\n"
            << "Mde/s = W x H x disparities / total time (the paper's convention), alg Mde/s over the algorithm "
               "time alone\n";
  if (any_paper)
    std::cout << "paper: " << info.citation << ", " << info.speed_source << "; paper Mde/s on " << info.paper_gpu
              << ", ours/paper = our Mde/s / the paper's\n";
  std::cout << "\n"
            << std::left << std::setw(11) << "backend" << std::right << std::setw(11) << "size" << std::setw(11)
            << "disp" << std::setw(11) << "alg ms" << std::setw(10) << "upload" << std::setw(10) << "readback"
            << std::setw(10) << "total ms" << std::setw(9) << "fps" << std::setw(11) << "Mde/s" << std::setw(12)
            << "alg Mde/s" << std::setw(13) << "paper Mde/s" << std::setw(12) << "ours/paper"
            << "   fetch Gtex/s (ceiling, share)\n";
}

void print_bench_row(const json& j) {
  const DisparityRange range{j["min_disparity"].get<int>(), j["levels"].get<int>()};
  const json& paper = j["paper"];
  const auto paper_num = [&](const char* key, int precision) {
    return paper.is_object() && paper[key].is_number() ? fmt(paper[key].get<double>(), precision) : std::string("-");
  };
  std::cout << std::left << std::setw(11) << j["backend"].get<std::string>() << std::right << std::setw(11)
            << (std::to_string(j["width"].get<int>()) + "x" + std::to_string(j["height"].get<int>())) << std::setw(11)
            << range_text(range) << std::setw(11) << fmt(j["algorithm_ms"].get<double>(), 3) << std::setw(10)
            << fmt(j["upload_ms"].get<double>(), 3) << std::setw(10) << fmt(j["readback_ms"].get<double>(), 3)
            << std::setw(10) << fmt(j["total_ms"].get<double>(), 3) << std::setw(9) << fmt(j["fps"].get<double>(), 1)
            << std::setw(11) << fmt(j["mdes"].get<double>(), 0) << std::setw(12)
            << fmt(j["mdes_algorithm"].get<double>(), 0) << std::setw(13) << paper_num("mdes", 0) << std::setw(12)
            << paper_num("ratio_mdes", 2);
  if (j.contains("fetch_gtexel_s"))
    std::cout << "   " << fmt(j["fetch_gtexel_s"].get<double>(), 1) << " (" << fmt(j["ceiling_gtexel_s"].get<double>(), 1)
              << ", " << fmt(100.0 * j["fetch_share"].get<double>(), 0) << "%)";
  if (paper.is_object() && !paper["mdes"].is_number() && !paper["note"].get<std::string>().empty())
    std::cout << "   (" << paper["note"].get<std::string>() << ")";
  if (j.contains("set"))
    for (const auto& [key, value] : j["set"].items()) std::cout << "   " << key << "=" << value.get<std::string>();
  if (paper.is_object() && paper["ms"].is_number() && j["total_ms"].get<double>() > 0) {
    const double speedup = paper["ms"].get<double>() / j["total_ms"].get<double>();
    std::cout << "   paper " << fmt(paper["ms"].get<double>(), 2) << " ms (paper / ours = "
              << fmt(speedup, speedup < 10.0 ? 2 : 0) << ")";
  }
  std::cout << std::endl;
  // One indented line per named stage; GB/s and the share of the copy rate where accounted.
  if (j.contains("stages") && j["stages"].size() > 1)
    for (const json& s : j["stages"]) {
      std::cout << "    " << std::left << std::setw(28) << s["name"].get<std::string>() << std::right << std::setw(10)
                << fmt(s["ms"].get<double>(), 3) << " ms";
      if (s.contains("gb_s"))
        std::cout << std::setw(10) << fmt(s["bytes"].get<double>() / 1e6, 1) << " MB" << std::setw(9)
                  << fmt(s["gb_s"].get<double>(), 0) << " GB/s" << std::setw(6)
                  << fmt(100.0 * s["copy_share"].get<double>(), 0) << " % of the " << fmt(j["copy_gb_s"].get<double>(), 0)
                  << " GB/s copy";
      std::cout << "\n";
    }
}

void cmd_bench(const BenchArgs& a) {
  require(a.repeat >= 1, "bench: --repeat must be >= 1, got " + std::to_string(a.repeat));
  const Registry& reg = builtin_registry();
  const MethodInfo& info = reg.method(a.choice.method);
  std::vector<std::string> backends;
  if (a.backend_given) {
    backends.push_back(a.choice.backend);
  } else {
    for (const std::string& b : reg.backends(a.choice.method)) {
      if (b == "cpu") continue;
      const auto reason = unavailable(reg.find(a.choice.method, b));
      if (!reason) backends.push_back(b);
      else std::cerr << "bench: skipping " << a.choice.method << "/" << b << ": " << *reason << "\n";
    }
    require(!backends.empty(), "bench: no GPU backend of " + a.choice.method + " is available here; pass -b cpu");
  }
  // The paper's setting of a size and count, so a --size run that matches one is compared too.
  // A setting that carries parameter overrides matches only when the user's --set has them.
  const Overrides user = a.choice.overrides();
  const auto paper_setting = [&](int w, int h, int levels) -> std::optional<PaperSpeed> {
    for (const PaperSpeed& s : info.speed) {
      const bool set_holds = std::all_of(s.set.begin(), s.set.end(), [&](const auto& kv) {
        return std::find(user.begin(), user.end(), kv) != user.end();
      });
      if (s.width == w && s.height == h && s.levels == levels && set_holds) return s;
    }
    return std::nullopt;
  };
  std::vector<BenchConfig> configs;
  if (!a.size.empty()) {
    const auto [w, h] = parse_size(a.size, "bench: --size");
    require(a.levels >= 1, "bench: -d LEVELS is required with --size");
    configs.push_back({w, h, {a.min_disparity, a.levels}, paper_setting(w, h, a.levels)});
  } else {
    require(a.levels == 0, "bench: -d needs --size");
    require(!info.speed.empty(), "bench: " + info.name + " registers no speed settings; pass --size WxH -d LEVELS");
    for (const PaperSpeed& s : info.speed) configs.push_back({s.width, s.height, {a.min_disparity, s.levels}, s});
  }
  // Every configuration's range is checked before anything runs, so a sweep never stops halfway.
  for (const BenchConfig& c : configs)
    validate_pair(ImageU8(c.width, 1, 3), ImageU8(c.width, 1, 3), c.range, "bench");
  const bool any_paper =
      std::any_of(configs.begin(), configs.end(), [](const BenchConfig& c) { return c.paper && c.paper->mdes; });

  json rows = json::array();
  bool header = false;
  std::vector<std::unique_ptr<Matcher>> matchers;
  for (const auto& b : backends) {
    matchers.push_back(create_matcher(a.choice.method, b, a.choice.overrides()));
    if (matchers.back()->device().find("llvmpipe") != std::string::npos && a.size.empty())
      std::cerr << "bench: " << b << " runs on Mesa's llvmpipe (software rendering): the full sweep takes many "
                << "minutes; --size WxH -d LEVELS times one configuration\n";
  }
  for (const BenchConfig& c : configs)
    for (std::size_t i = 0; i < backends.size(); ++i) {
      // A paper setting with its own parameters (SymStereo's N per cell) runs on a matcher made
      // for it: the user's --set, then the setting's overrides, which are the paper's cell.
      std::unique_ptr<Matcher> own;
      if (c.paper && !c.paper->set.empty() && a.size.empty()) {
        Overrides o = user;
        o.insert(o.end(), c.paper->set.begin(), c.paper->set.end());
        own = create_matcher(a.choice.method, backends[i], o);
      }
      json j = bench_one(own ? *own : *matchers[i], info, backends[i], c, a.repeat);
      if (c.paper && !c.paper->set.empty()) {
        json set = json::object();
        for (const auto& [key, value] : c.paper->set) set[key] = value;
        j["set"] = set;
      }
      if (!a.json_out && !header) {
        print_bench_header(matchers[i]->device(), matchers[i]->params(), info, j, any_paper);
        header = true;
      }
      if (!a.json_out) print_bench_row(j);
      rows.push_back(j);
    }
  if (a.json_out) std::cout << (rows.size() == 1 ? rows[0].dump(2) : rows.dump(2)) << "\n";
}

}  // namespace

void add_core_commands(CLI::App& app) {
  auto* list = app.add_subcommand("list", "list every method (title, paper) and its backends, and whether each runs here");
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_json, "print JSON, with each method's paper figures and parameters");
  list->callback([list_json] { cmd_list(*list_json); });

  auto params_method = std::make_shared<std::string>();
  auto* pa = app.add_subcommand("params", "print a method's parameters with their defaults and sources");
  pa->add_option("-m,--method", *params_method, "method name (see `stereo list`)")->required();
  pa->callback([params_method] { cmd_params(*params_method); });

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

  add_eval_command(app);

  auto be = std::make_shared<BenchArgs>();
  auto* b = app.add_subcommand("bench", "time a method (without --size: the paper's own settings)");
  be->choice.add_to(b, false);
  b->add_option("--size", be->size, "image size WxH (default: the method's paper settings, see `stereo list --json`)");
  b->add_option("-d,--levels", be->levels, "number of disparities (with --size)");
  b->add_option("--min-disparity", be->min_disparity, "smallest disparity searched (may be negative)")
      ->capture_default_str();
  b->add_option("--repeat", be->repeat, "timed runs after the warm-up; medians are reported")->capture_default_str();
  b->add_flag("--json", be->json_out, "print JSON");
  b->callback([be, b] {
    be->backend_given = b->count("--backend") > 0;
    cmd_bench(*be);
  });

  add_compare_commands(app);
}

}  // namespace stereo::cli
