// salap/cuda's pass inspector (cuda/salap_inspect.h) against salap/cpu's, one loop over the
// stage names, with the stage tests' tolerance (relative L2 <= 1e-5: test_cuda_salap_stages);
// its select is the run's own map. Both paths (fused, stages) and a negative range minimum.

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/matcher.h"
#include "methods/builtin.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

constexpr double STAGE_TOLERANCE = 1e-5;  // test_cuda_salap_stages.cpp: TAD, filters, window cost
const DisparityRange SALAP_RANGE{-2, 9};

void expect_same_stages_as_cpu(const std::string& path) {
  const ImageU8 left = test::random_texture(37, 29, 20240601u, 3), right = test::shifted(left, 2);
  auto cuda = create_matcher("salap", "cuda", Overrides{{"path", path}, {"window", "33"}});
  auto cpu = create_matcher("salap", "cpu", Overrides{{"window", "33"}});
  EXPECT_EQ(cuda->inspector(), nullptr);
  cuda->keep_passes(true);
  cpu->keep_passes(true);
  const StereoResult r = cuda->compute(left, right, SALAP_RANGE);
  (void)cpu->compute(left, right, SALAP_RANGE);
  PassInspector& gpu = *cuda->inspector();
  std::vector<std::string> names;
  for (const PassLayout& l : gpu.passes()) {
    names.push_back(l.name);
    if (l.disparities_per_slice != 1) continue;
    EXPECT_EQ(l.slices, SALAP_RANGE.count) << l.name;
    EXPECT_EQ(l.first_disparity, SALAP_RANGE.min) << l.name;
    double worst = 0.0;
    for (int k = 0; k < l.slices; ++k)
      worst = std::max(worst, cuda_test::relative_l2(gpu.read(l.name, k), cpu->inspector()->read(l.name, k)));
    std::cout << "salap/cuda " << path << " " << l.name << ": relative L2 to salap/cpu <= " << worst << "\n";
    EXPECT_LE(worst, STAGE_TOLERANCE) << l.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"tad", "horizontal.c_left", "horizontal.c_right", "vertical.c0",
                                             "vertical.c1", "vertical.c2", "vertical.c3", "window_cost", "select"}));
  const ImageF select = gpu.read("select", 0);
  for (std::size_t i = 0; i < select.data.size(); ++i)
    ASSERT_EQ(select.data[i] + float(SALAP_RANGE.min), r.disparity.data[i]);
  EXPECT_THROW((void)gpu.read("tad", SALAP_RANGE.count), Error);
  EXPECT_THROW((void)gpu.read("aggregate", 0), Error);
}

TEST(CudaSalapInspect, FusedPathStagesEqualCpuStages) {
  STEREO_REQUIRE_CUDA();
  expect_same_stages_as_cpu("fused");
}

TEST(CudaSalapInspect, StagePathStagesEqualCpuStages) {
  STEREO_REQUIRE_CUDA();
  expect_same_stages_as_cpu("stages");
}

TEST(CudaSalapInspect, SequencesAreNotKept) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = test::random_texture(37, 29, 5u, 3), right = test::shifted(left, 1);
  auto m = create_matcher("salap", "cuda", Overrides{});
  m->keep_passes(true);
  (void)m->compute(left, right, SALAP_RANGE);
  EXPECT_FALSE(m->inspector()->passes().empty());
  bool given = false;
  m->match_sequence(
      SALAP_RANGE,
      [&](FramePair& p) {
        if (given) return false;
        p = {left, right};
        given = true;
        return true;
      },
      [](FrameResult&&) {});
  EXPECT_TRUE(m->inspector()->passes().empty());
  m->keep_passes(false);
  EXPECT_EQ(m->inspector(), nullptr);
}

}  // namespace
}  // namespace stereo
