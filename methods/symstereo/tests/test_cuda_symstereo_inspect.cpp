// symstereo/cuda's pass inspector (cuda/symstereo_inspect.h): its energy levels are the cost
// volume `run --dsi` hands out, its wta the map, its grey rows the reference's grey image.

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/matcher.h"
#include "methods/builtin.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

TEST(CudaSymStereoInspect, KeptBuffersAreTheRun) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = test::random_texture(61, 33, 9u, 3), right = test::shifted(left, 3);
  const DisparityRange range{-2, 10};
  auto m = create_matcher("symstereo", "cuda", Overrides{});
  m->keep_passes(true);
  m->request_cost_volume(true);
  const StereoResult r = m->compute(left, right, range);
  ASSERT_TRUE(r.dsi.has_value());
  PassInspector& in = *m->inspector();
  std::vector<std::string> names;
  for (const PassLayout& l : in.passes()) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"flip + grey.left", "flip + grey.right", "energy", "wta"}));
  const std::size_t plane = std::size_t(left.width) * std::size_t(left.height);
  for (int k = 0; k < range.count; ++k) {
    const ImageF level = in.read("energy", k);
    const std::vector<float> want(r.dsi->data.begin() + std::ptrdiff_t(plane * std::size_t(k)),
                                  r.dsi->data.begin() + std::ptrdiff_t(plane * std::size_t(k + 1)));
    ASSERT_EQ(level.data, want) << k;
  }
  EXPECT_EQ(in.read("wta", 0).data, r.disparity.data);
  const ImageF grey = in.read("flip + grey.left", 0);
  EXPECT_EQ(grey.width, left.width);
  EXPECT_EQ(grey.height, left.height);
  EXPECT_THROW((void)in.read("energy", range.count), Error);
}

}  // namespace
}  // namespace stereo
