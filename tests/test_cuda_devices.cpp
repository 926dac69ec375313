// Several GPUs in one process (app/parallel/device_pool.h) on real CUDA matchers:
//  - a sequence spread over two GPUs gives maps bit-identical to one GPU, in input order, with
//    frames on both GPUs, for every registered CUDA method;
//  - the matchers made for --devices run on the GPU each was made for (device_info ordinal).
// Skips without two CUDA devices; the pool's logic is tested without a GPU in
// test_device_pool.cpp, and the throughput check is `stereo stream --devices 0,1` (docs/streaming.md).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/parallel/device_pool.h"
#include "core/registry.h"
#include "methods/builtin.h"
#include "tests/test_cuda_util.h"

namespace stereo {
namespace {

constexpr int FRAMES = 12;

FramePair frame(std::size_t i) {
  FramePair p;
  p.left = cuda_test::random_u8(193, 97, 3, 1000u + static_cast<unsigned>(i));
  p.right = cuda_test::random_u8(193, 97, 3, 2000u + static_cast<unsigned>(i));
  return p;
}

class CudaDevices : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaDevices, OnTwoGpusMatchesOne) {
  const std::string method = GetParam();
  STEREO_REQUIRE_CUDA();
  if (parallel::cuda_device_count() < 2) GTEST_SKIP() << "one CUDA device here; this test needs two";
  const DisparityRange range{0, 32};
  const auto create = [&] { return create_matcher(method, "cuda", {}); };
  auto one = parallel::create_on_devices({0}, create);
  auto two = parallel::create_on_devices({0, 1}, create);
  EXPECT_EQ(two[1]->device_info().value("ordinal", -1), 1) << "the second matcher runs on GPU 1";
  std::vector<ImageF> reference;
  parallel::spread_sequence({one[0].get()}, range, FRAMES, frame, 0,
                            [&](FrameResult&& r, const parallel::FrameRecord&) {
                              reference.push_back(r.disparity.to_float());
                            });
  ASSERT_EQ(reference.size(), static_cast<std::size_t>(FRAMES));
  std::vector<std::size_t> per_gpu(2, 0);
  std::size_t next = 0;
  parallel::spread_sequence({two[0].get(), two[1].get()}, range, FRAMES, frame, 0,
                            [&](FrameResult&& r, const parallel::FrameRecord& rec) {
                              ASSERT_EQ(r.index, next++);
                              ++per_gpu[rec.worker];
                              const ImageF map = r.disparity.to_float();
                              EXPECT_EQ(map.data, reference[r.index].data) << method << " frame " << r.index;
                            });
  EXPECT_EQ(next, static_cast<std::size_t>(FRAMES));
  EXPECT_GT(per_gpu[0], 0u);
  EXPECT_GT(per_gpu[1], 0u);
}

INSTANTIATE_TEST_SUITE_P(Methods, CudaDevices, ::testing::ValuesIn(cuda_test::cuda_methods()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace stereo
