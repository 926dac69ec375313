// The pass inspector panel against core/inspect.h's contract, on a matcher of the test's own
// (the panel reads any backend that implements PassInspector; none in this build need be one):
// per pass, per slice, per channel, each view titled with PassLayout::label().

#include <gtest/gtest.h>

#include <GL/glew.h>

#include <cmath>
#include <cstdlib>

#include "app/view/panels.h"
#include "app/view/viewer_state.h"
#include "app/view/viewer_window.h"
#include "tests/view/view_test_util.h"

namespace stereo::view {
namespace {

constexpr int W = 384, H = 288;  // Tsukuba's size

// A value per (x, y, channel, slice) that differs in each, so a wrong slice or channel shows.
float value(int x, int y, int c, int slice) { return float(x + 2 * y) * 0.5f + float(1000 * c + 5000 * slice); }

class FakePasses : public PassInspector {
 public:
  std::vector<PassLayout> passes() const override {
    return {{"cost", "a cost per disparity", "rgba32f texture", W, H, 4, 2, 4, 0},
            {"select", "the winner", "r32f texture", W, H, 1, 1, 0, 0}};
  }
  ImageF read(const std::string& name, int slice) override {
    const int channels = name == "cost" ? 4 : 1;
    require((name == "cost" && slice >= 0 && slice < 2) || (name == "select" && slice == 0),
            "fake: no slice " + std::to_string(slice) + " of " + name, ErrorKind::invalid_argument);
    ImageF out(W, H, channels);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        for (int c = 0; c < channels; ++c) out.at(x, y, c) = value(x, y, c, slice);
    return out;
  }
};

class FakeMatcher : public Matcher {
 public:
  [[nodiscard]] nlohmann::json params() const override { return nlohmann::json::object(); }
  [[nodiscard]] std::string component() const override { return "fake/test"; }
  [[nodiscard]] std::string device() const override { return "test"; }
  void keep_passes(bool keep) override { keep_ = keep; }
  PassInspector* inspector() override { return keep_ ? &passes_ : nullptr; }

 protected:
  StereoResult match(const ImageU8& left, const ImageU8&, DisparityRange range) override {
    StereoResult r;
    r.disparity = ImageF(left.width, left.height, 1);
    for (int y = 0; y < left.height; ++y)
      for (int x = 0; x < left.width; ++x) r.disparity.at(x, y) = float(range.min + x % range.count);
    return r;
  }

 private:
  bool keep_ = false;
  FakePasses passes_;
};

TEST(ViewerInspector, TitlesNameTheSliceChannelAndDisparity) {
  const FakePasses p;
  const auto passes = p.passes();
  EXPECT_EQ(slice_title(passes[0], 1, 2), "cost, disparities 4..7, channel 2 (disparity 6)");
  EXPECT_EQ(slice_title(passes[1], 0, 0), "select");
}

TEST(ViewerInspector, PanelShowsTheChosenSliceAndChannelScaledToItsRange) {
  REQUIRE_TSUKUBA();
  if (!test::window_possible())
    GTEST_SKIP() << "no display (run under xvfb-run, as scripts/test.sh does, or with STEREO_VIEW_CONTEXT=headless)";
  ViewerState state(ViewInput::scene(test::tsukuba()), Choice{"salap", "cpu", 0, 0, {}},
                    [](const Choice&) { return std::make_unique<FakeMatcher>(); });
  WindowOptions o;
  o.width = 640;
  o.height = 480;
  o.show_inspector = true;
  ViewerWindow window(state, o);
  ASSERT_TRUE(state.error().empty()) << state.error();
  ASSERT_NE(state.inspector(), nullptr);
  window.ui().pass = 0;
  window.ui().slice = 1;
  window.ui().channel = 2;
  ASSERT_TRUE(window.frame());
  const float lo = value(0, 0, 2, 1), hi = value(W - 1, H - 1, 2, 1);
  EXPECT_EQ(window.ui().slice_range.first, lo);
  EXPECT_EQ(window.ui().slice_range.second, hi);
  const gl::Texture& t = window.textures().pass_slice();
  ASSERT_EQ(t.width(), W);
  std::vector<std::uint8_t> grey(std::size_t(W) * H);
  t.download(GL_RED, GL_UNSIGNED_BYTE, grey.data(), grey.size());
  for (const auto& [x, y] : {std::pair{0, 0}, std::pair{100, 37}, std::pair{W - 1, H - 1}}) {
    const auto want = static_cast<std::uint8_t>(std::lround((value(x, y, 2, 1) - lo) / (hi - lo) * 255.0f));
    EXPECT_EQ(grey[std::size_t(y) * W + std::size_t(x)], want) << x << ", " << y;
  }
  // Another pass: the selection follows it, and a plane has one slice and channel.
  window.ui().pass = 1;
  ASSERT_TRUE(window.frame());
  EXPECT_EQ(window.ui().slice, 0);
  EXPECT_EQ(window.ui().channel, 0);
  EXPECT_EQ(window.ui().slice_range.first, value(0, 0, 0, 0));
}

}  // namespace
}  // namespace stereo::view
