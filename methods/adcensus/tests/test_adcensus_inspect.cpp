// adcensus/cpu's pass inspector (reference/adcensus_inspect.h): the stages of the run under
// adcensus/cuda's names; without refinement, no right view.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/matcher.h"
#include "methods/adcensus/reference/adcensus.h"
#include "methods/builtin.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

const DisparityRange ADCENSUS_RANGE{-1, 8};

std::vector<std::string> names_of(PassInspector& in) {
  std::vector<std::string> names;
  for (const PassLayout& l : in.passes()) names.push_back(l.name);
  return names;
}

TEST(AdCensusCpuInspector, KeepsTheRunsStages) {
  const ImageU8 left = test::random_texture(29, 21, 4u, 3), right = test::shifted(left, 2);
  auto m = create_matcher("adcensus", "cpu", Overrides{{"refine", "none"}});
  m->keep_passes(true);
  const StereoResult r = m->compute(left, right, ADCENSUS_RANGE);
  PassInspector& in = *m->inspector();
  EXPECT_EQ(names_of(in), (std::vector<std::string>{"census.left", "census.right", "cross.left", "cross.right",
                                                    "scanline+wta", "scanline+wta.left"}));
  EXPECT_EQ(in.read("scanline+wta.left", 0).data, r.disparity.data);  // refine=none: the WTA is the map
  const reference::CensusImage census = reference::census_transform(reference::grey_image(right));
  const ImageF kept = in.read("census.right", 0);
  for (std::size_t i = 0; i < census.data.size(); ++i)
    ASSERT_EQ(kept.data[i * 4 + 3], float(census.data[i] >> 48)) << i;
  for (const PassLayout& l : in.passes())
    if (l.name == "scanline+wta") {
      EXPECT_EQ(l.slices, ADCENSUS_RANGE.count);
      EXPECT_EQ(l.first_disparity, ADCENSUS_RANGE.min);
    }
  EXPECT_THROW((void)in.read("scanline+wta", ADCENSUS_RANGE.count), Error);

  auto full = create_matcher("adcensus", "cpu", Overrides{});
  full->keep_passes(true);
  (void)full->compute(left, right, ADCENSUS_RANGE);
  EXPECT_EQ(names_of(*full->inspector()),
            (std::vector<std::string>{"census.left", "census.right", "cross.left", "cross.right", "cost+aggregate.right",
                                      "scanline+wta", "scanline+wta.left", "scanline+wta.right"}));
}

}  // namespace
}  // namespace stereo
