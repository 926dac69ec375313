// crossrt/cuda's pass inspector (cuda/crossrt_inspect.h): what the workspace holds after a run,
// bit for bit against the reference stages up to CA_x (every stage to the GCPs is bit-exact,
// methods/crossrt/cuda/stages.h), and the dump's file names without the stage names' spaces.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/matcher.h"
#include "methods/builtin.h"
#include "methods/crossrt/params.h"
#include "methods/crossrt/reference/crossrt.h"
#include "reference/grey.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

namespace rc = reference::crossrt;

TEST(CudaCrossRtInspect, KeptBuffersAreTheStages) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = test::random_texture(53, 37, 3u, 3), right = test::shifted(left, 4);
  const DisparityRange range{0, 16};
  auto m = create_matcher("crossrt", "cuda", Overrides{});
  m->keep_passes(true);
  (void)m->compute(left, right, range);
  PassInspector& in = *m->inspector();
  std::vector<std::string> names;
  for (const PassLayout& l : in.passes()) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"SD.left", "SD.right", "arms x.left", "arms x.right", "arms y.left",
                                             "arms y.right", "C+CA_x.left", "C+CA_x.right", "CA.left", "CA.right",
                                             "CC", "Post.median", "Post", "SU"}));
  const CrossRtParams p;
  const ImageU8 sl = rc::scale_down(reference::grey_image(left), p.scale);
  const ImageU8 sr = rc::scale_down(reference::grey_image(right), p.scale);
  EXPECT_EQ(in.read("SD.left", 0).data, std::vector<float>(sl.data.begin(), sl.data.end()));
  const Image<std::uint8_t> ax = rc::arms_x(sl, p.wx, p.tc);
  EXPECT_EQ(in.read("arms x.left", 0).data, std::vector<float>(ax.data.begin(), ax.data.end()));
  const DisparityRange levels = rc::scaled_range(range, p.scale);
  const rc::Volume<std::uint16_t> cax = rc::aggregate_x(rc::cost(sl, sr, levels, p), ax, false);
  for (int k = 0; k < levels.count; ++k) {
    const ImageF got = in.read("C+CA_x.left", k);
    ASSERT_EQ(got.width, sl.width);
    for (int y = 0; y < got.height; ++y)
      for (int x = 0; x < got.width; ++x) ASSERT_EQ(got.at(x, y), float(cax.at(x, y, k))) << x << "," << y << "," << k;
  }
  EXPECT_THROW((void)in.read("C+CA_x.left", levels.count), Error);
  EXPECT_THROW((void)in.read("CA_x", 0), Error);
}

}  // namespace
}  // namespace stereo
