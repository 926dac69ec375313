// Each CUDA stage of the real-time cross-based method (cuda/crossrt/stages.h) against the
// reference stage of the same name (reference/crossrt.h). Every stage is integer or uses the
// reference's float operations in its order, so every comparison is bit-exact. Sizes are odd
// and the disparity ranges cross the kernels' 32-level groups. Skips without a CUDA device.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>
#include <string>

#include "cuda/crossrt/stages.h"
#include "host/methods/crossrt.h"
#include "reference/adcensus.h"
#include "reference/crossrt.h"
#include "test_cuda_util.h"

namespace stereo {
namespace {

namespace ref = reference::crossrt;
namespace cr = cu::crossrt;

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
      EXPECT_EQ(first_difference(cr::download_u8(scaled).data, ref::scale_down(expected_grey, scale).data), -1)
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
  EXPECT_EQ(first_difference(cr::download_arms(ax).data, ref::arms_x(g, 21, 13).data), -1);
  EXPECT_EQ(first_difference(cr::download_arms(ay).data, ref::arms_y(g, 31, 13).data), -1);
}

TEST(CudaCrossRtStages, CostAggregateXMatchesTheReferenceForBothViews) {
  STEREO_REQUIRE_CUDA();
  const CrossRtParams p;
  const ImageU8 l = smooth_grey(131, 19, 5);
  const ImageU8 r = smooth_grey(131, 19, 6);
  for (const DisparityRange range : {DisparityRange{0, 73}, DisparityRange{-3, 40}, DisparityRange{2, 5}}) {
    const auto axl = ref::arms_x(l, p.wx, p.tc);
    const auto axr = ref::arms_x(r, p.wx, p.tc);
    const auto c = ref::cost(l, r, range, p);
    const auto expected_l = ref::aggregate_x(c, axl, false);
    const auto expected_r = ref::aggregate_x(c, axr, true);
    const auto dl = cr::upload_u8(l), dr = cr::upload_u8(r);
    const auto dal = cr::upload_arms(axl), dar = cr::upload_arms(axr);
    cr::DeviceVolume16 cl(131, 19, range, "test", "cax"), crv(131, 19, range, "test", "cax");
    CUDA_CHECK(cudaMemset(cl.get(), 0xFF, cl.count() * 2));
    CUDA_CHECK(cudaMemset(crv.get(), 0xFF, crv.count() * 2));
    cr::cost_aggregate_x(dl, dr, dal, dar, cr::make_tables(p), range, cl, crv, 0, nullptr);
    EXPECT_EQ(first_difference(cr::download_volume(cl).data, expected_l.data), -1)
        << "left CA_x, range min " << range.min << " count " << range.count << " (index (y*W+x)*D+k)";
    EXPECT_EQ(first_difference(cr::download_volume(crv).data, expected_r.data), -1)
        << "right CA_x, range min " << range.min << " count " << range.count;
  }
}

TEST(CudaCrossRtStages, AggregateYWtaMatchesTheReference) {
  STEREO_REQUIRE_CUDA();
  const CrossRtParams p;
  const ImageU8 l = smooth_grey(47, 83, 7);
  const ImageU8 r = smooth_grey(47, 83, 8);
  const DisparityRange range{-1, 45};
  const auto c = ref::cost(l, r, range, p);
  for (bool right_view : {false, true}) {
    const ImageU8& view = right_view ? r : l;
    const auto cax = ref::aggregate_x(c, ref::arms_x(view, p.wx, p.tc), right_view);
    const auto ay = ref::arms_y(view, p.wy, p.tc);
    const ImageF expected = ref::wta(ref::aggregate_y(cax, ay));
    const auto dv = cr::upload_volume(cax);
    const auto da = cr::upload_arms(ay);
    cu::DeviceImage<float> out(47, 83, "test", "map");
    cu::poison(out);
    cr::aggregate_y_wta(dv, da, out, 0, nullptr);
    EXPECT_EQ(first_difference(cr::download_f32(out).data, expected.data), -1) << (right_view ? "right" : "left");
  }
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
  const auto g = ref::gcp(dl, dr);
  const auto ddl = cu::upload(dl), ddr = cu::upload(dr);
  cu::DeviceImage<std::uint8_t> mask(w, h, "test", "mask");
  cu::poison(mask);
  cr::gcp(ddl, ddr, mask, nullptr);
  EXPECT_EQ(first_difference(cr::download_u8(mask).data, g.data), -1);

  const ImageF spread = random_levels(w, h, 12, 23);  // disparities 0..11: both |dl - dr| <= 3 and > 3
  const ImageU8 grey = smooth_grey(w, h, 24);
  const ImageF filled = ref::bilateral_fill(spread, g, grey, 3);
  const auto dspread = cu::upload(spread);
  const auto dgrey = cr::upload_u8(grey);
  cu::DeviceImage<float> dfilled(w, h, "test", "filled");
  cu::poison(dfilled);
  cr::bilateral_fill(dspread, mask, dgrey, 3, dfilled, nullptr);
  EXPECT_EQ(first_difference(cr::download_f32(dfilled).data, filled.data), -1);

  for (const auto& [fw, fh] : {std::pair{2 * w - 1, 2 * h - 1}, std::pair{2 * w, 2 * h}}) {
    const ImageU8 grey_full = smooth_grey(fw, fh, 25);
    const ImageF up = ref::scale_up(filled, grey_full, 3, DisparityRange{1, 20});  // clamps some
    const auto dgf = cr::upload_u8(grey_full);
    cu::DeviceImage<float> dup(fw, fh, "test", "full");
    cu::poison(dup);
    cr::scale_up(dfilled, dgf, 3, DisparityRange{1, 20}, dup, nullptr);
    EXPECT_EQ(first_difference(cr::download_f32(dup).data, up.data), -1) << fw << "x" << fh;
  }
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
