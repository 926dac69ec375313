// What the real-time cross-based method's model header (methods/crossrt/model.h) holds for both
// backends, against the paper: the quantised terms of eq. 4-5 on their documented scales, the
// mini-census window and the scaled range of eq. 2.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <utility>

#include "methods/crossrt/model.h"

namespace stereo {
namespace {

TEST(CrossRtModel, CostTablesQuantiseEq4And5OnTheDocumentedScales) {
  const crossrt::CostTables t = crossrt::cost_tables(CrossRtParams{});
  EXPECT_EQ(t.ad[0], 0);
  EXPECT_EQ(t.mc[0], 0);
  // lambda_AD = 0.3 on [0, 1]: a difference of 76.5 grey levels is 1 - 1/e of the scale.
  EXPECT_EQ(t.ad[255], std::lround(crossrt::COST_SCALE * (1.0 - std::exp(-1.0 / 0.3))));
  EXPECT_NEAR(double(t.ad[77]), crossrt::COST_SCALE * (1.0 - std::exp(-1.0)), 1.0);
  EXPECT_EQ(t.mc[6], std::lround(crossrt::COST_SCALE * (1.0 - std::exp(-6.0 / 2.3))));
  for (int i = 1; i < 256; ++i) EXPECT_GE(t.ad[i], t.ad[i - 1]);
  for (int i = 1; i < 7; ++i) EXPECT_GT(t.mc[i], t.mc[i - 1]);
  EXPECT_EQ(t.mc[7], 0) << "padding: no Hamming distance of six bits reaches it";
  // Not saturated after one grey level, as lambda = 0.3 on 0..255 would be.
  EXPECT_LT(t.ad[1], 4);
  // A match outside the image costs more than any inside (the choice COST_OUTSIDE documents).
  EXPECT_LT(t.ad[255] + t.mc[6], crossrt::COST_OUTSIDE);
  EXPECT_EQ(sizeof(crossrt::CostTables), 264u) << "the kernels copy the tables to shared memory as 264 bytes";
}

TEST(CrossRtModel, CostTablesFollowTheirParameters) {
  CrossRtParams steep;
  steep.lambda_ad = 0.05f;
  steep.lambda_mc = 0.5f;
  const crossrt::CostTables a = crossrt::cost_tables(CrossRtParams{});
  const crossrt::CostTables b = crossrt::cost_tables(steep);
  EXPECT_GT(b.ad[20], a.ad[20]);
  EXPECT_GT(b.mc[1], a.mc[1]);
  for (int i = 0; i < 256; ++i) EXPECT_LE(b.ad[i], crossrt::COST_SCALE);
  EXPECT_EQ(b.mc[6], std::lround(crossrt::COST_SCALE * (1.0 - std::exp(-6.0 / 0.5))));
}

TEST(CrossRtModel, MiniCensusSamplesAHexagonTwoPixelsOut) {
  static_assert(crossrt::mini_census_offset(0).dx == -1 && crossrt::mini_census_offset(0).dy == -2,
                "the offsets are constants the kernels fold");
  const std::pair<int, int> documented[crossrt::MINI_CENSUS_BITS] = {{-1, -2}, {1, -2}, {-2, 0},
                                                                     {2, 0},   {-1, 2}, {1, 2}};
  std::set<std::pair<int, int>> seen;
  for (int i = 0; i < crossrt::MINI_CENSUS_BITS; ++i) {
    const crossrt::Offset o = crossrt::mini_census_offset(i);
    EXPECT_EQ(std::make_pair(o.dx, o.dy), documented[i]) << "bit " << i;
    // Inside the 5x5 window of Zhang et al.'s mini-census ([14]) and two pixels out.
    EXPECT_EQ(std::max(std::abs(o.dx), std::abs(o.dy)), 2) << "bit " << i;
    // Point-symmetric: bit i and bit 5 - i are opposite neighbours, so no direction is favoured.
    const crossrt::Offset opposite = crossrt::mini_census_offset(crossrt::MINI_CENSUS_BITS - 1 - i);
    EXPECT_EQ(o.dx, -opposite.dx) << "bit " << i;
    EXPECT_EQ(o.dy, -opposite.dy) << "bit " << i;
    seen.insert({o.dx, o.dy});
  }
  EXPECT_EQ(seen.size(), std::size_t(crossrt::MINI_CENSUS_BITS));
}

TEST(CrossRtModel, ScaledRangeCoversEveryFullSizeDisparity) {
  const DisparityRange a = crossrt::scaled_range({0, 145}, 2);  // the paper's 145 levels -> 73
  EXPECT_EQ(a.min, 0);
  EXPECT_EQ(a.count, 73);
  const DisparityRange b = crossrt::scaled_range({-3, 10}, 2);  // -3..6 -> -2..3
  EXPECT_EQ(b.min, -2);
  EXPECT_EQ(b.max(), 3);
  const DisparityRange c = crossrt::scaled_range({5, 7}, 1);
  EXPECT_EQ(c.min, 5);
  EXPECT_EQ(c.count, 7);
  EXPECT_THROW(crossrt::scaled_range({0, 0}, 2), Error);
}

}  // namespace
}  // namespace stereo
