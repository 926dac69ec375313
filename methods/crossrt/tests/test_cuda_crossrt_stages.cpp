// Each CUDA stage of the real-time cross-based method (methods/crossrt/cuda/stages.h) against the
// reference stage of the same name (reference/crossrt.h). Every stage is integer or uses the
// reference's float operations in its order, so every comparison is bit-exact. Sizes are odd
// and the disparity ranges cross the kernels' 32-level groups. Skips without a CUDA device.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>
#include <string>

#include "methods/crossrt/cuda/stages.h"
#include "cuda/shared/median.h"
#include "methods/crossrt/params.h"
#include "methods/crossrt/reference/crossrt.h"
#include "methods/crossrt/tests/cuda_stage_util.h"
#include "reference/grey.h"
#include "reference/median.h"
#include "tests/test_cuda_util.h"

namespace stereo {
namespace {

namespace rc = reference::crossrt;
namespace cr = cu::crossrt;
using cuda_test::crossrt::download_volume;
using cuda_test::crossrt::upload_volume;

// Smooth enough that arms are longer than one pixel, random enough that matching is sharp.
ImageU8 smooth_grey(int width, int height, unsigned seed) {
  const ImageU8 r = cuda_test::random_u8(width, height, 1, seed);
  ImageU8 out(width, height, 1);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      int sum = 0;
      for (int i = -2; i <= 2; ++i) sum += r.at(std::min(std::max(x + i, 0), width - 1), y);
      out.at(x, y) = std::uint8_t(sum / 5);
    }
  return out;
}

template <class T>
int first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return -2;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return int(i);
  return -1;
}

TEST(CudaCrossRtStages, ScaleDownMatchesTheReferenceGreyAndEq2) {
  STEREO_REQUIRE_CUDA();
  for (int channels : {1, 3, 4})
    for (int scale : {1, 2}) {
      const ImageU8 rgb = cuda_test::random_u8(37, 23, channels, 11u + unsigned(channels));
      cu::DeviceBuffer<std::uint8_t> raw = cu::make_device_buffer<std::uint8_t>(rgb.data.size(), "test", "raw");
      CUDA_CHECK(cudaMemcpy(raw.get(), rgb.data.data(), rgb.data.size(), cudaMemcpyHostToDevice));
      cu::DeviceImage<std::uint8_t> grey(37, 23, "test", "grey");
      cu::DeviceImage<std::uint8_t> scaled((37 + scale - 1) / scale, (23 + scale - 1) / scale, "test", "scaled");
      cu::poison(grey);
      cu::poison(scaled);
      cr::scale_down(raw.get(), channels, scale, grey, scaled, nullptr);
      const ImageU8 expected_grey = reference::grey_image(rgb);
      EXPECT_EQ(first_difference(cr::download_u8(grey).data, expected_grey.data), -1)
          << channels << " channels: first differing grey pixel";
      EXPECT_EQ(first_difference(cr::download_u8(scaled).data, rc::scale_down(expected_grey, scale).data), -1)
          << channels << " channels, scale " << scale << ": first differing scaled pixel";
    }
}

TEST(CudaCrossRtStages, ArmsMatchTheReference) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 g = smooth_grey(53, 41, 3);
  const auto d = cr::upload_u8(g);
  cu::DeviceImage<uchar2> ax(53, 41, "test", "arms"), ay(53, 41, "test", "arms");
  cu::poison(ax);
  cu::poison(ay);
  cr::arms_x(d, 21, 13, ax, nullptr);
  cr::arms_y(d, 31, 13, ay, nullptr);
  EXPECT_EQ(first_difference(cr::download_arms(ax).data, rc::arms_x(g, 21, 13).data), -1);
  EXPECT_EQ(first_difference(cr::download_arms(ay).data, rc::arms_y(g, 31, 13).data), -1);
}

TEST(CudaCrossRtStages, CostAggregateXMatchesTheReferenceForBothViews) {
  STEREO_REQUIRE_CUDA();
  const CrossRtParams p;
  const ImageU8 l = smooth_grey(131, 19, 5);
  const ImageU8 r = smooth_grey(131, 19, 6);
  // A looser brightness threshold than TC, so that arms reach W_x (the segments' halo).
  const int tc = 40;
  for (const DisparityRange range : {DisparityRange{0, 73}, DisparityRange{-3, 40}, DisparityRange{2, 5}}) {
    const auto axl = rc::arms_x(l, p.wx, tc);
    const auto axr = rc::arms_x(r, p.wx, tc);
    const auto c = rc::cost(l, r, range, p);
    const auto expected_l = rc::aggregate_x(c, axl, false);
    const auto expected_r = rc::aggregate_x(c, axr, true);
    const auto dl = cr::upload_u8(l), dr = cr::upload_u8(r);
    const auto dal = cr::upload_arms(axl), dar = cr::upload_arms(axr);
    const cr::DeviceTables tables = cr::make_tables(p);
    // Whole rows (0), and the segmented kernel of wide images forced onto this row: segments
    // of 17 and 40 columns with halos of W_x, one of them shorter than the longest arm.
    for (int segment : {0, 17, 40, 7}) {
      cr::DeviceVolume16 cl(131, 19, range, "test", "cax"), crv(131, 19, range, "test", "cax");
      CUDA_CHECK(cudaMemset(cl.get(), 0xFF, cl.count() * 2));
      CUDA_CHECK(cudaMemset(crv.get(), 0xFF, crv.count() * 2));
      cr::cost_aggregate_x({dl, dr, dal, dar, tables}, range, cl, crv, 0, nullptr, p.wx, segment);
      EXPECT_EQ(first_difference(download_volume(cl).data, expected_l.data), -1)
          << "left CA_x, range min " << range.min << " count " << range.count << ", segments of " << segment
          << " (index (y*W+x)*D+k)";
      EXPECT_EQ(first_difference(download_volume(crv).data, expected_r.data), -1)
          << "right CA_x, range min " << range.min << " count " << range.count << ", segments of " << segment;
    }
  }
  int longest = 0;
  for (const auto a : rc::arms_x(l, p.wx, tc).data) longest = std::max(longest, int(a));
  EXPECT_EQ(longest, p.wx) << "the test image should have arms as long as the halo";
}

TEST(CudaCrossRtStages, AggregateYWtaMatchesTheReference) {
  STEREO_REQUIRE_CUDA();
  const CrossRtParams p;
  const ImageU8 l = smooth_grey(47, 83, 7);
  const ImageU8 r = smooth_grey(47, 83, 8);
  const DisparityRange range{-1, 45};
  const auto c = rc::cost(l, r, range, p);
  // A looser brightness threshold than TC, so that arms reach W_y (the segments' halo).
  const int tc = 40;
  for (bool right_view : {false, true}) {
    const ImageU8& view = right_view ? r : l;
    const auto cax = rc::aggregate_x(c, rc::arms_x(view, p.wx, p.tc), right_view);
    const auto ay = rc::arms_y(view, p.wy, tc);
    const auto ca = rc::aggregate_y(cax, ay);
    const ImageF expected = rc::wta(ca);
    const auto dv = upload_volume(cax);
    const auto da = cr::upload_arms(ay);
    cu::DeviceImage<float> out(47, 83, "test", "map"), refined(47, 83, "test", "refined");
    cu::poison(out);
    cr::aggregate_y_wta(dv, da, out, 0, nullptr);
    EXPECT_EQ(first_difference(cr::download_f32(out).data, expected.data), -1) << (right_view ? "right" : "left");
    // Whole columns (0), and the segments of tall images forced onto this column: 30 and 7
    // rows with halos of W_y (7 is shorter than the longest arm).
    for (int segment : {0, 30, 7}) {
      cu::poison(out);
      cu::poison(refined);
      cr::aggregate_y_wta(dv, da, out, 0, nullptr, &refined, p.wy, segment);
      EXPECT_EQ(first_difference(cr::download_f32(out).data, expected.data), -1)
          << (right_view ? "right" : "left") << ", with the sub-pixel output, segments of " << segment;
      EXPECT_EQ(first_difference(cr::download_f32(refined).data, rc::wta_subpixel(ca).data), -1)
          << (right_view ? "right" : "left") << ", sub-pixel map, segments of " << segment;
    }
  }
  int longest = 0;
  for (const auto a : rc::arms_y(l, p.wy, tc).data) longest = std::max(longest, int(a));
  EXPECT_EQ(longest, p.wy) << "the test image should have arms as long as the halo";
}

TEST(CudaCrossRtStages, SubpixelNeighboursAcrossTheKernels32LevelPasses) {
  STEREO_REQUIRE_CUDA();
  // Planted winners where the kernel's 32-level passes meet: its lower neighbour in the
  // previous pass (k = 32), its upper neighbour in the next pass (k = 31), both ends of the
  // range, a tie across passes (the smaller level wins), flat costs. Zero-length vertical arms,
  // so CA = CA_x and every value is chosen here.
  const int w = 9, h = 3;
  const DisparityRange range{-5, 70};
  rc::Volume<std::uint16_t> cax(w, h, range);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < range.count; ++k) cax.at(x, y, k) = std::uint16_t(1000 + 7 * ((x * 13 + y * 5 + k * 3) % 11));
  const auto plant = [&](int x, int y, int k, int below, int at, int above) {
    if (k > 0) cax.at(x, y, k - 1) = std::uint16_t(below);
    cax.at(x, y, k) = std::uint16_t(at);
    if (k + 1 < range.count) cax.at(x, y, k + 1) = std::uint16_t(above);
  };
  plant(0, 0, 31, 40, 10, 25);
  plant(1, 0, 32, 25, 10, 40);
  plant(2, 0, 0, 0, 10, 30);
  plant(3, 0, 69, 30, 10, 0);
  plant(4, 0, 63, 12, 10, 15);
  plant(5, 0, 64, 11, 10, 13);
  plant(6, 0, 30, 20, 10, 10);   // tie k = 30 / 31 inside a pass
  plant(7, 0, 31, 20, 10, 10);   // tie k = 31 / 32 across passes: 31 wins, neighbours 20 and 10
  plant(8, 0, 33, 10, 10, 20);   // tie k = 32 / 33: 32 wins
  plant(0, 1, 40, 10, 10, 10);   // three equal levels: 39 wins, its lower neighbour the background
  const Image<std::uint8_t> arms(w, h, 2, 0);
  const auto ca = rc::aggregate_y(cax, arms);
  const auto dv = upload_volume(cax);
  const auto da = cr::upload_arms(arms);
  cu::DeviceImage<float> out(w, h, "test", "map"), refined(w, h, "test", "refined");
  cu::poison(out);
  cu::poison(refined);
  cr::aggregate_y_wta(dv, da, out, 0, nullptr, &refined);
  const ImageF expected = rc::wta_subpixel(ca);
  EXPECT_EQ(first_difference(cr::download_f32(out).data, rc::wta(ca).data), -1);
  const ImageF got = cr::download_f32(refined);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      EXPECT_EQ(got.at(x, y), expected.at(x, y)) << "pixel (" << x << ", " << y << ")";
  // The planted vertices themselves, as the reference computes them.
  EXPECT_EQ(expected.at(0, 0), float(-5 + 31) + float(40 - 25) / float(2 * (40 + 25 - 20)));
  EXPECT_EQ(expected.at(7, 0), float(-5 + 31) + float(20 - 10) / float(2 * (20 + 10 - 20)));
}

ImageF random_levels(int width, int height, int levels, unsigned seed) {
  ImageU8 r = cuda_test::random_u8(width, height, 1, seed);
  ImageF f(width, height, 1);
  for (std::size_t i = 0; i < r.data.size(); ++i) f.data[i] = float(r.data[i] % levels);
  return f;
}

TEST(CudaCrossRtStages, GcpBilateralFillAndScaleUpMatchTheReference) {
  STEREO_REQUIRE_CUDA();
  const int w = 61, h = 29;
  // Maps of few levels, so that many pixels are GCPs and both fill cases occur.
  const ImageF dl = random_levels(w, h, 4, 21);
  const ImageF dr = random_levels(w, h, 4, 22);
  const auto g = rc::gcp(dl, dr);
  const auto ddl = cu::upload(dl), ddr = cu::upload(dr);
  cu::DeviceImage<std::uint8_t> mask(w, h, "test", "mask");
  cu::poison(mask);
  cr::gcp(ddl, ddr, mask, nullptr);
  EXPECT_EQ(first_difference(cr::download_u8(mask).data, g.data), -1);

  const ImageU8 grey = smooth_grey(w, h, 24);
  const auto dgrey = cr::upload_u8(grey);
  // Fractional maps too (the sub-pixel WTA's): the fill's float operations must round alike.
  ImageF fractional = random_levels(w, h, 12, 26);
  const ImageU8 fractions = cuda_test::random_u8(w, h, 1, 27);
  for (std::size_t i = 0; i < fractional.data.size(); ++i)
    fractional.data[i] += float(fractions.data[i]) / 255.0f - 0.5f;
  const auto dfractional = cu::upload(fractional);
  cu::DeviceImage<float> dfilled_fraction(w, h, "test", "filled");
  cu::poison(dfilled_fraction);
  cr::bilateral_fill(dfractional, mask, dgrey, 3, dfilled_fraction, nullptr);
  EXPECT_EQ(first_difference(cr::download_f32(dfilled_fraction).data, rc::bilateral_fill(fractional, g, grey, 3).data),
            -1)
      << "fractional map";

  const ImageF spread = random_levels(w, h, 12, 23);  // disparities 0..11: both |dl - dr| <= 3 and > 3
  const ImageF filled = rc::bilateral_fill(spread, g, grey, 3);
  const auto dspread = cu::upload(spread);
  cu::DeviceImage<float> dfilled(w, h, "test", "filled");
  cu::poison(dfilled);
  cr::bilateral_fill(dspread, mask, dgrey, 3, dfilled, nullptr);
  EXPECT_EQ(first_difference(cr::download_f32(dfilled).data, filled.data), -1);

  for (const auto& [fw, fh] : {std::pair{2 * w - 1, 2 * h - 1}, std::pair{2 * w, 2 * h}}) {
    const ImageU8 grey_full = smooth_grey(fw, fh, 25);
    const ImageF up = rc::scale_up(filled, grey_full, 3, DisparityRange{1, 20});  // clamps some
    const auto dgf = cr::upload_u8(grey_full);
    cu::DeviceImage<float> dup(fw, fh, "test", "full");
    cu::poison(dup);
    cr::scale_up(dfilled, dgf, 3, DisparityRange{1, 20}, dup, nullptr);
    EXPECT_EQ(first_difference(cr::download_f32(dup).data, up.data), -1) << fw << "x" << fh;
  }
}

TEST(CudaCrossRtStages, ChainedIntermediatesMatchTheReference) {
  STEREO_REQUIRE_CUDA();
  // The whole pipeline stage by stage on the device, each intermediate against the reference's,
  // so a first run on a GPU names the first stage that differs.
  const CrossRtParams p;
  const int w = 157, h = 73;  // odd: the half-size image has a sample on the last column and row
  const ImageU8 rgb_left = cuda_test::random_u8(w, h, 3, 31);
  ImageU8 rgb_right(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) rgb_right.at(x, y, c) = rgb_left.at(std::min(x + 6, w - 1), y, c);
  const DisparityRange range{0, 24};
  const DisparityRange levels = rc::scaled_range(range, 2);
  const auto upload_raw = [](const ImageU8& image) {
    auto raw = cu::make_device_buffer<std::uint8_t>(image.data.size(), "test", "raw");
    CUDA_CHECK(cudaMemcpy(raw.get(), image.data.data(), image.data.size(), cudaMemcpyHostToDevice));
    return raw;
  };
  const auto raw_l = upload_raw(rgb_left), raw_r = upload_raw(rgb_right);
  const int sw = (w + 1) / 2, sh = (h + 1) / 2;
  cu::DeviceImage<std::uint8_t> gl(w, h, "test", "grey"), gr(w, h, "test", "grey");
  cu::DeviceImage<std::uint8_t> sl(sw, sh, "test", "scaled"), sr(sw, sh, "test", "scaled");
  cr::scale_down(raw_l.get(), 3, 2, gl, sl, nullptr);
  cr::scale_down(raw_r.get(), 3, 2, gr, sr, nullptr);
  const ImageU8 grey_l = reference::grey_image(rgb_left);
  const ImageU8 L = rc::scale_down(grey_l, 2);
  const ImageU8 R = rc::scale_down(reference::grey_image(rgb_right), 2);
  ASSERT_EQ(first_difference(cr::download_u8(sl).data, L.data), -1) << "SD, left";
  ASSERT_EQ(first_difference(cr::download_u8(sr).data, R.data), -1) << "SD, right";

  cu::DeviceImage<uchar2> axl(sw, sh, "t", "a"), axr(sw, sh, "t", "a"), ayl(sw, sh, "t", "a"), ayr(sw, sh, "t", "a");
  cr::arms_x(sl, p.wx, p.tc, axl, nullptr);
  cr::arms_x(sr, p.wx, p.tc, axr, nullptr);
  cr::arms_y(sl, p.wy, p.tc, ayl, nullptr);
  cr::arms_y(sr, p.wy, p.tc, ayr, nullptr);
  const auto rxl = rc::arms_x(L, p.wx, p.tc), rxr = rc::arms_x(R, p.wx, p.tc);
  const auto ryl = rc::arms_y(L, p.wy, p.tc), ryr = rc::arms_y(R, p.wy, p.tc);
  ASSERT_EQ(first_difference(cr::download_arms(axr).data, rxr.data), -1) << "arms x, right";
  ASSERT_EQ(first_difference(cr::download_arms(ayl).data, ryl.data), -1) << "arms y, left";

  cr::DeviceVolume16 cxl(sw, sh, levels, "t", "v"), cxr(sw, sh, levels, "t", "v");
  const cr::DeviceTables tables = cr::make_tables(p);
  cr::cost_aggregate_x({sl, sr, axl, axr, tables}, levels, cxl, cxr, 0, nullptr);
  const auto c = rc::cost(L, R, levels, p);
  const auto rcxl = rc::aggregate_x(c, rxl, false), rcxr = rc::aggregate_x(c, rxr, true);
  ASSERT_EQ(first_difference(download_volume(cxl).data, rcxl.data), -1) << "C+CA_x, left";
  ASSERT_EQ(first_difference(download_volume(cxr).data, rcxr.data), -1) << "C+CA_x, right";

  cu::DeviceImage<float> dl(sw, sh, "t", "d"), dr(sw, sh, "t", "d"), dsub(sw, sh, "t", "s");
  cr::aggregate_y_wta(cxl, ayl, dl, 0, nullptr, &dsub);
  cr::aggregate_y_wta(cxr, ayr, dr, 0, nullptr);
  const auto rcal = rc::aggregate_y(rcxl, ryl);
  const ImageF rdl = rc::wta(rcal), rdr = rc::wta(rc::aggregate_y(rcxr, ryr));
  const ImageF rsub = rc::wta_subpixel(rcal);
  ASSERT_EQ(first_difference(cr::download_f32(dl).data, rdl.data), -1) << "CA + WTA, left";
  ASSERT_EQ(first_difference(cr::download_f32(dsub).data, rsub.data), -1) << "CA + WTA, left, sub-pixel";
  ASSERT_EQ(first_difference(cr::download_f32(dr).data, rdr.data), -1) << "CA + WTA, right";

  cu::DeviceImage<std::uint8_t> mask(sw, sh, "t", "m");
  cr::gcp(dl, dr, mask, nullptr);
  const auto rg = rc::gcp(rdl, rdr);
  ASSERT_EQ(first_difference(cr::download_u8(mask).data, rg.data), -1) << "CC";

  cu::DeviceImage<float> med(sw, sh, "t", "m"), filled(sw, sh, "t", "f"), full(w, h, "t", "u");
  // The default (CrossRtParams::subpixel = 1) path: the refined map into the post stages.
  ASSERT_EQ(p.subpixel, 1);
  cu::median_3x3(dsub, med, nullptr);
  ASSERT_EQ(first_difference(cr::download_f32(med).data, reference::median_3x3(rsub).data), -1) << "median";
  cr::bilateral_fill(med, mask, sl, p.t, filled, nullptr);
  const ImageF rfilled = rc::bilateral_fill(reference::median_3x3(rsub), rg, L, p.t);
  ASSERT_EQ(first_difference(cr::download_f32(filled).data, rfilled.data), -1) << "Post";

  cr::scale_up(filled, gl, p.t, range, full, nullptr);
  ASSERT_EQ(first_difference(cr::download_f32(full).data, rc::scale_up(rfilled, grey_l, p.t, range).data), -1)
      << "SU";
}

TEST(CudaCrossRtStages, MismatchedSizesAreClearErrors) {
  STEREO_REQUIRE_CUDA();
  cu::DeviceImage<float> a(8, 8, "test", "a"), b(9, 8, "test", "b");
  cu::DeviceImage<std::uint8_t> m(8, 8, "test", "m");
  try {
    cr::gcp(a, b, m, nullptr);
    FAIL() << "gcp accepted maps of two sizes";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("crossrt/cuda: gcp"), std::string::npos) << e.what();
  }
  cu::DeviceImage<float> full(20, 20, "test", "full");
  cu::DeviceImage<std::uint8_t> grey(20, 20, "test", "grey");
  EXPECT_THROW(cr::scale_up(a, grey, 3, DisparityRange{0, 8}, full, nullptr), Error);  // 8x8 is not ceil(20/2)
}

}  // namespace
}  // namespace stereo
