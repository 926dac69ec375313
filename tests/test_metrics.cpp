#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "app/metrics.h"

using namespace stereo;

namespace {

// A 4x2 scene: gt = 10 everywhere but one unknown pixel; nonocc = first row, all = all known,
// disc = pixel (1,0).
Scene tiny_scene() {
  Scene s;
  s.name = "tiny";
  s.kind = SceneKind::middlebury_v2;
  s.left = ImageU8(4, 2, 3, 100);
  s.right = s.left;
  s.gt = ImageF(4, 2, 1, 10.0f);
  s.gt.at(3, 1) = std::numeric_limits<float>::infinity();
  s.mask_nonocc = ImageU8(4, 2, 1, 0);
  for (int x = 0; x < 4; ++x) s.mask_nonocc.at(x, 0) = 255;
  s.mask_all = ImageU8(4, 2, 1, 255);
  s.mask_all.at(3, 1) = 0;
  s.mask_disc = ImageU8(4, 2, 1, 0);
  s.mask_disc.at(1, 0) = 255;
  s.levels = 16;
  return s;
}

}  // namespace

TEST(Metrics, BadPixelPercentagesPerMask) {
  const Scene s = tiny_scene();
  ImageF d(4, 2, 1, 10.0f);
  d.at(1, 0) = 11.5f;  // bad (1.5 > 1), nonocc and disc
  d.at(2, 0) = 11.0f;  // not bad: exactly the threshold
  d.at(0, 1) = 7.0f;   // bad, occluded
  d.at(3, 1) = 0.0f;   // no ground truth: ignored
  const Metrics m = evaluate(d, s, 1.0);
  EXPECT_DOUBLE_EQ(*m.bad_nonocc, 25.0);      // 1 of 4
  EXPECT_NEAR(*m.bad_all, 100.0 * 2 / 7, 1e-12);  // 2 of 7
  EXPECT_DOUBLE_EQ(*m.bad_disc, 100.0);
  EXPECT_DOUBLE_EQ(*m.avg_error, (0 + 1.5 + 1.0 + 0) / 4.0);  // over nonocc
  EXPECT_DOUBLE_EQ(m.density, 100.0);
  EXPECT_FALSE(m.d1_all.has_value());
  const Metrics strict = evaluate(d, s, 0.5);
  EXPECT_DOUBLE_EQ(*strict.bad_nonocc, 50.0);
}

TEST(Metrics, MissingDisparityIsBadAndLowersDensity) {
  const Scene s = tiny_scene();
  ImageF d(4, 2, 1, 10.0f);
  d.at(0, 0) = std::numeric_limits<float>::infinity();
  const Metrics m = evaluate(d, s, 1.0);
  EXPECT_DOUBLE_EQ(*m.bad_nonocc, 25.0);
  EXPECT_DOUBLE_EQ(m.density, 87.5);
}

TEST(Metrics, KittiD1NeedsBothThreeEndFivePercent) {
  Scene s = tiny_scene();
  s.kind = SceneKind::kitti;
  s.gt = ImageF(4, 2, 1, 100.0f);
  s.mask_all = ImageU8(4, 2, 1, 255);
  ImageF d(4, 2, 1, 100.0f);
  d.at(0, 0) = 104.0f;  // > 3 px but only 4%: not an outlier
  d.at(1, 0) = 106.0f;  // > 3 px and 6%: outlier
  const Metrics m = evaluate(d, s, 3.0);
  EXPECT_DOUBLE_EQ(*m.d1_all, 100.0 / 8);
}

TEST(Metrics, SizeMismatchAndNoGroundTruthThrow) {
  const Scene s = tiny_scene();
  EXPECT_THROW(evaluate(ImageF(3, 2, 1), s, 1.0), Error);
  Scene none = s;
  none.gt = ImageF();
  EXPECT_THROW(evaluate(ImageF(4, 2, 1), none, 1.0), Error);
}

TEST(Metrics, AgreementCountsEqualIntegerDisparities) {
  ImageF a(2, 2, 1, 3.0f), b(2, 2, 1, 3.0f);
  b.at(1, 1) = 4.0f;
  EXPECT_DOUBLE_EQ(agreement(a, b), 0.75);
  EXPECT_THROW(agreement(a, ImageF(3, 2, 1)), Error);
}

TEST(Metrics, PicturesMarkUnknownAndBadPixels) {
  const Scene s = tiny_scene();
  ImageF d(4, 2, 1, 10.0f);
  d.at(1, 0) = 20.0f;
  d.at(2, 0) = std::numeric_limits<float>::infinity();
  const ImageU8 c = colorize_disparity(d, 15.0f);
  ASSERT_EQ(c.channels, 3);
  EXPECT_EQ(c.at(2, 0, 0) + c.at(2, 0, 1) + c.at(2, 0, 2), 0);  // unknown: black
  EXPECT_NE(c.at(0, 0, 0) + c.at(0, 0, 1) + c.at(0, 0, 2), 0);
  const ImageU8 e = error_map(d, s, 1.0);
  EXPECT_GT(e.at(1, 0, 0), 200);  // bad, non-occluded: red
  EXPECT_LT(e.at(1, 0, 1), 50);
  EXPECT_EQ(e.at(3, 1, 0), 0);    // no ground truth: black
  EXPECT_EQ(e.at(0, 0, 0), e.at(0, 0, 1));  // correct: grey
}
