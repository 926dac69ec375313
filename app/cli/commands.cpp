// The core commands. They name no method: titles, citations, the papers' accuracy tables and
// speed settings all come from the registry's MethodInfo (methods/<name>/info.cpp).

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
#include "app/cli/eval_command.h"
#include "app/cli/passes_command.h"
#include "app/cli/method_choice.h"
#if STEREO_WITH_VIEWER
#include "app/cli/view_command.h"
#endif
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
  const std::optional<ParamPreset> preset = a.choice.preset();
  if (!a.json_out) print_params(a.choice.method, a.choice.backend, *matcher, preset);
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
              {"params", matcher->params()}, {"preset", preset_json(preset)},
              {"width", left.width}, {"height", left.height},
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

  add_eval_command(app);
  add_passes_command(app);

  add_bench_command(app);
  add_compare_commands(app);
#if STEREO_WITH_VIEWER
  add_view_command(app);
#else
  // The command is named either way, so a build without the window says why instead of
  // "unknown subcommand".
  auto* view = app.add_subcommand("view", "the interactive viewer (not in this build: STEREO_WITH_VIEWER)");
  view->allow_extras();
  view->callback([] {
    throw Error("view: this build has no viewer (configure with GLFW and Dear ImGui, libimgui-dev: STEREO_WITH_VIEWER)",
                ErrorKind::unavailable);
  });
#endif
}

}  // namespace stereo::cli
