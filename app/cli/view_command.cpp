// `stereo view LEFT RIGHT | SCENE_DIR | LEFT_DIR RIGHT_DIR`: the window of app/view/. What the
// command line gets wrong fails here as one line, before a window opens; what goes wrong in the
// window is shown there, and closing it exits 0.

#include "app/cli/view_command.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include "app/cli/method_choice.h"
#include "app/image_io.h"
#include "app/measure.h"
#include "app/passes.h"
#include "app/view/viewer_state.h"
#include "app/view/viewer_window.h"
#include "core/error.h"

namespace stereo::cli {

namespace {

struct ViewArgs {
  std::string a, b, gt, screenshot, dump_passes, size = "1600x1000";
  std::string method = "salap", backend = "cpu";
  std::vector<std::string> sets, stages;
  int levels = 0;
  int min_disparity = 0;
  int frames = 0;
  bool inspector = false, play = false, no_views = false, no_interop = false;
};

// --dump-passes DIR of the last run, its size said before anything is written.
PassDump dump_view_passes(const ViewArgs& a, const view::ViewerState& state) {
  PassDumpOptions options;
  options.range = state.range();
  options.stages = a.stages;
  options.announce = [&](const PassDumpSize& size) {
    std::cout << "passes: writing " << size.passes << " of " << size.passes_kept << " passes, "
              << describe_size(size) << " into " << a.dump_passes << std::endl;
  };
  return dump_passes(*state.matcher(), a.dump_passes, options);
}

void cmd_view(const ViewArgs& a) {
  require(a.stages.empty() || !a.dump_passes.empty(), "view: --stage selects what --dump-passes DIR writes",
          ErrorKind::invalid_argument);
  require(a.frames >= 0, "view: --frames must be >= 0, got " + std::to_string(a.frames), ErrorKind::invalid_argument);
  require(a.screenshot.empty() || a.frames > 0, "view: --screenshot FILE needs --frames N (the frame it shows)",
          ErrorKind::invalid_argument);
  require(a.levels >= 0, "view: -d must be > 0, got " + std::to_string(a.levels), ErrorKind::invalid_argument);
  const auto [width, height] = parse_size(a.size, "view: --size");
  if (!a.screenshot.empty()) {
    // Refuse an unwritable target before any work, as `run` does.
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(a.screenshot).parent_path();
    require(parent.empty() || std::filesystem::is_directory(parent, ec),
            "cannot write " + a.screenshot + ": folder " + parent.string() + " does not exist");
  }
  view::Choice choice{a.method, a.backend, a.levels, a.min_disparity, {}};
  for (const std::string& s : a.sets) choice.overrides.push_back(parse_override(s));
  (void)builtin_registry().find(choice.method, choice.backend);  // a misspelt name: a usage error, before a window
  view::ViewerState state(view::ViewInput::open(a.a, a.b, a.levels, a.min_disparity, a.gt), choice);
  if (!a.dump_passes.empty() && a.frames == 0) {
    // The inspector's job without a window (no display needed): the same state, its passes kept
    // from the first run, then dumped as `stereo passes` dumps them.
    require(state.apply(view::Change::passes(true)), [&] { return state.error(); });
    require(state.inspector() != nullptr, [&] { return "view: --dump-passes: " + state.passes_note(); });
    const PassDump d = dump_view_passes(a, state);
    std::cout << "passes: " << d.passes << " into " << d.dir.string() << "\n";
    return;
  }
  view::WindowOptions options;
  options.width = width;
  options.height = height;
  options.show_inspector = a.inspector || !a.dump_passes.empty();  // keep_passes(true) before the first run
  options.show_views = !a.no_views;
  options.interop = !a.no_interop;
  options.wait_for_events = a.frames == 0;
  auto window_owner = std::make_unique<view::ViewerWindow>(state, options);
  view::ViewerWindow& window = *window_owner;
  window.ui().playing = a.play;
  if (!window.interop_note().empty() && choice.backend == "cuda") std::cerr << "view: " << window.interop_note() << "\n";
  if (a.play && a.frames > 0 && state.input().is_sequence()) {
    // --play --frames N: N frames of the sequence matched (through the pipelined player where
    // the backend allows, app/view/sequence_player.h), the window drawing meanwhile at its own
    // pace; then one more frame, the one a screenshot shows.
    window.play_frames(std::size_t(a.frames));
    std::size_t drawn = 0;
    while (window.ui().playing && window.frame()) ++drawn;
    const std::size_t played = window.frames_played();
    const double s = window.play_seconds();
    ImageU8 pixels;
    window.frame(!a.screenshot.empty() ? &pixels : nullptr);
    if (!a.screenshot.empty()) write_png(a.screenshot, pixels);
    if (played > 0 && s > 0)
      std::cout << "view: " << played << " frames matched in " << fmt(s, 3) << " s: " << fmt(double(played) / s, 1)
                << " frames/s (" << a.method << "/" << a.backend << ", "
                << (window.played_pipelined() ? "pipelined as `stream` runs it, maps through the host"
                                              : "frame by frame in the window's thread" +
                                                    std::string(window.interop_active() ? ", maps through the CUDA-GL interop" : ""))
                << "); the window drew " << drawn << " frames meanwhile\n";
    if (window.played_pipelined() && window.steady_fps() > 0)
      std::cout << "view: steady state (first map back -> last map back): " << fmt(window.steady_fps(), 2)
                << " frames/s, as `stream` reports it\n";
  } else {
    const auto start = std::chrono::steady_clock::now();
    std::size_t runs = 0;
    std::uint64_t serial = state.result() ? state.result()->serial : 0;
    for (int n = 1; a.frames == 0 || n <= a.frames; ++n) {
      const bool last = a.frames > 0 && n == a.frames;
      ImageU8 pixels;
      if (!window.frame(last && !a.screenshot.empty() ? &pixels : nullptr)) break;
      if (state.result() && state.result()->serial != serial) {
        serial = state.result()->serial;
        ++runs;
      }
      if (last && !a.screenshot.empty()) write_png(a.screenshot, pixels);
    }
    if (a.play && runs > 0) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::cout << "view: " << runs << " frames matched and drawn in " << fmt(s, 3) << " s: "
                << fmt(double(runs) / s, 1) << " frames/s (" << a.method << "/" << a.backend
                << (window.interop_active() ? ", map through the CUDA-GL interop" : "") << ")\n";
    }
  }
  if (a.frames > 0 && state.result() && state.result()->error_on_device)
    std::cout << "view: the last run's figures were scored on the GPU beside the interop map: the pass "
              << fmt(state.result()->figures_ms, 3) << " ms (every run), the scene's upload "
              << fmt(state.result()->figures_upload_ms, 3) << " ms (once per scene; host clock, "
              << state.result()->width << "x" << state.result()->height << ")\n";
  if (!a.screenshot.empty()) std::cout << "screenshot: " << a.screenshot << "\n";
  if (!a.dump_passes.empty()) {
    window_owner.reset();  // a GL matcher's inspector reads in its own context, which the window's must not hold
    require(state.matcher() != nullptr, "view: --dump-passes: no run to dump: " + state.error());
    const PassDump d = dump_view_passes(a, state);
    std::cout << "passes: " << d.passes << " into " << d.dir.string() << "\n";
  }
  // A scripted run (--frames) that ends on an error says so in its exit status; a closed
  // interactive window exits 0 whatever it showed.
  require(a.frames == 0 || state.error().empty(), state.error());
}

}  // namespace

void add_view_command(CLI::App& app) {
  auto args = std::make_shared<ViewArgs>();
  auto* v = app.add_subcommand("view", "the interactive viewer: a pair, a scene folder, or a sequence "
                                       "(LEFT_DIR RIGHT_DIR) in a window (docs/viewer.md)");
  v->add_option("A", args->a, "left image, a scene folder (any format eval reads) or a dataset name under the data root "
                "(middlebury-v2/tsukuba), or the left folder of a sequence")
      ->required();
  v->add_option("B", args->b, "right image, or the right folder of a sequence");
  v->add_option("-m,--method", args->method, "method name (see `stereo list`)")->capture_default_str();
  v->add_option("-b,--backend", args->backend, "backend: cpu, gl, glcompute, cuda (see `stereo list`)")
      ->capture_default_str();
  v->add_option("--set", args->sets, "override a parameter: --set key=value (repeatable)");
  v->add_option("-d,--levels", args->levels, "number of disparities searched (default: the scene's, 64 for a pair)");
  v->add_option("--min-disparity", args->min_disparity, "smallest disparity searched")->capture_default_str();
  v->add_option("--gt", args->gt, "ground truth of LEFT RIGHT: PFM, or a 16-bit KITTI PNG");
  v->add_option("--size", args->size, "window size WxH")->capture_default_str();
  v->add_flag("--inspector", args->inspector, "open the pass inspector (backends that keep their passes)");
  v->add_flag("--play", args->play, "play the sequence from the start (prints the rate at the end)");
  v->add_flag("--no-views", args->no_views, "hide the left and right images (nothing of them is uploaded per frame)");
  v->add_flag("--no-interop", args->no_interop, "CUDA backends hand their map over through the host");
  v->add_option("--frames", args->frames,
                "draw N frames, then exit (0: until the window is closed); with --play on a sequence: play N frames "
                "of it, then exit");
  v->add_option("--screenshot", args->screenshot, "write the window as PNG after the last of --frames N");
  v->add_option("--dump-passes", args->dump_passes,
                "write every pass of the run into DIR as `stereo passes` does (PNG + PFM + passes.json): alone, "
                "without opening a window; with --frames N, after the last frame");
  v->add_option("--stage", args->stages,
                "with --dump-passes: write only the passes whose name or stage (up to the first '.') matches this "
                "shell pattern (repeatable)");
  v->callback([args] { cmd_view(*args); });
}

}  // namespace stereo::cli
