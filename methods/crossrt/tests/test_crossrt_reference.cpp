// The real-time cross-based method's CPU reference (reference/crossrt.h): each stage against a
// hand computation or a brute-force evaluation written independently here, the pipeline's
// properties on synthetic scenes (a plane recovered, GCPs as eq. 10 defines them, the fill
// linear between close GCPs, the scale-up doubling), and the cpu backend end to end.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "core/matcher.h"
#include "methods/crossrt/params.h"
#include "app/metrics.h"
#include "app/synth.h"
#include "methods/crossrt/reference/crossrt.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

using namespace reference::crossrt;

ImageU8 grey_texture(int width, int height, unsigned seed) { return test::random_texture(width, height, seed, 1); }

int clamped(const ImageU8& g, int x, int y) {
  return g.at(std::min(std::max(x, 0), g.width - 1), std::min(std::max(y, 0), g.height - 1));
}

// ---- scale down -------------------------------------------------------------------------

TEST(CrossRtReference, ScaleDownIsTheRoundedMeanOfThe3x3BlockAtEachEvenPixel) {
  const ImageU8 g = grey_texture(9, 7, 1);  // odd sizes: the last sample sits on the last column/row
  const ImageU8 s = scale_down(g, 2);
  ASSERT_EQ(s.width, 5);
  ASSERT_EQ(s.height, 4);
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      int sum = 0;
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) sum += clamped(g, 2 * x + i, 2 * y + j);
      EXPECT_EQ(s.at(x, y), (sum + 4) / 9) << "at (" << x << ", " << y << ")";
    }
  // A constant image stays constant, and scale 1 is the identity.
  EXPECT_EQ(scale_down(ImageU8(6, 6, 1, 77), 2).data, ImageU8(3, 3, 1, 77).data);
  EXPECT_EQ(scale_down(g, 1).data, g.data);
  EXPECT_THROW(scale_down(g, 3), Error);
}

// ---- cost -------------------------------------------------------------------------------

TEST(CrossRtReference, MiniCensusComparesTheSixDocumentedNeighbours) {
  ImageU8 g(7, 7, 1, 100);
  // Darker at (-1,-2) (bit 0), (2,0) (bit 3) and (1,2) (bit 5); brighter at (-2,0): no bit;
  // the unused (0,-1) darker: no bit.
  g.at(2, 1) = 10;
  g.at(5, 3) = 99;
  g.at(4, 5) = 0;
  g.at(1, 3) = 200;
  g.at(3, 2) = 0;
  EXPECT_EQ(mini_census(g).at(3, 3), 0b101001);
  EXPECT_EQ(mini_census(ImageU8(5, 5, 1, 9)).at(0, 0), 0);  // equal is not darker
}

TEST(CrossRtReference, CostIsTheTablesSumAndOutsideIsAboveEveryMatch) {
  const ImageU8 l = grey_texture(13, 6, 2);
  const ImageU8 r = grey_texture(13, 6, 3);
  const CrossRtParams p;
  const crossrt::CostTables t = crossrt::cost_tables(p);
  const ImageU8 cl = mini_census(l);
  const ImageU8 cr = mini_census(r);
  const DisparityRange range{-2, 6};
  const auto c = cost(l, r, range, p);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 13; ++x)
      for (int k = 0; k < range.count; ++k) {
        const int xr = x - (range.min + k);
        const int expected = xr < 0 || xr >= 13 ? crossrt::COST_OUTSIDE
                                                : t.ad[std::size_t(std::abs(l.at(x, y) - r.at(xr, y)))] +
                                                      t.mc[std::size_t(std::popcount(unsigned(cl.at(x, y) ^ cr.at(xr, y))))];
        ASSERT_EQ(c.at(x, y, k), expected) << "at (" << x << ", " << y << ", " << k << ")";
      }
}

// ---- arms -------------------------------------------------------------------------------

TEST(CrossRtReference, ArmsStopAtTheFirstDissimilarPixelTheLimitOrTheBorder) {
  // One row: 50 50 50 62 63 50 50 50 50 50; tc = 13: 62 is within 12 of 50, 63 is not.
  ImageU8 g(10, 1, 1, 50);
  g.at(3, 0) = 62;
  g.at(4, 0) = 63;
  const auto a = arms_x(g, 21, 13);
  EXPECT_EQ(a.at(0, 0, 0), 0);  // border
  EXPECT_EQ(a.at(0, 0, 1), 3);  // 50 50 62, stops at 63
  EXPECT_EQ(a.at(5, 0, 0), 0);  // the 63 next to it
  EXPECT_EQ(a.at(5, 0, 1), 4);
  EXPECT_EQ(a.at(4, 0, 0), 1);  // 63 vs 62 within 13, vs 50 not
  const auto limited = arms_x(g, 2, 13);
  EXPECT_EQ(limited.at(9, 0, 0), 2);
  // The vertical arms are the horizontal ones of the transposed image.
  ImageU8 col(1, 10, 1);
  for (int i = 0; i < 10; ++i) col.at(0, i) = g.at(i, 0);
  const auto v = arms_y(col, 21, 13);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(v.at(0, i, 0), a.at(i, 0, 0));
    EXPECT_EQ(v.at(0, i, 1), a.at(i, 0, 1));
  }
}

// ---- aggregation --------------------------------------------------------------------------

TEST(CrossRtReference, AggregationSumsOverTheArmsAndTheRightViewReadsTheShiftedLeftCost) {
  const ImageU8 l = grey_texture(23, 9, 4);
  const ImageU8 r = test::shifted(l, 3);
  const CrossRtParams p;
  const DisparityRange range{0, 6};
  const auto c = cost(l, r, range, p);
  const auto axl = arms_x(l, 5, 40);
  const auto axr = arms_x(r, 5, 40);
  const auto ayl = arms_y(l, 3, 40);
  const auto cxl = aggregate_x(c, axl, false);
  const auto cxr = aggregate_x(c, axr, true);
  const auto cal = aggregate_y(cxl, ayl);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 23; ++x)
      for (int k = 0; k < range.count; ++k) {
        int sl = 0, sr = 0;
        for (int q = x - axl.at(x, y, 0); q <= x + axl.at(x, y, 1); ++q) sl += c.at(q, y, k);
        for (int q = x - axr.at(x, y, 0); q <= x + axr.at(x, y, 1); ++q)
          sr += q + k < 23 ? int(c.at(q + k, y, k)) : crossrt::COST_OUTSIDE;
        ASSERT_EQ(cxl.at(x, y, k), sl) << "left at (" << x << ", " << y << ", " << k << ")";
        ASSERT_EQ(cxr.at(x, y, k), sr) << "right at (" << x << ", " << y << ", " << k << ")";
        std::uint32_t sy = 0;
        for (int q = y - ayl.at(x, y, 0); q <= y + ayl.at(x, y, 1); ++q) sy += cxl.at(x, q, k);
        ASSERT_EQ(cal.at(x, y, k), sy);
      }
}

TEST(CrossRtReference, FrontoParallelPlaneIsRecoveredInBothViewsAndItsPixelsAreGcps) {
  const int d = 4;
  const ImageU8 l = grey_texture(48, 20, 5);
  const ImageU8 r = test::shifted(l, d);
  const CrossRtParams p;
  const DisparityRange range{0, 10};
  const auto c = cost(l, r, range, p);
  const ImageF dl = wta(aggregate_y(aggregate_x(c, arms_x(l, p.wx, p.tc), false), arms_y(l, p.wy, p.tc)));
  const ImageF dr = wta(aggregate_y(aggregate_x(c, arms_x(r, p.wx, p.tc), true), arms_y(r, p.wy, p.tc)));
  const auto g = gcp(dl, dr);
  int gcps = 0;
  // Left pixels x >= d see their match; right pixels x < W - d (the shifted() view repeats
  // its edge beyond that).
  for (int y = 0; y < 20; ++y)
    for (int x = 12; x < 36; ++x) {
      EXPECT_EQ(dl.at(x, y), float(d)) << "D_L at (" << x << ", " << y << ")";
      EXPECT_EQ(dr.at(x, y), float(d)) << "D_R at (" << x << ", " << y << ")";
      gcps += g.at(x, y);
    }
  EXPECT_EQ(gcps, 20 * 24);
}

TEST(CrossRtReference, WtaTakesTheSmallestLevelOnATie) {
  Volume<std::uint32_t> ca(2, 1, {-1, 3});
  ca.at(0, 0, 0) = 5, ca.at(0, 0, 1) = 3, ca.at(0, 0, 2) = 3;
  ca.at(1, 0, 0) = 9, ca.at(1, 0, 1) = 9, ca.at(1, 0, 2) = 1;
  const ImageF d = wta(ca);
  EXPECT_EQ(d.at(0, 0), 0.0f);
  EXPECT_EQ(d.at(1, 0), 1.0f);
}

TEST(CrossRtReference, WtaSubpixelIsTheParabolaVertexThroughTheWinnerAndItsNeighbours) {
  Volume<std::uint32_t> ca(5, 1, {-1, 4});
  const std::uint32_t costs[5][4] = {
      {10, 4, 6, 9},    // k = 1: (10 - 6) / (2 (10 + 6 - 8)) = +0.25 -> 0.25
      {9, 6, 4, 10},    // k = 2: (6 - 10) / (2 (6 + 10 - 8)) = -0.25 -> 0.75
      {2, 5, 6, 7},     // k = 0: the range's end, no neighbour below -> -1
      {7, 5, 5, 5},     // a tie takes k = 1; (7 - 5) / (2 (7 + 5 - 10)) = +0.5 -> 0.5
      {8, 3, 3, 3}};    // a tie on equal neighbours: k = 1, numerator 5, denominator 10 -> 0.5
  for (int x = 0; x < 5; ++x)
    for (int k = 0; k < 4; ++k) ca.at(x, 0, k) = costs[x][k];
  const ImageF d = wta_subpixel(ca);
  EXPECT_EQ(d.at(0, 0), 0.25f);
  EXPECT_EQ(d.at(1, 0), 0.75f);
  EXPECT_EQ(d.at(2, 0), -1.0f);
  EXPECT_EQ(d.at(3, 0), 0.5f);
  EXPECT_EQ(d.at(4, 0), 0.5f);
  // The integer WTA picks the same levels.
  const ImageF w = wta(ca);
  for (int x = 0; x < 5; ++x) EXPECT_LE(std::fabs(d.at(x, 0) - w.at(x, 0)), 0.5f) << x;
  // Flat costs around the winner: no refinement.
  Volume<std::uint32_t> flat(1, 1, {3, 3});
  for (int k = 0; k < 3; ++k) flat.at(0, 0, k) = 7;
  EXPECT_EQ(wta_subpixel(flat).at(0, 0), 3.0f);
}

// ---- GCPs and the fill ------------------------------------------------------------------

TEST(CrossRtReference, GcpIsEq10) {
  ImageF dl(6, 1, 1), dr(6, 1, 1);
  const float l[6] = {0, 1, 2, 2, 9, 1};
  const float r[6] = {2, 2, 0, 1, 1, 0};
  for (int x = 0; x < 6; ++x) dl.at(x, 0) = l[x], dr.at(x, 0) = r[x];
  const auto g = gcp(dl, dr);
  EXPECT_EQ(g.at(0, 0), 0);  // k = 0: D_R(0) = 2
  EXPECT_EQ(g.at(1, 0), 0);  // k = 1: D_R(0) = 2
  EXPECT_EQ(g.at(2, 0), 1);  // k = 2: D_R(0) = 2
  EXPECT_EQ(g.at(3, 0), 1);  // k = 2: D_R(1) = 2
  EXPECT_EQ(g.at(4, 0), 0);  // k = 9: x - k outside the image
  EXPECT_EQ(g.at(5, 0), 1);  // k = 1: D_R(4) = 1
  // The two views' roles are not symmetric: swapping them is a different test.
  EXPECT_NE(gcp(dr, dl).data, g.data);
}

TEST(CrossRtReference, BilateralFillIsLinearBetweenCloseGcpsAndPicksByBrightnessAcrossAnEdge) {
  ImageF d(8, 2, 1, 0.0f);
  Image<std::uint8_t> g(8, 2, 1, 0);
  ImageU8 grey(8, 2, 1, 100);
  // Row 0: GCPs at x = 1 (d 10) and x = 5 (d 12): close (|10 - 12| <= 3): linear.
  d.at(1, 0) = 10, g.at(1, 0) = 1;
  d.at(5, 0) = 12, g.at(5, 0) = 1;
  // Row 1: GCPs at x = 0 (d 20, grey 100) and x = 4 (d 5, grey 30): far apart; pixel 1 is
  // grey 95 (closer to the left), pixel 3 grey 35 (closer to the right).
  d.at(0, 1) = 20, g.at(0, 1) = 1;
  d.at(4, 1) = 5, g.at(4, 1) = 1, grey.at(4, 1) = 30;
  grey.at(1, 1) = 95, grey.at(3, 1) = 35;
  const ImageF f = bilateral_fill(d, g, grey, 3);
  EXPECT_FLOAT_EQ(f.at(2, 0), 10.5f);
  EXPECT_FLOAT_EQ(f.at(3, 0), 11.0f);
  EXPECT_FLOAT_EQ(f.at(4, 0), 11.5f);
  EXPECT_EQ(f.at(0, 0), 10.0f);  // one side only
  EXPECT_EQ(f.at(7, 0), 12.0f);
  EXPECT_EQ(f.at(1, 1), 20.0f);
  EXPECT_EQ(f.at(3, 1), 5.0f);
  EXPECT_EQ(f.at(2, 1), 20.0f);  // grey 100: as the left GCP
  EXPECT_EQ(f.at(6, 1), 5.0f);   // right of the last GCP: one side only
  EXPECT_EQ(f.at(1, 0), 10.0f);  // GCPs keep their value

  // Fractional GCPs (wta_subpixel): linear within T, and the brightness rule keeps fractions.
  d.at(1, 0) = 10.25f, d.at(5, 0) = 12.75f;
  d.at(0, 1) = 20.5f, d.at(4, 1) = 5.25f;
  const ImageF h = bilateral_fill(d, g, grey, 3);
  EXPECT_EQ(h.at(3, 0), (10.25f * 2.0f + 12.75f * 2.0f) / 4.0f);
  EXPECT_EQ(h.at(2, 0), (10.25f * 3.0f + 12.75f * 1.0f) / 4.0f);
  EXPECT_EQ(h.at(1, 1), 20.5f);
  EXPECT_EQ(h.at(3, 1), 5.25f);
}

// ---- scale up -----------------------------------------------------------------------------

TEST(CrossRtReference, ScaleUpDoublesAndIsLinearAlongYAndBilateralAlongX) {
  // Half-size 3x2 map for a 5x4 full-size image.
  ImageF d(3, 2, 1);
  d.at(0, 0) = 4, d.at(1, 0) = 5, d.at(2, 0) = 20;
  d.at(0, 1) = 6, d.at(1, 1) = 7, d.at(2, 1) = 22;
  ImageU8 grey(5, 4, 1, 50);
  grey.at(3, 0) = 200, grey.at(4, 0) = 200;  // full pixel (3, 0) looks like sample 2 (x 4)
  const ImageF u = scale_up(d, grey, 3, {0, 100});
  ASSERT_EQ(u.width, 5);
  ASSERT_EQ(u.height, 4);
  EXPECT_EQ(u.at(0, 0), 8.0f);
  EXPECT_EQ(u.at(2, 0), 10.0f);
  EXPECT_EQ(u.at(1, 0), 9.0f);   // |4 - 5| <= 3: the doubled mean
  EXPECT_EQ(u.at(3, 0), 40.0f);  // |5 - 20| > 3: the brighter-alike sample, doubled
  EXPECT_EQ(u.at(3, 2), 2.0f * 7.0f);  // grey 50 everywhere on row 2: a tie takes the smaller
  EXPECT_EQ(u.at(0, 1), 10.0f);  // rows 0 and 2: 8 and 12
  EXPECT_EQ(u.at(0, 3), 12.0f);  // past the last sample row: copies row 2
  // A constant map doubles everywhere.
  const ImageF c = scale_up(ImageF(4, 3, 1, 6.0f), ImageU8(7, 5, 1, 9), 3, {0, 100});
  for (float v : c.data) EXPECT_EQ(v, 12.0f);
  // Doubling can step past the full-size range (ceil(max / 2) * 2 = max + 1): clamped.
  const ImageF clamped_map = scale_up(ImageF(4, 3, 1, 6.0f), ImageU8(7, 5, 1, 9), 3, {0, 12});
  for (float v : clamped_map.data) EXPECT_EQ(v, 11.0f);
  EXPECT_THROW(scale_up(d, ImageU8(8, 4, 1), 3, {0, 100}), Error);
}

// ---- the cpu backend --------------------------------------------------------------------

TEST(CrossRtReference, CpuBackendRecoversASyntheticSceneAtBothScales) {
  SynthOptions options;
  options.width = 160;
  options.height = 120;
  options.levels = 24;
  const Scene scene = make_synthetic_scene(options);
  for (const char* scale : {"2", "1"}) {
    auto m = create_matcher("crossrt", "cpu", {{"scale", scale}});
    const StereoResult r = m->compute(scene.left, scene.right, scene.range());
    ASSERT_EQ(r.disparity.width, scene.left.width);
    ASSERT_EQ(r.disparity.height, scene.left.height);
    const Metrics metrics = evaluate(r.disparity, scene, 1.0);
    ASSERT_TRUE(metrics.bad_nonocc.has_value());
    EXPECT_LT(*metrics.bad_nonocc, 10.0) << "scale " << scale;
    EXPECT_EQ(metrics.density, 100.0) << "scale " << scale;
    ASSERT_EQ(r.timing.stages.size(), 8u);
    EXPECT_EQ(r.timing.stages[3].first, "C+CA_x");
  }
}

TEST(CrossRtReference, ScaleTwoFindsEvenPlanesAboveAndBelowZeroInsideTheRange) {
  // At K = 2 a disparity is twice a half-size level, so the planes are even; ranges start
  // above zero, below zero and across it, with odd ends that the scaled range rounds outward.
  const ImageU8 left = test::random_texture(96, 48, 12);
  // The paper's integer maps hold the plane exactly; the sub-pixel default to within 0.5.
  for (const char* subpixel : {"0", "1"}) {
  auto m = create_matcher("crossrt", "cpu", {{"subpixel", subpixel}});
  const float tolerance = subpixel[0] == '0' ? 0.0f : 0.5f;
  for (const auto& [d, range] : {std::pair{10, DisparityRange{7, 8}}, std::pair{-6, DisparityRange{-11, 9}},
                                  std::pair{2, DisparityRange{-3, 9}}}) {
    const ImageU8 right = test::shifted(left, d);
    const StereoResult r = m->compute(left, right, range);
    int hits = 0, total = 0;
    for (int y = 4; y < 44; ++y)
      for (int x = 12; x < 84; ++x) {
        ++total;
        hits += std::fabs(r.disparity.at(x, y) - float(d)) <= tolerance;
      }
    EXPECT_GE(double(hits) / total, 0.95) << "plane " << d << " in " << range.min << ".." << range.max()
                                          << ", subpixel " << subpixel;
    for (float v : r.disparity.data) {
      ASSERT_GE(v, float(range.min));
      ASSERT_LE(v, float(range.max()));
    }
  }
  }
}

TEST(CrossRtReference, ParametersAreValidated) {
  EXPECT_THROW(create_matcher("crossrt", "cpu", {{"scale", "3"}}), Error);
  EXPECT_THROW(create_matcher("crossrt", "cpu", {{"wx", "200"}}), Error);
  EXPECT_THROW(create_matcher("crossrt", "cpu", {{"lambda_ad", "0"}}), Error);
  EXPECT_THROW(create_matcher("crossrt", "cpu", {{"subpixel", "2"}}), Error);
}

}  // namespace
}  // namespace stereo
