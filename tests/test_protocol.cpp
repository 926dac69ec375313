// The quantisation rule of each format's submissions (app/protocol.h): maps whose float and
// submitted scores differ by a known amount.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "app/dataset.h"
#include "app/metrics.h"
#include "app/protocol.h"

namespace stereo {
namespace {

constexpr float INF = std::numeric_limits<float>::infinity();

/// A 40 x 10 scene of `kind` named `name` whose ground truth is `gt` everywhere, every pixel
/// non-occluded (and, for v2, near a discontinuity too).
Scene flat_scene(SceneKind kind, const std::string& name, float gt) {
  Scene s;
  s.name = name;
  s.kind = kind;
  s.left = ImageU8(40, 10, 3, 0);
  s.right = ImageU8(40, 10, 3, 0);
  s.gt = ImageF(40, 10, 1, gt);
  s.mask_nonocc = ImageU8(40, 10, 1, 255);
  s.mask_all = ImageU8(40, 10, 1, 255);
  if (kind == SceneKind::middlebury_v2) s.mask_disc = ImageU8(40, 10, 1, 255);
  return s;
}

/// The first `share` of the pixels (row-major) hold `a`, the rest `b`.
ImageF split_map(float a, float b, double share) {
  ImageF m(40, 10, 1, b);
  const auto n = static_cast<std::size_t>(share * double(m.data.size()));
  for (std::size_t i = 0; i < n; ++i) m.data[i] = a;
  return m;
}

TEST(Protocol, MiddleburyV2RoundsToTheGroundTruthScale) {
  // Tsukuba x16: 6.02 px is 96.32 steps -> 96 -> exactly 6.0, one pixel from gt 5: not > 1 px.
  // As computed, 6.02 is bad. A quarter of the pixels: float 25 % bad, submitted 0 %.
  const Scene tsukuba = flat_scene(SceneKind::middlebury_v2, "tsukuba", 5.0f);
  const ImageF map = split_map(6.02f, 5.0f, 0.25);
  EXPECT_DOUBLE_EQ(*evaluate(map, tsukuba, 1.0).bad_nonocc, 25.0);
  EXPECT_DOUBLE_EQ(*evaluate(as_submitted(map, tsukuba), tsukuba, 1.0).bad_nonocc, 0.0);
  EXPECT_TRUE(submission_rule(tsukuba).quantizes);

  // Teddy x4: 6.1 is 24.4 steps -> 24 -> 6.0 (good); 6.2 is 24.8 -> 25 -> 6.25 (bad), and as
  // computed both are bad. Half 6.1, half 6.2: float 100 %, submitted 50 %.
  const Scene teddy = flat_scene(SceneKind::middlebury_v2, "teddy", 5.0f);
  const ImageF teddy_map = split_map(6.1f, 6.2f, 0.5);
  EXPECT_DOUBLE_EQ(*evaluate(teddy_map, teddy, 1.0).bad_all, 100.0);
  EXPECT_DOUBLE_EQ(*evaluate(as_submitted(teddy_map, teddy), teddy, 1.0).bad_all, 50.0);

  // Venus x8: exact multiples of 1/8 pass unchanged.
  const Scene venus = flat_scene(SceneKind::middlebury_v2, "venus", 5.0f);
  const ImageF exact = split_map(6.125f, 3.875f, 0.5);
  EXPECT_EQ(as_submitted(exact, venus).data, exact.data);
}

TEST(Protocol, MiddleburyV2SubmitsNoDisparityAsZeroAndClampsToTheByte) {
  const Scene cones = flat_scene(SceneKind::middlebury_v2, "cones", 5.0f);
  ImageF map(40, 10, 1, 5.0f);
  map.data[0] = INF;
  map.data[1] = std::numeric_limits<float>::quiet_NaN();
  map.data[2] = -3.0f;
  map.data[3] = 70.0f;  // 280 steps: the byte holds 255 = 63.75 px
  const ImageF sub = as_submitted(map, cones);
  EXPECT_EQ(sub.data[0], 0.0f);
  EXPECT_EQ(sub.data[1], 0.0f);
  EXPECT_EQ(sub.data[2], 0.0f);
  EXPECT_EQ(sub.data[3], 63.75f);
  EXPECT_EQ(sub.data[4], 5.0f);
}

TEST(Protocol, KittiRoundsTo256thsAndKeepsNoDisparity) {
  const Scene kitti = flat_scene(SceneKind::kitti, "000000", 10.0f);
  ImageF map(40, 10, 1, 10.0f);
  map.data[0] = 10.0019f;  // 2560.49 -> 2560 -> 10.0
  map.data[1] = INF;
  map.data[2] = 0.001f;    // 0.256 -> 0: no disparity, as the 16-bit PNG holds it
  const ImageF sub = as_submitted(map, kitti);
  EXPECT_EQ(sub.data[0], 10.0f);
  EXPECT_TRUE(std::isinf(sub.data[1]));
  EXPECT_TRUE(std::isinf(sub.data[2]));
  EXPECT_TRUE(submission_rule(kitti).quantizes);
}

TEST(Protocol, MiddEval3AndPlainPairsAreScoredAsComputed) {
  for (SceneKind kind : {SceneKind::middlebury_v3, SceneKind::plain}) {
    const Scene s = flat_scene(kind, "Adirondack", 5.0f);
    const ImageF map = split_map(6.02f, 4.3333f, 0.5);
    EXPECT_EQ(as_submitted(map, s).data, map.data) << to_string(kind);
    EXPECT_FALSE(submission_rule(s).quantizes);
  }
}

TEST(Protocol, ParsesItsTwoNames) {
  EXPECT_EQ(parse_protocol("submitted"), ScoreProtocol::submitted);
  EXPECT_EQ(parse_protocol("float"), ScoreProtocol::float_maps);
  EXPECT_STREQ(to_string(ScoreProtocol::float_maps), "float");
  EXPECT_THROW(parse_protocol("rounded"), Error);
}

}  // namespace
}  // namespace stereo
