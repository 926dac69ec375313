// The SymStereo matcher on CUDA against the CPU matcher (symstereo/cpu, the reference stages
// chained with FFTW): the DSI within relative L2 1e-4 and the disparity maps equal on at least
// 99% of pixels (printed each time); memory refusal and out-of-memory errors; reuse of the
// plans and buffers across runs.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "app/dataset.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

constexpr double MAX_DSI_RELATIVE_L2 = 1e-4;
constexpr double MIN_AGREEMENT = 0.99;

double dsi_relative_l2(const DisparitySpaceImage& a, const DisparitySpaceImage& b) {
  EXPECT_EQ(a.data.size(), b.data.size());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.data.size() && i < b.data.size(); ++i) {
    const double d = double(a.data[i]) - double(b.data[i]);
    num += d * d;
    den += double(b.data[i]) * double(b.data[i]);
  }
  return std::sqrt(num / den);
}

void compare(const ImageU8& left, const ImageU8& right, DisparityRange range, const Overrides& o,
             const std::string& what) {
  auto gpu = create_matcher("symstereo", "cuda", o);
  auto cpu = create_matcher("symstereo", "cpu", o);
  gpu->request_cost_volume(true);
  cpu->request_cost_volume(true);
  const StereoResult g = gpu->compute(left, right, range);
  const StereoResult c = cpu->compute(left, right, range);
  ASSERT_TRUE(g.dsi && c.dsi);
  const double l2 = dsi_relative_l2(*g.dsi, *c.dsi);
  const double agree = agreement(g.disparity, c.disparity);
  std::printf("%s: DSI relative L2 %.3g, maps agree on %.3f %% of pixels\n", what.c_str(), l2, 100.0 * agree);
  EXPECT_LT(l2, MAX_DSI_RELATIVE_L2) << what;
  EXPECT_GE(agree, MIN_AGREEMENT) << what;
  EXPECT_TRUE(cuda_test::all_finite(g.disparity)) << what;
}

TEST(CudaSymStereoMatcher, SyntheticPairAgreesWithCpu) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = test::random_texture(201, 45, 9);
  compare(left, test::shifted(left, 6), DisparityRange{0, 24}, {}, "synthetic 201x45, N = 30");
  compare(left, test::shifted(left, 6), DisparityRange{-3, 40}, {{"wavelets", "45"}}, "synthetic, N = 45, min -3");
}

TEST(CudaSymStereoMatcher, MiddleburyV2AgreesWithCpu) {
  STEREO_REQUIRE_CUDA();
  const std::filesystem::path root = data_root() / "middlebury-v2";
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << missing_data_hint("middlebury-v2");
  for (const std::string name : {"tsukuba", "venus"}) {
    const Scene s = load_scene(root / name);
    compare(s.left, s.right, s.range(), {}, name);
  }
}

TEST(CudaSymStereoMatcher, ReusesPlansAcrossRunsAndSizes) {
  STEREO_REQUIRE_CUDA();
  auto gpu = create_matcher("symstereo", "cuda", {{"wavelets", "15"}});
  const ImageU8 a = test::random_texture(160, 40, 1);
  const ImageU8 b = test::random_texture(97, 33, 2);
  const ImageF first = gpu->compute(a, test::shifted(a, 4), 16).disparity;
  const ImageF other = gpu->compute(b, test::shifted(b, 2), 8).disparity;
  const ImageF again = gpu->compute(a, test::shifted(a, 4), 16).disparity;
  EXPECT_EQ(first.data, again.data);
  EXPECT_EQ(other.width, 97);
}

TEST(CudaSymStereoMatcher, RefusesWhatDoesNotFit) {
  STEREO_REQUIRE_CUDA();
  // 8192 x 4096 with N = 256: the responses alone are 2 x 256 x 16384 x 4096 x 8 B = 275 GB
  // (lambda_256 = 6 x 1.05^255 px is far beyond the row: the rows pad to the cap, 2W).
  auto gpu = create_matcher("symstereo", "cuda", {{"wavelets", "256"}});
  const ImageU8 big(8192, 4096, 1, 0);
  try {
    gpu->compute(big, big, 64);
    FAIL() << "a 137 GB problem was not refused";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("symstereo/cuda"), std::string::npos) << msg;
    EXPECT_NE(msg.find("8192x4096"), std::string::npos) << msg;
    EXPECT_NE(msg.find("MiB"), std::string::npos) << msg;
  }
  // The matcher still works after the refusal, with the same N = 256 (rows of 2 x 64: 8 MB of
  // responses), and agrees with the CPU there.
  const ImageU8 a = test::random_texture(64, 16, 3);
  EXPECT_NO_THROW(gpu->compute(a, a, 8));
  compare(a, test::shifted(a, 3), DisparityRange{0, 8}, {{"wavelets", "256"}}, "64x16, N = 256");
}

TEST(CudaSymStereoMatcher, OutOfMemoryAtEveryAllocationIsClear) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 a = test::random_texture(96, 24, 5);
  const ImageU8 b = test::shifted(a, 3);
  for (long n = 0; n < 14; ++n) {
    auto gpu = create_matcher("symstereo", "cuda", {{"wavelets", "10"}});
    {
      const cuda_test::ScopedAllocationFailure fail(n);
      try {
        gpu->compute(a, b, 8);
        // Past the last allocation: the run succeeds.
      } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("out of GPU memory"), std::string::npos) << "allocation " << n << ": " << msg;
        EXPECT_NE(msg.find("symstereo/cuda"), std::string::npos) << msg;
      }
    }
    // Nothing half-made was kept: the same matcher runs once allocations work again.
    const StereoResult r = gpu->compute(a, b, 8);
    EXPECT_TRUE(cuda_test::all_finite(r.disparity)) << "after failing allocation " << n;
  }
}

TEST(CudaSymStereoMatcher, CostVolumeOnlyWhereABackendHasOne) {
  STEREO_REQUIRE_CUDA();
  auto adcensus = create_matcher("adcensus", "cuda", {});
  EXPECT_THROW(adcensus->request_cost_volume(true), Error);
  EXPECT_NO_THROW(adcensus->request_cost_volume(false));
  auto gpu = create_matcher("symstereo", "cuda", {{"wavelets", "8"}});
  const ImageU8 a = test::random_texture(64, 16, 3);
  EXPECT_FALSE(gpu->compute(a, a, 8).dsi.has_value());
  gpu->request_cost_volume(true);
  const StereoResult r = gpu->compute(a, a, DisparityRange{0, 8});
  ASSERT_TRUE(r.dsi.has_value());
  EXPECT_EQ(r.dsi->data.size(), std::size_t(64 * 16 * 8));
  EXPECT_EQ(r.dsi->better, "higher");
}

}  // namespace
}  // namespace stereo
