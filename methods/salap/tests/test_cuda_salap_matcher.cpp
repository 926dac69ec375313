// The fused SA-LAP kernel against the unfused stage path and the CPU reference, and the
// matcher the registry builds. Whole pipelines are compared by the share of pixels whose
// integer disparities agree exactly (stereo::agreement): at least 99.5%, printed each time.
// A fused-vs-stages gap localises a bug to the fast path; a stages-vs-reference gap to a stage.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "methods/salap/cuda/stages.h"
#include "app/dataset.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "methods/salap/reference/salap.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

namespace cs = cu::salap;
using cuda_test::all_finite;

constexpr double MIN_AGREEMENT = 0.995;

struct Maps {
  ImageF fused, stages;
};

Maps run_both(const ImageU8& left, const ImageU8& right, int levels, const SalapParams& p, int chunk = 0,
              cs::FusedArithmetic arithmetic = cs::FusedArithmetic::float32) {
  const cs::DevicePair pair = cs::upload_pair(left, right, p);
  Maps maps;
  {
    const cs::FusedPlan plan = cs::plan_fused(left.width, left.height, levels, p, chunk, cs::FusedTile::wide,
                                              arithmetic);
    auto keys = cu::make_device_buffer<std::uint64_t>(plan.key_count(left.width, left.height), "test", "keys");
    CUDA_CHECK(cudaMemset(keys.get(), 0xFF, plan.key_count(left.width, left.height) * sizeof(std::uint64_t)));
    cu::DeviceImage<float> disparity(left.width, left.height, "test", "fused disparity");
    cu::poison(disparity);
    cs::salap_fused(pair, levels, p, plan, keys.get());
    cs::merge_chunks(keys.get(), plan.chunks, disparity);
    maps.fused = cu::download(disparity);
  }
  {
    cs::StageBuffers buffers(left.width, left.height);
    cu::DeviceImage<float> disparity(left.width, left.height, "test", "stage disparity");
    cu::poison(disparity);
    cs::salap_stages(pair, levels, p, buffers, disparity);
    maps.stages = cu::download(disparity);
  }
  return maps;
}

void expect_in_range(const ImageF& map, int levels, const char* what) {
  ASSERT_TRUE(all_finite(map)) << what << ": unwritten (poisoned) pixels";
  for (float v : map.data) {
    ASSERT_GE(v, 0.0f) << what;
    ASSERT_LT(v, float(levels)) << what;
  }
}

void compare_three(const std::string& label, const ImageU8& left, const ImageU8& right, int levels,
                   const SalapParams& p) {
  const Maps maps = run_both(left, right, levels, p);
  expect_in_range(maps.fused, levels, "fused");
  expect_in_range(maps.stages, levels, "stages");
  const ImageF want = reference::salap_disparity(left, right, levels, p);
  const double fused_ref = agreement(maps.fused, want);
  const double stages_ref = agreement(maps.stages, want);
  const double fused_stages = agreement(maps.fused, maps.stages);
  std::printf("  %-34s agreement fused/ref %.5f  stages/ref %.5f  fused/stages %.5f\n", label.c_str(), fused_ref,
              stages_ref, fused_stages);
  EXPECT_GE(stages_ref, MIN_AGREEMENT) << label << ": the stage path differs from reference/";
  EXPECT_GE(fused_stages, MIN_AGREEMENT) << label << ": the fused kernel differs from the stage path";
  EXPECT_GE(fused_ref, MIN_AGREEMENT) << label;
}

TEST(CudaSalapFused, RandomPairsAgreeWithStagesAndReference) {
  STEREO_REQUIRE_CUDA();
  for (const std::string windows : {"9", "4"})
    for (const std::string cost : {"rgb_mean", "luma"}) {
      SalapParams p;
      p.windows = windows;
      p.cost = cost;
      const ImageU8 left = test::random_texture(173, 97, 51);
      const ImageU8 right = test::shifted(left, 9);
      compare_three("173x97 L24 shift 9 windows " + windows + " " + cost, left, right, 24, p);
    }
}

TEST(CudaSalapFused, GreyAndRgbaInputs) {
  STEREO_REQUIRE_CUDA();
  for (const int channels : {1, 4}) {
    const SalapParams p;
    const ImageU8 left = test::random_texture(150, 83, 61, channels);
    const ImageU8 right = test::shifted(left, 5);
    compare_three("150x83 L16 channels " + std::to_string(channels), left, right, 16, p);
  }
}

TEST(CudaSalapFused, OddSizeUncorrelatedPair) {
  STEREO_REQUIRE_CUDA();
  // Uncorrelated views: every level is a near tie, the hardest case for float vs double.
  const SalapParams p;
  const ImageU8 left = cuda_test::random_u8(631, 479, 3, 71);
  const ImageU8 right = cuda_test::random_u8(631, 479, 3, 72);
  const Maps maps = run_both(left, right, 20, p);
  expect_in_range(maps.fused, 20, "fused");
  const double a = agreement(maps.fused, maps.stages);
  std::printf("  631x479 L20 uncorrelated        agreement fused/stages %.5f\n", a);
  EXPECT_GE(a, 0.99);
}

TEST(CudaSalapFused, OtherWindowSizes) {
  STEREO_REQUIRE_CUDA();
  for (const int window : {17, 49, 65}) {
    SalapParams p;
    p.window = window;
    const ImageU8 left = test::random_texture(301, 67, 81);
    const ImageU8 right = test::shifted(left, 11);
    const Maps maps = run_both(left, right, 32, p);
    expect_in_range(maps.fused, 32, "fused");
    const double a = agreement(maps.fused, maps.stages);
    std::printf("  301x67 L32 N=%d                  agreement fused/stages %.5f\n", window, a);
    EXPECT_GE(a, MIN_AGREEMENT) << "N " << window;
  }
}

TEST(CudaSalapFused, ChunkingDoesNotChangeTheResult) {
  STEREO_REQUIRE_CUDA();
  const SalapParams p;
  const ImageU8 left = test::random_texture(257, 70, 91);
  const ImageU8 right = test::shifted(left, 20);
  const ImageF whole = run_both(left, right, 100, p, 100).fused;
  for (const int chunk : {1, 7, 33}) {
    const ImageF split = run_both(left, right, 100, p, chunk).fused;
    EXPECT_EQ(agreement(split, whole), 1.0) << "chunk " << chunk;
  }
}

// ---- half2 arithmetic ---------------------------------------------------------------------

// Each level's half arithmetic is independent of the other half of its __half2, so how the
// levels pair up (chunk boundaries, an odd chunk's idle half) cannot change a map.
TEST(CudaSalapHalf, ChunkingDoesNotChangeTheResult) {
  STEREO_REQUIRE_CUDA();
  const SalapParams p;
  const ImageU8 left = test::random_texture(257, 70, 93);
  const ImageU8 right = test::shifted(left, 20);
  const ImageF whole = run_both(left, right, 100, p, 100, cs::FusedArithmetic::half2).fused;
  expect_in_range(whole, 100, "half");
  for (const int chunk : {1, 7, 33}) {
    const ImageF split = run_both(left, right, 100, p, chunk, cs::FusedArithmetic::half2).fused;
    EXPECT_EQ(agreement(split, whole), 1.0) << "chunk " << chunk;
  }
  // An odd level count: the last pair of the single chunk has one level.
  const ImageF odd = run_both(left, right, 99, p, 99, cs::FusedArithmetic::half2).fused;
  expect_in_range(odd, 99, "half, 99 levels");
  const ImageF odd_split = run_both(left, right, 99, p, 8, cs::FusedArithmetic::half2).fused;
  EXPECT_EQ(agreement(odd, odd_split), 1.0);
}

// Half rounds every filter sum to an 11-bit significand, so levels whose float costs are
// within ~1e-3 of each other can swap; a well-textured shift has no such ties.
TEST(CudaSalapHalf, RandomPairsAgreeWithFloat) {
  STEREO_REQUIRE_CUDA();
  for (const std::string windows : {"9", "4"})
    for (const std::string cost : {"rgb_mean", "luma"}) {
      SalapParams p;
      p.windows = windows;
      p.cost = cost;
      const ImageU8 left = test::random_texture(173, 97, 53);
      const ImageU8 right = test::shifted(left, 9);
      const ImageF f = run_both(left, right, 24, p).fused;
      const ImageF h = run_both(left, right, 24, p, 0, cs::FusedArithmetic::half2).fused;
      expect_in_range(h, 24, "half");
      const double a = agreement(h, f);
      std::printf("  173x97 L24 shift 9 windows %s %-8s agreement half/float %.5f\n", windows.c_str(), cost.c_str(),
                  a);
      EXPECT_GE(a, MIN_AGREEMENT) << windows << " " << cost;
    }
}

// On real scenes: how often half picks another level than float, and what it does to the
// bad-pixel rate (printed; NOTES.md and docs/methods/salap.md quote the H100 figures).
TEST(CudaSalapHalf, MiddleburyV2AgainstFloat) {
  STEREO_REQUIRE_CUDA();
  const std::filesystem::path root = data_root() / "middlebury-v2";
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << missing_data_hint("middlebury-v2");
  auto single = create_matcher("salap", "cuda", {});
  auto half = create_matcher("salap", "cuda", {{"arithmetic", "half"}});
  EXPECT_EQ(single->params()["arithmetic_in_force"], "float");
  EXPECT_EQ(half->params()["arithmetic_in_force"], "half");
  for (const std::string name : {"tsukuba", "venus", "teddy", "cones"}) {
    const Scene scene = load_scene(root / name);
    const ImageF f = single->compute(scene.left, scene.right, scene.levels).disparity;
    const ImageF h = half->compute(scene.left, scene.right, scene.levels).disparity;
    ASSERT_TRUE(all_finite(h)) << name;
    std::size_t within_one = 0;
    for (std::size_t i = 0; i < f.data.size(); ++i)
      if (std::abs(f.data[i] - h.data[i]) <= 1.0f) ++within_one;
    const double a = agreement(h, f), a1 = double(within_one) / double(f.data.size());
    const Metrics mf = evaluate(f, scene, scene.default_threshold), mh = evaluate(h, scene, scene.default_threshold);
    std::printf("  %-8s half/float agreement %.5f, within 1 px %.5f; bad_nonocc float %.2f%% half %.2f%%\n",
                name.c_str(), a, a1, mf.bad_nonocc.value_or(-1.0), mh.bad_nonocc.value_or(-1.0));
    EXPECT_GE(a, 0.95) << name << ": half should change only near ties";
    EXPECT_LE(std::abs(mh.bad_nonocc.value_or(0.0) - mf.bad_nonocc.value_or(0.0)), 1.0) << name;
  }
}

// ---- the matcher ------------------------------------------------------------------------

TEST(CudaSalapMatcher, MiddleburyV2ScenesAgreeWithReference) {
  STEREO_REQUIRE_CUDA();
  const std::filesystem::path root = data_root() / "middlebury-v2";
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << missing_data_hint("middlebury-v2");
  auto matcher = create_matcher("salap", "cuda", {});
  for (const std::string name : {"tsukuba", "venus", "teddy", "cones"}) {
    const Scene scene = load_scene(root / name);
    const StereoResult got = matcher->compute(scene.left, scene.right, scene.levels);
    ASSERT_TRUE(all_finite(got.disparity)) << name;
    const ImageF want = reference::salap_disparity(scene.left, scene.right, scene.levels, SalapParams{});
    const double a = agreement(got.disparity, want);
    const Metrics m = evaluate(got.disparity, scene, scene.default_threshold);
    std::printf("  %-8s %dx%d L%d agreement with reference %.5f  bad_nonocc %.2f%%  algorithm %.3f ms\n",
                name.c_str(), scene.left.width, scene.left.height, scene.levels, a, m.bad_nonocc.value_or(-1.0),
                got.timing.algorithm_ms);
    EXPECT_GE(a, MIN_AGREEMENT) << name;
  }
}

TEST(CudaSalapMatcher, StagePathOptionAndTiming) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = test::random_texture(120, 64, 101);
  const ImageU8 right = test::shifted(left, 6);
  auto fused = create_matcher("salap", "cuda", {});
  auto stages = create_matcher("salap", "cuda", {{"path", "stages"}});
  const StereoResult a = fused->compute(left, right, 16);
  const StereoResult b = stages->compute(left, right, 16);
  const StereoResult again = fused->compute(left, right, 16);  // reused buffers
  EXPECT_GE(agreement(a.disparity, b.disparity), MIN_AGREEMENT);
  EXPECT_EQ(agreement(a.disparity, again.disparity), 1.0);
  EXPECT_EQ(a.timing.clock, "cuda events");
  EXPECT_GT(a.timing.algorithm_ms, 0.0);
  EXPECT_FALSE(a.timing.stages.empty());
  EXPECT_FALSE(fused->device().empty());
  EXPECT_EQ(fused->params()["path_in_force"], "fused");
  EXPECT_EQ(stages->params()["path_in_force"], "stages");
  EXPECT_EQ(fused->params()["gamma"], 5.0);
}

TEST(CudaSalapMatcher, UserErrorsThrow) {
  STEREO_REQUIRE_CUDA();
  auto matcher = create_matcher("salap", "cuda", {});
  const ImageU8 left = test::random_texture(40, 30, 111);
  EXPECT_THROW(matcher->compute(left, left, 40), Error);  // levels >= width
  EXPECT_THROW(matcher->compute(left, left, 0), Error);
  const ImageU8 smaller = test::random_texture(39, 30, 112);
  EXPECT_THROW(matcher->compute(left, smaller, 8), Error);
  EXPECT_THROW(create_matcher("salap", "cuda", {{"window", "34"}}), Error);
  EXPECT_THROW(create_matcher("salap", "cuda", {{"d_chunk", "300"}}), Error);
  EXPECT_THROW(create_matcher("salap", "cuda", {{"arithmetic", "double"}}), Error);
  EXPECT_THROW(create_matcher("salap", "cuda", {{"no_such_key", "1"}}), Error);
}

}  // namespace
}  // namespace stereo
