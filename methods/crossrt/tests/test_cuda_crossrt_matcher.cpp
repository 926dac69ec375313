// The whole CUDA pipeline of the real-time cross-based method against the cpu backend (every
// pixel bit-exact), its per-stage timing under the paper's Table II names, and its out-of-memory
// error. Skips without a CUDA device.

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "cuda/common.h"
#include "methods/crossrt/cuda/stages.h"
#include "core/matcher.h"
#include "app/synth.h"
#include "tests/test_cuda_util.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

TEST(CudaCrossRtMatcher, AgreesWithTheCpuBackendAtBothScales) {
  STEREO_REQUIRE_CUDA();
  SynthOptions options;
  options.width = 203;  // odd sizes: the half-size image has a last sample on the last column
  options.height = 131;
  options.levels = 40;
  options.layout = SynthLayout::slanted;
  const Scene scene = make_synthetic_scene(options);
  // Both scales with the default sub-pixel WTA, and the paper's integer WTA at scale 2.
  for (const auto& [scale, subpixel] : {std::pair{"2", "1"}, std::pair{"1", "1"}, std::pair{"2", "0"}}) {
    const Overrides overrides{{"scale", scale}, {"subpixel", subpixel}};
    auto gpu = create_matcher("crossrt", "cuda", overrides);
    auto cpu = create_matcher("crossrt", "cpu", overrides);
    const StereoResult g = gpu->compute(scene.left, scene.right, scene.range());
    const StereoResult c = cpu->compute(scene.left, scene.right, scene.range());
    ASSERT_EQ(g.disparity.width, c.disparity.width);
    ASSERT_EQ(g.disparity.height, c.disparity.height);
    // Bit-exact by design (stages.h, cuda/NOTES.md "Precision"): integer costs and sums up to
    // the GCPs, the sub-pixel vertex, fill and scale-up in the reference's float operations
    // and order without FMA; the stage tests and the chained test hold every intermediate
    // bit-exact, and the cpu backend chains those same reference stages. So every pixel.
    int exact = 0;
    for (std::size_t i = 0; i < g.disparity.data.size(); ++i) exact += g.disparity.data[i] == c.disparity.data[i];
    EXPECT_EQ(exact, int(g.disparity.data.size())) << "scale " << scale << ", subpixel " << subpixel << ": " << exact
                                                   << " of " << g.disparity.data.size() << " pixels equal";
    std::string names;
    for (const auto& [name, ms] : g.timing.stages) names += name + ",";
    EXPECT_EQ(names, "SD,arms x,arms y,C+CA_x,CA,CC,Post,SU,") << "Table II columns";
  }
}

TEST(CudaCrossRtMatcher, RowsAndColumnsBeyondSharedMemoryGoInSegmentsAndAgreeWithTheCpu) {
  STEREO_REQUIRE_CUDA();
  // At scale 1 a row wider than max_cost_width() and a column taller than max_column_height()
  // take the segmented kernels (halos of W_x, W_y); thin strips keep the CPU reference fast.
  const int wide = cu::crossrt::max_cost_width(0) + 101;
  const int tall = cu::crossrt::max_column_height(0) + 77;
  for (const auto& [w, h] : {std::pair{wide, 24}, std::pair{48, tall}}) {
    SynthOptions options;
    options.width = w;
    options.height = h;
    options.levels = 12;
    const Scene scene = make_synthetic_scene(options);
    const Overrides overrides{{"scale", "1"}};
    auto gpu = create_matcher("crossrt", "cuda", overrides);
    auto cpu = create_matcher("crossrt", "cpu", overrides);
    const StereoResult g = gpu->compute(scene.left, scene.right, scene.range());
    const StereoResult c = cpu->compute(scene.left, scene.right, scene.range());
    ASSERT_TRUE(g.disparity.same_size(c.disparity.width, c.disparity.height));
    int exact = 0;
    for (std::size_t i = 0; i < g.disparity.data.size(); ++i) exact += g.disparity.data[i] == c.disparity.data[i];
    // Designed bit-exact, as the whole-row kernels.
    EXPECT_EQ(exact, int(g.disparity.data.size())) << w << "x" << h << ": " << exact << " of "
                                                     << g.disparity.data.size() << " pixels equal";
  }
}

TEST(CudaCrossRtMatcher, OutOfMemoryIsAClearErrorAndTheMatcherRecovers) {
  STEREO_REQUIRE_CUDA();
  const Scene scene = make_synthetic_scene(SynthOptions{});
  auto gpu = create_matcher("crossrt", "cuda", {});
  cu::testing::fail_allocations_after(5);
  try {
    gpu->compute(scene.left, scene.right, scene.range());
    cu::testing::fail_allocations_after(-1);
    FAIL() << "an allocation failure went unreported";
  } catch (const Error& e) {
    cu::testing::fail_allocations_after(-1);
    EXPECT_NE(std::string(e.what()).find("out of GPU memory"), std::string::npos) << e.what();
  }
  const StereoResult r = gpu->compute(scene.left, scene.right, scene.range());
  EXPECT_EQ(r.disparity.width, scene.left.width);
}

}  // namespace
}  // namespace stereo
