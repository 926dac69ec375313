// The GL frame on image views (gl/matcher_shell.h, gl/pixel_transfer.h): views with a row pitch
// give the ImageU8 map on both GL backends, grey and RGB, through either upload (host-expanded
// RGBA or the driver's RGB), at an odd size and at one large enough for the banded copies; a
// view in device memory is refused. Runs on the GPU's driver or on Mesa's llvmpipe.

#include <gtest/gtest.h>

#include <string>

#include "methods/builtin.h"
#include "test_gl_util.h"
#include "test_util.h"
#include "view_util.h"

namespace stereo {
namespace {

class GlViews : public ::testing::TestWithParam<const char*> {};

TEST_P(GlViews, ViewsGiveTheImageMap) {
  STEREO_REQUIRE_GL45();
  const std::string backend = GetParam();
  for (const char* upload : {"rgb", "rgba"}) {
    SCOPED_TRACE(backend + std::string(" gl_upload=") + upload);
    auto matcher = create_matcher("salap", backend, {{"gl_upload", upload}});
    const ImageU8 rgb = test::random_texture(45, 27, 11), grey = test::random_texture(45, 27, 12, 1);
    test::expect_views_match_images(*matcher, rgb, test::shifted(rgb, 4), DisparityRange{0, 8});
    test::expect_views_match_images(*matcher, grey, test::shifted(grey, 3), DisparityRange{-1, 6});
  }
}

// 2^18 pixels and more: the upload copies a pitched view in bands of rows on its threads.
TEST_P(GlViews, LargeViewsGoThroughTheBandedCopy) {
  STEREO_REQUIRE_GL45();
  auto matcher = create_matcher("salap", GetParam(), {{"gl_upload", "rgba"}});
  const ImageU8 left = test::random_texture(641, 411, 13);
  test::expect_views_match_images(*matcher, left, test::shifted(left, 2), DisparityRange{0, 4});
}

TEST_P(GlViews, DeviceMemoryIsRefused) {
  STEREO_REQUIRE_GL45();
  const std::string backend = GetParam();
  auto matcher = create_matcher("salap", backend, {});
  const ImageU8 image = test::random_texture(24, 8, 3);
  const ImageView on_device = ImageView::cuda(image.data.data(), 24, 8, 3, 0, 0);
  try {
    (void)matcher->compute(on_device, on_device, DisparityRange{0, 4});
    FAIL() << "a device view was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "salap/" + backend +
                                         ": the image pair is in CUDA device memory; this backend reads and "
                                         "writes host memory only");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, GlViews, ::testing::Values("gl", "glcompute"));

}  // namespace
}  // namespace stereo
