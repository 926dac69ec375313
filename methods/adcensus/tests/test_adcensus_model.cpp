// What AD-Census's model header (methods/adcensus/model.h) holds for both backends, against
// Mei et al. (ICCV-W 2011): the census window of Sec. 2.1, the penalties of Sec. 2.3 and the
// outlier labels and interpolation directions of Sec. 2.4.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numbers>
#include <set>
#include <type_traits>
#include <utility>

#include "methods/adcensus/model.h"

namespace stereo {
namespace {

namespace model = adcensus;

TEST(AdCensusModel, CensusWindowIsNineBySevenAndFitsTheSixtyFourBitString) {
  EXPECT_EQ(2 * model::CENSUS_HALF_WIDTH + 1, 9);   // Sec. 2.1: a 9 x 7 window
  EXPECT_EQ(2 * model::CENSUS_HALF_HEIGHT + 1, 7);
  EXPECT_EQ(model::CENSUS_BITS, 62);  // the centre compares with nothing
  EXPECT_LE(model::CENSUS_BITS, 64) << "the paper stores the census as a 64-bit string";
}

TEST(AdCensusModel, PenaltiesFallByTheNumberOfColourEdges) {
  // Sec. 2.3: P1 = Pi1, P2 = Pi2 with no edge; Pi / 4 with one; Pi / 10 with both.
  EXPECT_EQ(model::penalty_divisor(0), 1.0f);
  EXPECT_EQ(model::penalty_divisor(1), 4.0f);
  EXPECT_EQ(model::penalty_divisor(2), 10.0f);
  // The Table 1 penalties keep P1 <= P2 in every case, as eq. 4 needs.
  for (int edges = 0; edges <= 2; ++edges)
    EXPECT_LE(1.0f / model::penalty_divisor(edges), 3.0f / model::penalty_divisor(edges));
  static_assert(model::penalty_divisor(1) == 4.0f, "a constant the CUDA launcher and the reference share");
}

TEST(AdCensusModel, OutlierLabelsAreOneByteEach) {
  static_assert(std::is_same_v<std::underlying_type_t<model::OutlierKind>, std::uint8_t>);
  EXPECT_EQ(int(model::OutlierKind::reliable), 0);
  EXPECT_EQ(int(model::OutlierKind::occlusion), 1);
  EXPECT_EQ(int(model::OutlierKind::mismatch), 2);
}

TEST(AdCensusModel, ArmsAreStoredLeftRightUpDown) {
  EXPECT_EQ(model::ARM_LEFT, 0);
  EXPECT_EQ(model::ARM_RIGHT, 1);
  EXPECT_EQ(model::ARM_UP, 2);
  EXPECT_EQ(model::ARM_DOWN, 3);
}

TEST(AdCensusModel, InterpolationWalksSixteenDirectionsCounterClockwiseFromPlusX) {
  // Sec. 2.4: "the nearest reliable pixels in 16 different directions". Ours: the 16 cells of
  // the 5x5 square's border, so each direction is a distinct (dx, dy) with max(|dx|, |dy|) = 2.
  std::set<std::pair<int, int>> seen;
  double previous_angle = -1.0;
  for (int i = 0; i < model::INTERPOLATION_DIRECTION_COUNT; ++i) {
    const int dx = model::INTERPOLATION_DIRECTIONS[i][0];
    const int dy = model::INTERPOLATION_DIRECTIONS[i][1];
    EXPECT_EQ(std::max(std::abs(dx), std::abs(dy)), 2) << "direction " << i;
    seen.insert({dx, dy});
    // Counter-clockwise as the image is seen (y grows downwards), starting at +x.
    double angle = std::atan2(-double(dy), double(dx));
    if (angle < 0.0) angle += 2.0 * std::numbers::pi;
    EXPECT_GT(angle, previous_angle) << "direction " << i;
    previous_angle = angle;
  }
  EXPECT_EQ(seen.size(), std::size_t(model::INTERPOLATION_DIRECTION_COUNT));
  EXPECT_EQ(model::INTERPOLATION_DIRECTIONS[0][0], 2);
  EXPECT_EQ(model::INTERPOLATION_DIRECTIONS[0][1], 0);
  // Step k visits p + (k dx / 2, k dy / 2), truncating: direction (2, 1) from (0, 0) visits
  // (1, 0), (2, 1), (3, 1), (4, 2): one new column a step.
  EXPECT_EQ(model::INTERPOLATION_DIRECTIONS[15][0], 2);
  EXPECT_EQ(model::INTERPOLATION_DIRECTIONS[15][1], 1);
  const std::pair<int, int> visited[] = {{1, 0}, {2, 1}, {3, 1}, {4, 2}};
  for (int step = 1; step <= 4; ++step) {
    EXPECT_EQ(step * model::INTERPOLATION_DIRECTIONS[15][0] / 2, visited[step - 1].first);
    EXPECT_EQ(step * model::INTERPOLATION_DIRECTIONS[15][1] / 2, visited[step - 1].second);
  }
}

}  // namespace
}  // namespace stereo
