// The GL frame on image views (gl/matcher_shell.h, gl/pixel_transfer.h): views with a row pitch
// give the ImageU8 map on every registered GL matcher, grey and RGB, through either upload (host-expanded
// RGBA or the driver's RGB), at an odd size and at one large enough for the banded copies; a
// view in device memory is refused. Runs on the GPU's driver or on Mesa's llvmpipe.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "methods/builtin.h"
#include "test_gl_util.h"
#include "test_util.h"
#include "view_util.h"

namespace stereo {
namespace {

using MethodBackend = std::pair<std::string, std::string>;

/// Every registered method/backend on a GL context: the frame's upload is theirs alike.
std::vector<MethodBackend> gl_matchers() {
  std::vector<MethodBackend> out;
  for (const BackendEntry& e : builtin_registry().entries())
    if (e.backend == "gl" || e.backend == "glcompute") out.emplace_back(e.method, e.backend);
  return out;
}

class GlViews : public ::testing::TestWithParam<MethodBackend> {};

TEST_P(GlViews, ViewsGiveTheImageMap) {
  STEREO_REQUIRE_GL45();
  const auto& [method, backend] = GetParam();
  for (const char* upload : {"rgb", "rgba"}) {
    SCOPED_TRACE(method + "/" + backend + " gl_upload=" + upload);
    auto matcher = create_matcher(method, backend, {{"gl_upload", upload}});
    const ImageU8 rgb = test::random_texture(45, 27, 11), grey = test::random_texture(45, 27, 12, 1);
    test::expect_views_match_images(*matcher, rgb, test::shifted(rgb, 4), DisparityRange{0, 8});
    test::expect_views_match_images(*matcher, grey, test::shifted(grey, 3), DisparityRange{-1, 6});
  }
}

// 2^18 pixels and more: the upload copies a pitched view in bands of rows on its threads.
TEST_P(GlViews, LargeViewsGoThroughTheBandedCopy) {
  STEREO_REQUIRE_GL45();
  auto matcher = create_matcher(GetParam().first, GetParam().second, {{"gl_upload", "rgba"}});
  const ImageU8 left = test::random_texture(641, 411, 13);
  test::expect_views_match_images(*matcher, left, test::shifted(left, 2), DisparityRange{0, 4});
}

TEST_P(GlViews, DeviceMemoryIsRefused) {
  STEREO_REQUIRE_GL45();
  const auto& [method, backend] = GetParam();
  auto matcher = create_matcher(method, backend, {});
  const ImageU8 image = test::random_texture(24, 8, 3);
  const ImageView on_device = ImageView::cuda(image.data.data(), 24, 8, 3, 0, 0);
  try {
    (void)matcher->compute(on_device, on_device, DisparityRange{0, 4});
    FAIL() << "a device view was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), method + "/" + backend +
                                         ": the image pair is in CUDA device memory; this backend reads and "
                                         "writes host memory only");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, GlViews, ::testing::ValuesIn(gl_matchers()),
                         [](const ::testing::TestParamInfo<MethodBackend>& p) {
                           return p.param.first + "_" + p.param.second;
                         });

}  // namespace
}  // namespace stereo
