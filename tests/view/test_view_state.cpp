// ViewerState without a window: every change a widget makes goes through apply(), and a change
// that fails keeps the last good result and says why in one line.

#include <gtest/gtest.h>

#include "app/view/viewer_state.h"
#include "tests/view/view_test_util.h"

namespace stereo::view {
namespace {

ViewerState tsukuba_state(const std::string& method = "salap", const std::string& backend = "cpu") {
  return ViewerState(ViewInput::scene(test::tsukuba()), Choice{method, backend, 0, 0, {}});
}

TEST(ViewerState, FirstRunIsTheScenesRangeAndHasEvalsFigures) {
  REQUIRE_TSUKUBA();
  ViewerState s = tsukuba_state();
  ASSERT_TRUE(s.start()) << s.error();
  const ViewResult* r = s.result();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->range.min, 0);
  EXPECT_EQ(r->range.count, 16);
  ASSERT_TRUE(r->disparity.has_value());
  ASSERT_TRUE(r->metrics.has_value());
  EXPECT_TRUE(r->metrics->bad_nonocc.has_value());
  EXPECT_TRUE(r->error_map.has_value());
  EXPECT_GT(r->metrics->density, 0.0);
}

TEST(ViewerState, ParameterChangeRerunsWithTheNewValue) {
  REQUIRE_TSUKUBA();
  ViewerState s = tsukuba_state();
  ASSERT_TRUE(s.start()) << s.error();
  const ImageF before = *s.result()->disparity;
  const std::uint64_t serial = s.result()->serial;
  ASSERT_TRUE(s.apply(Change::param("windows", "4"))) << s.error();
  EXPECT_GT(s.result()->serial, serial);
  EXPECT_EQ(s.result()->params["windows"], "4");
  EXPECT_NE(s.result()->disparity->data, before.data);
  // The widget table shows the value in force.
  bool seen = false;
  for (const ParamRow& row : s.params())
    if (row.key == "windows") seen = row.value == "4" && row.choices == std::vector<std::string>{"9", "4"};
  EXPECT_TRUE(seen);
}

TEST(ViewerState, BadChangesKeepTheLastGoodResultAndSayWhyInOneLine) {
  REQUIRE_TSUKUBA();
  ViewerState s = tsukuba_state();
  ASSERT_TRUE(s.start()) << s.error();
  const std::uint64_t serial = s.result()->serial;
  const ImageF kept = *s.result()->disparity;
  const auto expect_refused = [&](const Change& c, const std::string& words) {
    EXPECT_FALSE(s.apply(c));
    EXPECT_NE(s.error().find(words), std::string::npos) << s.error();
    EXPECT_EQ(s.error().find('\n'), std::string::npos) << s.error();
    ASSERT_NE(s.result(), nullptr);
    EXPECT_EQ(s.result()->serial, serial);
    EXPECT_EQ(s.result()->disparity->data, kept.data);
    EXPECT_EQ(s.choice().backend, "cpu");
    EXPECT_TRUE(s.choice().overrides.empty());
  };
  expect_refused(Change::open("/nonexistent/left.png", "/nonexistent/right.png"), "/nonexistent/left.png");
  expect_refused(Change::param("gamma", "-1"), "gamma");
  expect_refused(Change::param("no_such_key", "1"), "no_such_key");
  expect_refused(Change::levels(1000), "1000");  // wider than Tsukuba's 384 columns
  expect_refused(Change::levels(0), "level count 0");
  expect_refused(Change::method("no_such_method"), "no_such_method");
  // The next good change clears the line.
  ASSERT_TRUE(s.apply(Change::levels(20))) << s.error();
  EXPECT_TRUE(s.error().empty());
  EXPECT_EQ(s.result()->range.count, 20);
}

TEST(ViewerState, SwitchingBackendKeepsTheMethodsParametersAndDropsTheOldBackendsOptions) {
  REQUIRE_TSUKUBA();
  ViewerState s = tsukuba_state();
  ASSERT_TRUE(s.start()) << s.error();
  ASSERT_TRUE(s.apply(Change::param("threads", "1"))) << s.error();   // a salap/cpu option
  ASSERT_TRUE(s.apply(Change::param("tau", "25"))) << s.error();      // a parameter of the method
  const auto& gl = builtin_registry().find("salap", "gl");
  if (const auto why = gl.unavailable ? gl.unavailable() : std::nullopt) GTEST_SKIP() << "salap/gl: " << *why;
  ASSERT_TRUE(s.apply(Change::backend("gl"))) << s.error();
  EXPECT_EQ(s.choice().overrides, (Overrides{{"tau", "25"}}));
  EXPECT_EQ(s.result()->params["tau"], 25.0);
  // Another method starts from its own defaults, on the backend in use where it has one.
  ASSERT_TRUE(s.apply(Change::method("crossrt"))) << s.error();
  EXPECT_EQ(s.choice().backend, "cpu");  // crossrt has no gl backend
  EXPECT_TRUE(s.choice().overrides.empty());
  EXPECT_EQ(s.result()->range.count, 16);
}

TEST(ViewerState, BackendWithoutADeviceIsRefusedWhereItIsUnavailable) {
  REQUIRE_TSUKUBA();
  bool cuda_registered = false;
  for (const std::string& b : builtin_registry().backends("salap")) cuda_registered |= b == "cuda";
  if (!cuda_registered) GTEST_SKIP() << "this build has no CUDA backends";
  const auto why = builtin_registry().find("salap", "cuda").unavailable();
  if (!why) GTEST_SKIP() << "salap/cuda runs here (a CUDA device is present)";
  ViewerState s = tsukuba_state();
  ASSERT_TRUE(s.start()) << s.error();
  EXPECT_FALSE(s.apply(Change::backend("cuda")));
  EXPECT_NE(s.error().find("not available"), std::string::npos) << s.error();
  EXPECT_EQ(s.choice().backend, "cpu");
}

TEST(ViewerState, CostCurveComesFromTheCostVolume) {
  REQUIRE_TSUKUBA();
  // A backend without a cost volume refuses, in one line, and keeps its map.
  ViewerState s = tsukuba_state();
  ASSERT_TRUE(s.start()) << s.error();
  EXPECT_FALSE(s.result()->dsi.has_value());
  EXPECT_FALSE(s.apply(Change::cost_volume(true)));
  EXPECT_NE(s.error().find("cost volume"), std::string::npos) << s.error();
  EXPECT_FALSE(s.cost_volume());
  // SymStereo keeps one (`run --dsi`): the curve at a pixel is its column of the volume.
  const auto& entry = builtin_registry().find("symstereo", "cpu");
  if (const auto reason = entry.unavailable ? entry.unavailable() : std::nullopt) GTEST_SKIP() << *reason;
  ASSERT_TRUE(s.apply(Change::method("symstereo"))) << s.error();
  ASSERT_TRUE(s.apply(Change::cost_volume(true))) << s.error();
  ASSERT_TRUE(s.result()->dsi.has_value());
  const DisparitySpaceImage& v = *s.result()->dsi;
  EXPECT_EQ(v.range.count, 16);
  EXPECT_EQ(v.width, 384);
  EXPECT_EQ(v.data.size(), std::size_t(384) * 288 * 16);
  EXPECT_TRUE(v.better == "higher" || v.better == "lower") << v.better;
}

TEST(ViewerState, SequenceStepsLoopsAndReportsABadFrame) {
  REQUIRE_TSUKUBA();
  const auto dir = stereo::test::fresh_test_dir("stereo_view_seq_");
  std::filesystem::create_directories(dir / "l");
  std::filesystem::create_directories(dir / "r");
  const ImageU8 left = read_image(test::tsukuba() / "left.png"), right = read_image(test::tsukuba() / "right.png");
  for (const char* name : {"a.png", "b.png"}) {
    write_png(dir / "l" / name, left);
    write_png(dir / "r" / name, right);
  }
  write_png(dir / "l" / "c.png", left);
  write_png(dir / "r" / "c.png", ImageU8(17, 9, 3));  // a frame whose views differ in size
  ViewerState s(ViewInput::sequence(dir / "l", dir / "r", 16, 0), Choice{"salap", "cpu", 0, 0, {}});
  ASSERT_TRUE(s.start()) << s.error();
  EXPECT_EQ(s.input().frame_count(), 3u);
  ASSERT_TRUE(s.step(false)) << s.error();
  EXPECT_EQ(s.input().frame(), 1u);
  EXPECT_EQ(s.result()->frame, 1u);
  EXPECT_FALSE(s.step(false));
  EXPECT_NE(s.error().find("frame 2 (c.png)"), std::string::npos) << s.error();
  EXPECT_EQ(s.result()->frame, 1u);  // the last good result stays
  ASSERT_TRUE(s.apply(Change::frame(0))) << s.error();
  EXPECT_EQ(s.result()->frame, 0u);
}

}  // namespace
}  // namespace stereo::view
