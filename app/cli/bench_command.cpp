// `stereo bench`: times a method on its paper's own settings (MethodInfo::speed) or on one
// --size, per available GPU backend (or the one -b names), with the paper's figures beside ours.

#include "app/cli/bench_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/bench_report.h"
#include "app/cli/method_choice.h"
#include "app/measure.h"
#include "app/revision.h"
#include "core/error.h"
#include "core/matcher.h"
#include "core/validate.h"
#include "methods/builtin.h"

namespace stereo::cli {
using nlohmann::json;

namespace {

// ---- bench -----------------------------------------------------------------------------

struct BenchArgs {
  std::string size;
  int levels = 0;
  int min_disparity = 0;
  int repeat = 10;
  double energy_ms = EnergyWindow{}.min_ms;
  bool json_out = false;
  MethodChoice choice;
  bool backend_given = false;
};

void print_bench_header(const std::string& device, const json& params, const std::optional<ParamPreset>& preset,
                        const MethodInfo& info, const json& first, bool any_paper, const EnergyWindow& energy) {
  const int repeat = first["repeat"].get<int>();
  std::cout << "GPU/CPU: " << device << "\nsource: " << source_revision() << "\nparams: " << params.dump() << "\n"
            << preset_line(preset)
            << "time: median of " << repeat << (repeat == 1 ? " run" : " runs") << " after " << warmup_text(WarmUp{})
            << ", "
            << first["clock"].get<std::string>() << "; total = upload of both images + algorithm + read-back of "
            << "the disparity map (input generation and matcher creation excluded)\n"
            << "Mde/s = W x H x disparities / total time (the paper's convention), alg Mde/s over the algorithm "
               "time alone\n";
  if (any_paper)
    std::cout << "paper: " << info.citation << ", " << info.speed_source << "; paper Mde/s on " << info.paper_gpu
              << ", ours/paper = our Mde/s / the paper's\n";
  std::cout << bench_legend(energy) << "\n";
  print_bench_columns(std::cout);
}

void cmd_bench(const BenchArgs& a) {
  require(a.repeat >= 1, "bench: --repeat must be >= 1, got " + std::to_string(a.repeat));
  require(a.energy_ms >= 0.0 && std::isfinite(a.energy_ms),
          "bench: --energy-ms must be a finite number >= 0, got " + fmt(a.energy_ms, 1));
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
  const std::optional<ParamPreset> preset = a.choice.preset();
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
      json j = bench_one(own ? *own : *matchers[i], info, backends[i], c, a.repeat, WarmUp{}, EnergyWindow{a.energy_ms});
      if (c.paper && !c.paper->set.empty()) {
        json set = json::object();
        for (const auto& [key, value] : c.paper->set) set[key] = value;
        j["set"] = set;
      }
      j["preset"] = preset_json(preset);
      if (!a.json_out && !header) {
        print_bench_header(matchers[i]->device(), matchers[i]->params(), preset, info, j, any_paper,
                           EnergyWindow{a.energy_ms});
        header = true;
      }
      if (!a.json_out) print_bench_row(std::cout, j);
      rows.push_back(j);
    }
  if (a.json_out) std::cout << (rows.size() == 1 ? rows[0].dump(2) : rows.dump(2)) << "\n";
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto be = std::make_shared<BenchArgs>();
  auto* b = app.add_subcommand("bench", "time a method (without --size: the paper's own settings)");
  be->choice.add_to(b, false);
  b->add_option("--size", be->size, "image size WxH (default: the method's paper settings, see `stereo list --json`)");
  b->add_option("-d,--levels", be->levels, "number of disparities (with --size)");
  b->add_option("--min-disparity", be->min_disparity, "smallest disparity searched (may be negative)")
      ->capture_default_str();
  b->add_option("--repeat", be->repeat, "timed runs after the warm-up; medians are reported")->capture_default_str();
  b->add_option("--energy-ms", be->energy_ms,
                 "wall time of back-to-back frames over which the GPU's energy counter is read (0: not read)")
      ->capture_default_str();
  b->add_flag("--json", be->json_out, "print JSON");
  b->callback([be, b] {
    be->backend_given = b->count("--backend") > 0;
    cmd_bench(*be);
  });
}

}  // namespace stereo::cli
