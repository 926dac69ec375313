// The OpenCV peer (sgbm/opencv), built only with OpenCV: it matches a synthetic scene, fills
// every invalid pixel from the left by default, and refuses a range StereoSGBM cannot search.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "app/synth.h"
#include "methods/builtin.h"

using namespace stereo;

namespace {

Scene planes() {
  SynthOptions o;
  o.width = 96;
  o.height = 64;
  o.levels = 16;
  return make_synthetic_scene(o);
}

TEST(SgbmOpenCv, MatchesASyntheticSceneAndFillsEveryPixel) {
  const Scene s = planes();
  auto m = create_matcher("sgbm", "opencv", {});
  const StereoResult r = m->compute(s.left, s.right, s.range());
  const Metrics e = evaluate(r.disparity, s, 1.0);
  EXPECT_DOUBLE_EQ(e.density, 100.0);
  // Textured fronto-parallel planes: SGBM should get nearly all visible pixels within 1 px.
  ASSERT_TRUE(e.bad_nonocc.has_value());
  EXPECT_LT(*e.bad_nonocc, 10.0);
  EXPECT_NE(m->device().find("threads"), std::string::npos) << m->device();
  EXPECT_EQ(m->params()["mode"], "sgbm_3way");
}

TEST(SgbmOpenCv, WithoutFillInvalidPixelsStayUnknownAndFillOnlyChangesThose) {
  const Scene s = planes();
  const StereoResult filled = create_matcher("sgbm", "opencv", {})->compute(s.left, s.right, s.range());
  const StereoResult raw = create_matcher("sgbm", "opencv", {{"fill", "none"}})->compute(s.left, s.right, s.range());
  int holes = 0;
  for (std::size_t i = 0; i < raw.disparity.data.size(); ++i) {
    if (std::isfinite(raw.disparity.data[i])) {
      EXPECT_EQ(raw.disparity.data[i], filled.disparity.data[i]);
    } else {
      ++holes;
      EXPECT_TRUE(std::isfinite(filled.disparity.data[i]));
    }
  }
  // The left border (no match in the right view) and the occlusions are invalid for SGBM.
  EXPECT_GT(holes, 0);
  // Filled from the left: a hole with a valid pixel left of it in its row takes that value.
  const ImageF& d = raw.disparity;
  for (int y = 0; y < d.height; ++y)
    for (int x = 1; x < d.width; ++x)
      if (!std::isfinite(d.at(x, y)) && std::isfinite(d.at(x - 1, y))) {
        EXPECT_EQ(filled.disparity.at(x, y), d.at(x - 1, y));
      }
}

// StereoSGBM needs an image wider than its rounded-up count: a narrower pair is extended on
// the right and the map cropped, so the range the suite allows (levels < width) always runs.
TEST(SgbmOpenCv, ARangeNearTheWidthRunsOnTheExtendedPair) {
  const Scene s = planes();
  auto m = create_matcher("sgbm", "opencv", {});
  const DisparityRange range{0, 90};  // 96 when rounded up to 16s: not < the 96-pixel width
  const StereoResult r = m->compute(s.left, s.right, range);
  ASSERT_TRUE(r.disparity.same_size(s.left.width, s.left.height));
  int valid = 0;
  for (float v : r.disparity.data) {
    if (!std::isfinite(v)) continue;
    ++valid;
    EXPECT_GE(v, float(range.min));
    EXPECT_LE(v, float(range.max()));
  }
  EXPECT_GT(valid, 0);
  // Away from the added columns the wide search finds what the scene's own count finds.
  const StereoResult narrow = m->compute(s.left, s.right, DisparityRange{0, 16});
  int same = 0, compared = 0;
  for (int y = 0; y < s.left.height; ++y)
    for (int x = 20; x < s.left.width - 8; ++x) {
      const float a = r.disparity.at(x, y), b = narrow.disparity.at(x, y);
      if (!std::isfinite(a) || !std::isfinite(b)) continue;
      ++compared;
      same += std::fabs(a - b) <= 1.0f;
    }
  ASSERT_GT(compared, 0);
  EXPECT_GE(double(same) / compared, 0.9);
}

}  // namespace
