// adcensus/cuda's pass inspector (cuda/adcensus_inspect.h): what the workspace holds after a
// run. Integer images bit for bit against the reference stages (census, arms, as
// test_cuda_adcensus_stages does); the kept C2 volume against the kept WTA map: the map's
// disparity is C2's argmin wherever that argmin is unique in fp16 (the fused WTA compares the
// fp32 mean, C2 stores it rounded), so on at least 99 % of the pixels.

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/matcher.h"
#include "methods/adcensus/params.h"
#include "methods/adcensus/reference/adcensus.h"
#include "methods/builtin.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

const DisparityRange ADCENSUS_RANGE{-1, 12};

TEST(CudaAdCensusInspect, KeptBuffersAreTheStages) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = test::random_texture(45, 31, 11u, 3), right = test::shifted(left, 3);
  auto m = create_matcher("adcensus", "cuda", Overrides{});
  EXPECT_EQ(m->inspector(), nullptr);
  m->keep_passes(true);
  EXPECT_TRUE(m->inspector()->passes().empty());  // before the first run
  (void)m->compute(left, right, ADCENSUS_RANGE);
  PassInspector& in = *m->inspector();
  std::vector<std::string> names;
  for (const PassLayout& l : in.passes()) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"census.left", "census.right", "cross.left", "cross.right",
                                             "cost+aggregate.right", "scanline+wta.lr", "scanline+wta.rl",
                                             "scanline+wta.tb", "scanline+wta.bt", "scanline+wta",
                                             "scanline+wta.left", "scanline+wta.right"}));

  const reference::CensusImage census = reference::census_transform(reference::grey_image(left));
  const ImageF kept_census = in.read("census.left", 0);
  for (std::size_t i = 0; i < census.data.size(); ++i)
    for (std::size_t c = 0; c < 4; ++c)
      ASSERT_EQ(kept_census.data[i * 4 + c], float((census.data[i] >> (16 * c)) & 0xffff)) << i;
  const reference::CrossArms arms = reference::cross_arms(right, AdCensusParams{});
  EXPECT_EQ(in.read("cross.right", 0).data, std::vector<float>(arms.data.begin(), arms.data.end()));

  // C2 level by level against the WTA map the run kept.
  const ImageF map = in.read("scanline+wta.left", 0);
  ImageF best(map.width, map.height, 1, INFINITY), arg(map.width, map.height, 1, 0.0f);
  std::vector<int> ties(map.data.size(), 0);
  for (int k = 0; k < ADCENSUS_RANGE.count; ++k) {
    const ImageF c2 = in.read("scanline+wta", k);
    for (std::size_t i = 0; i < c2.data.size(); ++i) {
      if (c2.data[i] < best.data[i]) {
        best.data[i] = c2.data[i];
        arg.data[i] = float(ADCENSUS_RANGE.min + k);
        ties[i] = 0;
      } else if (c2.data[i] == best.data[i]) {
        ++ties[i];
      }
    }
  }
  std::size_t unique = 0, same = 0;
  for (std::size_t i = 0; i < map.data.size(); ++i)
    if (ties[i] == 0) {
      ++unique;
      same += arg.data[i] == map.data[i];
    }
  ASSERT_GT(unique, 0u);
  std::cout << "adcensus/cuda: kept WTA map = argmin of kept C2 on " << 100.0 * double(same) / double(unique)
            << "% of " << unique << " pixels with a unique fp16 minimum\n";
  EXPECT_GE(double(same) / double(unique), 0.99);
  EXPECT_THROW((void)in.read("scanline+wta", ADCENSUS_RANGE.count), Error);
  EXPECT_THROW((void)in.read("cost", 0), Error);
}

// Every buffer both backends show, one loop over names: images bit for bit (the integer stages
// are bit-exact, test_cuda_adcensus_stages), volumes by relative L2 within the stage tests'
// chained bound, one fp16 rounding per pass: VOLUME_L2_TOLERANCE (1e-3) x (aggregation passes
// (4) for C1, + 1 for C2).
TEST(CudaAdCensusInspect, SameAsCpuByName) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = test::random_texture(45, 31, 11u, 3), right = test::shifted(left, 3);
  auto gpu = create_matcher("adcensus", "cuda", Overrides{});
  auto cpu = create_matcher("adcensus", "cpu", Overrides{});
  gpu->keep_passes(true);
  cpu->keep_passes(true);
  (void)gpu->compute(left, right, ADCENSUS_RANGE);
  (void)cpu->compute(left, right, ADCENSUS_RANGE);
  const AdCensusParams params;
  int compared = 0;
  for (const PassLayout& c : cpu->inspector()->passes()) {
    if (c.name == "scanline+wta.left" || c.name == "scanline+wta.right") continue;  // maps: fp16 ties may differ
    ++compared;
    if (c.disparities_per_slice == 0) {
      EXPECT_EQ(gpu->inspector()->read(c.name, 0).data, cpu->inspector()->read(c.name, 0).data) << c.name;
      continue;
    }
    double worst = 0.0;
    for (int k = 0; k < c.slices; ++k)
      worst = std::max(worst, cuda_test::relative_l2(gpu->inspector()->read(c.name, k), cpu->inspector()->read(c.name, k)));
    const int passes = params.aggregation_iterations + (c.name == "scanline+wta" ? 1 : 0);
    std::cout << "adcensus/cuda " << c.name << ": relative L2 to adcensus/cpu <= " << worst << "\n";
    EXPECT_LE(worst, 1e-3 * passes) << c.name;
  }
  EXPECT_EQ(compared, 6);
}

}  // namespace
}  // namespace stereo
