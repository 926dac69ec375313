// The AD-Census matcher on CUDA against the CPU matcher (adcensus/cpu, the reference stages
// chained): whole maps compared by the share of pixels within 1 px of the CPU map (both
// without a disparity counts as agreeing), at least 99%, printed each time. The GPU volumes
// hold fp16 and the CPU's float, so near-ties may resolve differently; see the stage tests for
// the per-stage tolerances.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/dataset.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

constexpr double MIN_WITHIN_ONE = 0.99;

// Share of pixels where both maps are within 1 px, or both have no disparity.
double within_one(const ImageF& a, const ImageF& b) {
  EXPECT_TRUE(a.same_size(b.width, b.height));
  std::size_t good = 0;
  for (std::size_t i = 0; i < a.data.size() && i < b.data.size(); ++i) {
    const float x = a.data[i], y = b.data[i];
    if (!std::isfinite(x) || !std::isfinite(y))
      good += !std::isfinite(x) && !std::isfinite(y);
    else
      good += std::abs(x - y) <= 1.0f;
  }
  return a.data.empty() ? 1.0 : double(good) / double(a.data.size());
}

// A foreground rectangle (disparity 9) over a background (3), so the refinement has work.
std::pair<ImageU8, ImageU8> two_layer_pair(int width, int height, unsigned seed) {
  const ImageU8 right = test::random_texture(width, height, seed);
  ImageU8 left(width, height, 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const bool front = x >= width / 3 && x < 2 * width / 3 && y >= height / 4 && y < 3 * height / 4;
      for (int c = 0; c < 3; ++c) left.at(x, y, c) = at_clamped(right, x - (front ? 9 : 3), y, c);
    }
  return {left, right};
}

TEST(CudaAdCensusMatcher, MiddleburyV2ScenesAgreeWithCpu) {
  STEREO_REQUIRE_CUDA();
  const std::filesystem::path root = data_root() / "middlebury-v2";
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << missing_data_hint("middlebury-v2");
  auto gpu = create_matcher("adcensus", "cuda", {});
  auto cpu = create_matcher("adcensus", "cpu", {});
  for (const std::string name : {"tsukuba", "venus", "teddy", "cones"}) {
    const Scene scene = load_scene(root / name);
    const StereoResult got = gpu->compute(scene.left, scene.right, scene.range());
    const StereoResult want = cpu->compute(scene.left, scene.right, scene.range());
    const double share = within_one(got.disparity, want.disparity);
    const Metrics mg = evaluate(got.disparity, scene, scene.default_threshold);
    const Metrics mc = evaluate(want.disparity, scene, scene.default_threshold);
    std::printf("  %-8s %dx%d L%d within 1 px of cpu %.5f  bad_nonocc gpu %.2f%% cpu %.2f%%  gpu %.3f ms\n",
                name.c_str(), scene.left.width, scene.left.height, scene.levels, share, mg.bad_nonocc.value_or(-1.0),
                mc.bad_nonocc.value_or(-1.0), got.timing.algorithm_ms);
    EXPECT_GE(share, MIN_WITHIN_ONE) << name;
  }
}

TEST(CudaAdCensusMatcher, EveryRefineStopAndANegativeMinimum) {
  STEREO_REQUIRE_CUDA();
  const auto [left, right] = two_layer_pair(97, 61, 21);
  for (const DisparityRange range : {DisparityRange{0, 16}, DisparityRange{-2, 20}})
    for (const std::string stop : {"none", "lrc", "vote", "interp", "adjust", "subpixel", "full"}) {
      auto gpu = create_matcher("adcensus", "cuda", {{"refine", stop}});
      auto cpu = create_matcher("adcensus", "cpu", {{"refine", stop}});
      const StereoResult got = gpu->compute(left, right, range);
      const StereoResult want = cpu->compute(left, right, range);
      const double share = within_one(got.disparity, want.disparity);
      std::printf("  97x61 min %d count %d refine %-8s within 1 px of cpu %.5f\n", range.min, range.count,
                  stop.c_str(), share);
      EXPECT_GE(share, MIN_WITHIN_ONE) << "refine " << stop << " min " << range.min;
      for (float d : got.disparity.data)
        if (std::isfinite(d)) {
          ASSERT_GE(d, float(range.min) - 1.0f) << stop;  // sub-pixel moves by at most 1
          ASSERT_LE(d, float(range.max()) + 1.0f) << stop;
        }
    }
}

TEST(CudaAdCensusMatcher, ReusedBuffersAndTiming) {
  STEREO_REQUIRE_CUDA();
  const auto [left, right] = two_layer_pair(120, 64, 31);
  auto matcher = create_matcher("adcensus", "cuda", {});
  const StereoResult a = matcher->compute(left, right, 24);
  const StereoResult b = matcher->compute(left, right, 24);                     // same buffers
  const StereoResult c = matcher->compute(left, right, DisparityRange{1, 24});  // same size, other minimum
  const auto [small_left, small_right] = two_layer_pair(60, 40, 32);
  const StereoResult d = matcher->compute(small_left, small_right, 12);  // re-sized
  const StereoResult e = matcher->compute(left, right, 24);              // and back
  EXPECT_EQ(a.disparity.data, b.disparity.data);
  EXPECT_EQ(a.disparity.data, e.disparity.data);
  EXPECT_EQ(d.disparity.width, 60);
  // Reused buffers with another minimum give what a fresh matcher gives.
  auto fresh = create_matcher("adcensus", "cuda", {});
  EXPECT_EQ(c.disparity.data, fresh->compute(left, right, DisparityRange{1, 24}).disparity.data);
  EXPECT_EQ(d.disparity.data, fresh->compute(small_left, small_right, 12).disparity.data);
  EXPECT_EQ(a.timing.clock, "cuda events");
  EXPECT_GT(a.timing.algorithm_ms, 0.0);
  std::vector<std::string> names;
  double sum = 0.0;
  for (const auto& [name, ms] : a.timing.stages) {
    names.push_back(name);
    sum += ms;
  }
  for (const std::string want : {"census", "cross", "cost+aggregate", "scanline+wta", "refine lrc", "refine vote",
                                 "refine interp", "refine adjust", "refine subpixel", "refine median"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << "no stage named " << want;
  EXPECT_LE(sum, a.timing.algorithm_ms * 1.001 + 1e-3);
  EXPECT_EQ(matcher->params()["cost_storage"], "fp16");
  EXPECT_EQ(matcher->params()["lambda_census"], 30.0);
}

// The views on two streams (the default at these sizes) or one after the other: the same
// kernels on the same inputs, so the same maps bit for bit, at every refinement stop and on a
// real scene (where the right view's region and paths matter for the LR check).
TEST(CudaAdCensusMatcher, ConcurrentAndSerialViewsGiveTheSameMaps) {
  STEREO_REQUIRE_CUDA();
  const auto [left, right] = two_layer_pair(131, 77, 61);
  for (const std::string stop : {"none", "lrc", "full"}) {
    auto both = create_matcher("adcensus", "cuda", {{"refine", stop}, {"views", "concurrent"}});
    auto serial = create_matcher("adcensus", "cuda", {{"refine", stop}, {"views", "serial"}});
    EXPECT_EQ(both->params()["views"], "concurrent");
    for (int repeat = 0; repeat < 3; ++repeat)  // a missing wait would show as a run-to-run change
      EXPECT_EQ(both->compute(left, right, 20).disparity.data, serial->compute(left, right, 20).disparity.data)
          << "refine " << stop << " run " << repeat;
  }
  const std::filesystem::path teddy = data_root() / "middlebury-v2" / "teddy";
  if (!std::filesystem::is_directory(teddy)) GTEST_SKIP() << missing_data_hint("middlebury-v2/teddy");
  const Scene scene = load_scene(teddy);
  auto both = create_matcher("adcensus", "cuda", {{"views", "concurrent"}});
  auto serial = create_matcher("adcensus", "cuda", {{"views", "serial"}});
  EXPECT_EQ(both->compute(scene.left, scene.right, scene.range()).disparity.data,
            serial->compute(scene.left, scene.right, scene.range()).disparity.data);
  EXPECT_THROW(create_matcher("adcensus", "cuda", {{"views", "parallel"}}), Error);
}

// The algorithm as one captured graph (the default) or kernel by kernel: the same launches, so
// the same maps bit for bit, on the first call (capture, then launch), on replays, after a new
// range minimum (a new capture), with either view schedule and at every refinement stop; and
// the same stage marks.
TEST(CudaAdCensusMatcher, GraphAndDirectLaunchesGiveTheSameMaps) {
  STEREO_REQUIRE_CUDA();
  const auto [left, right] = two_layer_pair(131, 77, 62);
  for (const std::string views : {"concurrent", "serial"})
    for (const std::string stop : {"none", "lrc", "vote", "full"}) {
      auto graph = create_matcher("adcensus", "cuda", {{"refine", stop}, {"views", views}});
      auto direct = create_matcher("adcensus", "cuda", {{"refine", stop}, {"views", views}, {"graph", "off"}});
      EXPECT_EQ(graph->params()["graph"], "on");
      for (const DisparityRange range : {DisparityRange{0, 20}, DisparityRange{0, 20}, DisparityRange{2, 20}}) {
        const StereoResult a = graph->compute(left, right, range);
        const StereoResult b = direct->compute(left, right, range);
        EXPECT_EQ(a.disparity.data, b.disparity.data) << views << " refine " << stop << " min " << range.min;
        ASSERT_EQ(a.timing.stages.size(), b.timing.stages.size());
        for (std::size_t i = 0; i < a.timing.stages.size(); ++i) {
          EXPECT_EQ(a.timing.stages[i].first, b.timing.stages[i].first);
          EXPECT_GE(a.timing.stages[i].second, 0.0) << a.timing.stages[i].first;
        }
      }
    }
  EXPECT_THROW(create_matcher("adcensus", "cuda", {{"graph", "yes"}}), Error);
}

TEST(CudaAdCensusMatcher, TooLargeAProblemIsAClearError) {
  STEREO_REQUIRE_CUDA();
  // 4000 x 4000 x 1024 levels: six fp16 volumes of 16.4 G cells, ~196 GB, more than any GPU.
  const ImageU8 big(4000, 4000, 1, 128);
  auto matcher = create_matcher("adcensus", "cuda", {});
  try {
    (void)matcher->compute(big, big, 1024);
    FAIL() << "a ~196 GB problem ran";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("adcensus/cuda: 4000x4000 with 1024 levels needs"), std::string::npos) << what;
    EXPECT_NE(what.find("MiB free"), std::string::npos) << what;
  }
  // The matcher stays usable.
  const auto [left, right] = two_layer_pair(64, 32, 41);
  EXPECT_EQ(matcher->compute(left, right, 8).disparity.width, 64);
}

TEST(CudaAdCensusMatcher, UserErrorsThrow) {
  STEREO_REQUIRE_CUDA();
  EXPECT_THROW(create_matcher("adcensus", "cuda", {{"refine", "sometimes"}}), Error);
  EXPECT_THROW(create_matcher("adcensus", "cuda", {{"arm_l1", "300"}}), Error);
  EXPECT_THROW(create_matcher("adcensus", "cuda", {{"no_such_key", "1"}}), Error);
  auto matcher = create_matcher("adcensus", "cuda", {});
  const ImageU8 left = test::random_texture(40, 30, 51);
  const ImageU8 smaller = test::random_texture(39, 30, 52);
  EXPECT_THROW(matcher->compute(left, smaller, 8), Error);
  EXPECT_THROW(matcher->compute(left, left, 0), Error);
}

}  // namespace
}  // namespace stereo
