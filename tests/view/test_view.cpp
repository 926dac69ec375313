// The window under a display (Xvfb and Mesa's llvmpipe in CI), or headless (an EGL context
// drawing offscreen: on the GPU machine, which has no display, the NVIDIA driver's): the disparity panel, read back from the window, is the PNG `stereo run --color`
// writes for the same pair and parameters, before and after a change made through the path the
// widgets use; bad changes keep it. CUDA backends are checked through the CUDA-GL interop
// where the window's GL is on a CUDA device, and skip, saying so, elsewhere.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/image_io.h"
#include "app/metrics.h"
#include "app/protocol.h"
#include "app/view/viewer_state.h"
#include "app/view/viewer_window.h"
#include "core/registry.h"
#include "methods/builtin.h"
#include "tests/view/view_test_util.h"
#if STEREO_VIEW_CUDA_INTEROP
#include "tests/view/d2h_counter.h"
#endif

namespace stereo::view {
namespace {

// A display is what these tests need (scripts/test.sh runs them under xvfb-run), or the
// headless window (STEREO_VIEW_CONTEXT=headless: an EGL context drawing offscreen, as on the
// GPU machine); without either they skip.
#define REQUIRE_DISPLAY()                                                                  \
  do {                                                                                     \
    if (!test::window_possible())                                                         \
      GTEST_SKIP() << "no display (run under xvfb-run, as scripts/test.sh does, or with "   \
                      "STEREO_VIEW_CONTEXT=headless)";                                     \
  } while (false)

WindowOptions test_window() {
  WindowOptions o;
  o.width = 640;  // scripts/test.sh's Xvfb screen
  o.height = 480;
  o.test_layout = true;
  return o;
}

// The disparity panel's pixels in the frame just drawn.
ImageU8 panel(ViewerWindow& w) {
  ImageU8 all;
  EXPECT_TRUE(w.frame(&all));
  const PixelRect r = w.ui().disparity_rect;
  ImageU8 out(r.width, r.height, 3);
  for (int y = 0; y < r.height; ++y)
    for (int x = 0; x < r.width; ++x)
      for (int c = 0; c < 3; ++c) out.at(x, y, c) = all.at(r.x + x, r.y + y, c);
  return out;
}

// Pixels that differ, with the first one named, so a failure says where.
std::string differences(const ImageU8& got, const ImageU8& want) {
  if (got.width != want.width || got.height != want.height || got.channels != want.channels)
    return "sizes differ: " + std::to_string(got.width) + "x" + std::to_string(got.height) + "x" +
           std::to_string(got.channels) + " vs " + std::to_string(want.width) + "x" + std::to_string(want.height) +
           "x" + std::to_string(want.channels);
  std::size_t n = 0;
  std::string first;
  for (int y = 0; y < got.height; ++y)
    for (int x = 0; x < got.width; ++x)
      for (int c = 0; c < 3; ++c)
        if (got.at(x, y, c) != want.at(x, y, c)) {
          if (n++ == 0)
            first = " first at (" + std::to_string(x) + ", " + std::to_string(y) + ") channel " + std::to_string(c) +
                    ": " + std::to_string(got.at(x, y, c)) + " vs " + std::to_string(want.at(x, y, c));
        }
  return n == 0 ? "" : std::to_string(n) + " values differ;" + first;
}

void expect_panel_is_run_color(const std::string& method, const std::string& backend) {
  const auto dir = stereo::test::fresh_test_dir("stereo_view_");
  const ImageU8 want = test::run_color(dir, method, backend);
  ViewerState state(ViewInput::scene(test::tsukuba()), Choice{method, backend, 0, 0, {}});
  ViewerWindow window(state, test_window());
  ASSERT_TRUE(state.error().empty()) << state.error();
  panel(window);  // ImGui sizes its windows in the first frame
  EXPECT_EQ(differences(panel(window), want), "") << method << "/" << backend;

  // A parameter change through the widgets' path: the map `run --set` makes.
  const std::string key = method == "salap" ? "windows" : "";
  if (key.empty()) return;
  ASSERT_TRUE(window.apply(Change::param(key, "4"))) << state.error();
  const ImageU8 changed = test::run_color(dir, method, backend, "--set " + key + "=4");
  EXPECT_NE(differences(changed, want), "") << "the change should change the map";
  panel(window);
  EXPECT_EQ(differences(panel(window), changed), "") << method << "/" << backend << " after --set " << key << "=4";
}

bool available(const std::string& method, const std::string& backend, std::string& why) {
  for (const BackendEntry& e : builtin_registry().entries())
    if (e.method == method && e.backend == backend) {
      const auto reason = e.unavailable ? e.unavailable() : std::nullopt;
      why = reason.value_or("");
      return !reason;
    }
  why = "not in this build";
  return false;
}

TEST(ViewerWindow, DisparityPanelIsRunColorSalapCpu) {
  REQUIRE_TSUKUBA();
  REQUIRE_DISPLAY();
  expect_panel_is_run_color("salap", "cpu");
}

TEST(ViewerWindow, DisparityPanelIsRunColorSalapGl) {
  REQUIRE_TSUKUBA();
  REQUIRE_DISPLAY();
  std::string why;
  if (!available("salap", "gl", why)) GTEST_SKIP() << "salap/gl: " << why;
  expect_panel_is_run_color("salap", "gl");
}

TEST(ViewerWindow, DisparityPanelIsRunColorCudaLessMethod) {
  REQUIRE_TSUKUBA();
  REQUIRE_DISPLAY();
  const auto [method, backend] = test::cuda_less_method();
  if (method.empty()) GTEST_SKIP() << "every method in this build has a CUDA backend";
  std::string why;
  if (!available(method, backend, why)) GTEST_SKIP() << method << "/" << backend << ": " << why;
  expect_panel_is_run_color(method, backend);
}

// The GPU machine: the map reaches the window through the interop, never through the host.
void expect_interop_panel(const std::string& method) {
  std::string why;
  if (!available(method, "cuda", why)) GTEST_SKIP() << method << "/cuda: " << why;
  const auto dir = stereo::test::fresh_test_dir("stereo_view_cuda_");
  const ImageU8 want = test::run_color(dir, method, "cuda");
  ViewerState state(ViewInput::scene(test::tsukuba()), Choice{method, "cuda", 0, 0, {}});
  ViewerWindow window(state, test_window());
  if (!window.interop_active()) GTEST_SKIP() << window.interop_note();
  ASSERT_TRUE(state.error().empty()) << state.error();
  ASSERT_NE(state.result(), nullptr);
  EXPECT_TRUE(state.result()->on_device);
  EXPECT_FALSE(state.result()->disparity.has_value());
  panel(window);
  EXPECT_EQ(differences(panel(window), want), "") << method << "/cuda through the interop";
  // `eval`'s figures, scored on the GPU from the interop's texture, equal the host's scoring
  // of `stereo run`'s map (the average error within another summation order's rounding).
  {
    const Scene scene = load_scene(test::tsukuba());
    const Metrics host = evaluate(as_submitted(read_pfm(dir / "map.pfm"), scene), scene, scene.default_threshold);
    const ViewResult& r = *state.result();
    ASSERT_TRUE(r.metrics.has_value()) << r.no_figures;
    EXPECT_TRUE(r.error_on_device);
    EXPECT_EQ(r.metrics->bad_nonocc, host.bad_nonocc);
    EXPECT_EQ(r.metrics->bad_all, host.bad_all);
    EXPECT_EQ(r.metrics->bad_disc, host.bad_disc);
    EXPECT_EQ(r.metrics->density, host.density);
    ASSERT_TRUE(r.metrics->avg_error && host.avg_error);
    EXPECT_NEAR(*r.metrics->avg_error, *host.avg_error, 1e-12 * *host.avg_error);
  }
#if STEREO_VIEW_CUDA_INTEROP
  // Less than a map's worth (a u8 index map, the smallest form) of bytes reaches host memory on
  // this path; the same run on the host path moves at least that much, so the counter is seen
  // to count (summed over copies: salap/cuda reads a map back in bands).
  const std::size_t map_bytes = std::size_t(state.result()->width) * std::size_t(state.result()->height);
  test::reset_d2h();
  ASSERT_TRUE(window.rerun()) << state.error();
  EXPECT_TRUE(state.result()->on_device);
  EXPECT_LT(test::d2h_bytes(), map_bytes) << method << "/cuda copied a map's worth of bytes to the host on the interop path";
  state.set_device_target(nullptr);
  test::reset_d2h();
  ASSERT_TRUE(window.rerun()) << state.error();
  EXPECT_FALSE(state.result()->on_device);
  EXPECT_GE(test::d2h_bytes(), map_bytes) << "the counter saw no read-back on the host path";
#endif
}

TEST(ViewerWindow, InteropPanelIsRunColorSalapCuda) {
  REQUIRE_TSUKUBA();
  REQUIRE_DISPLAY();
  expect_interop_panel("salap");
}

TEST(ViewerWindow, InteropPanelIsRunColorAdcensusCuda) {
  REQUIRE_TSUKUBA();
  REQUIRE_DISPLAY();
  expect_interop_panel("adcensus");
}

TEST(ViewerWindow, BadChangesShowTheLineAndKeepThePanel) {
  REQUIRE_TSUKUBA();
  REQUIRE_DISPLAY();
  const auto dir = stereo::test::fresh_test_dir("stereo_view_bad_");
  const ImageU8 want = test::run_color(dir, "salap", "cpu");
  ViewerState state(ViewInput::scene(test::tsukuba()), Choice{"salap", "cpu", 0, 0, {}});
  ViewerWindow window(state, test_window());
  panel(window);
  EXPECT_FALSE(window.apply(Change::open((dir / "missing.png").string(), (dir / "missing.png").string())));
  EXPECT_FALSE(window.apply(Change::param("gamma", "0")));
  EXPECT_FALSE(window.apply(Change::levels(1000)));
  EXPECT_FALSE(state.error().empty());
  panel(window);
  EXPECT_EQ(differences(panel(window), want), "");
  // The pass inspector on a backend without one: a note in its panel, not an error.
  ASSERT_TRUE(window.apply(Change::passes(true))) << state.error();
  window.ui().show_inspector = true;
  panel(window);
  EXPECT_TRUE(state.error().empty()) << state.error();
  if (state.inspector() == nullptr) {
    EXPECT_FALSE(state.passes_note().empty());
  }
}

TEST(ViewerWindow, ScreenshotOfTheCommandLine) {
  REQUIRE_TSUKUBA();
  REQUIRE_DISPLAY();
  const auto dir = stereo::test::fresh_test_dir("stereo_view_cli_");
  const auto png = dir / "shot.png";
  const auto r = stereo::test::run_stereo(
      dir, "view " + test::tsukuba().string() + " -m salap --size 640x480 --frames 3 --screenshot " + png.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const ImageU8 shot = read_image(png);
  EXPECT_EQ(shot.width, 640);
  EXPECT_EQ(shot.height, 480);
  // A bad command line fails before any window, in one line.
  const auto bad = stereo::test::run_stereo(dir, "view " + (dir / "nope").string());
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("nope"), std::string::npos) << bad.err;
}

// --dump-passes alone opens no window (no display: DISPLAY unset for the child) and writes the
// files `stereo passes` writes for the same pair and choice.
TEST(ViewerCommand, DumpPassesWithoutAWindowEqualsStereoPasses) {
  REQUIRE_TSUKUBA();
  const auto dir = stereo::test::fresh_test_dir("stereo_view_dump_");
  const std::string pair = (test::tsukuba() / "left.png").string() + " " + (test::tsukuba() / "right.png").string();
  const std::string choice = " -m salap -b cpu -d 16 --set windows=4";
  const char* display = std::getenv("DISPLAY");
  const std::string saved = display != nullptr ? display : "";
  unsetenv("DISPLAY");
  const auto view = stereo::test::run_stereo(dir, "view " + pair + choice + " --dump-passes " + (dir / "v").string());
  if (!saved.empty()) setenv("DISPLAY", saved.c_str(), 1);
  ASSERT_EQ(view.code, 0) << view.err;
  const auto passes = stereo::test::run_stereo(dir, "passes " + pair + choice + " --out " + (dir / "p").string());
  ASSERT_EQ(passes.code, 0) << passes.err;
  std::vector<std::string> from_view, from_passes;
  for (const auto& e : std::filesystem::directory_iterator(dir / "v")) from_view.push_back(e.path().filename());
  for (const auto& e : std::filesystem::directory_iterator(dir / "p")) from_passes.push_back(e.path().filename());
  std::sort(from_view.begin(), from_view.end());
  std::sort(from_passes.begin(), from_passes.end());
  EXPECT_GT(from_view.size(), 3u);
  EXPECT_EQ(from_view, from_passes);
  for (const std::string& name : from_view) {
    if (name.size() > 4 && name.substr(name.size() - 4) == ".pfm") {
      EXPECT_EQ(stereo::test::slurp(dir / "v" / name), stereo::test::slurp(dir / "p" / name)) << name;
    }
  }
}

}  // namespace
}  // namespace stereo::view
