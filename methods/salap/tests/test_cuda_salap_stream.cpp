// SA-LAP on CUDA over sequences (core/matcher.h match_sequence, the three-slot pipeline of
// methods/salap/cuda/salap_cuda.cpp) and the compact read-back:
//  - the stream's maps equal compute()'s frame by frame, in frame order, for the fused and
//    the stage path, with 8-bit (<= 256 levels) and 16-bit (> 256 levels) indices;
//  - an error from the source mid-sequence delivers the frames in flight before it;
//  - device memory after 1,000 frames is where it was after the first ones.
// These skip without a CUDA device; the lead runs them on the H100.

#include <gtest/gtest.h>

#include <chrono>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cuda/common.h"
#include "core/error.h"
#include "core/matcher.h"
#include "tests/test_cuda_util.h"
#include "tests/sequence_util.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

using test::Pairs;
using test::stream;

/// SA-LAP's pairs: seeds 500 + i.
Pairs make_pairs(int count, int width, int height) { return test::make_pairs(count, width, height, 500); }

void expect_stream_equals_compute(const Overrides& overrides, DisparityRange range, int width, int height,
                                  DisparityMap::Form form) {
  auto m = create_matcher("salap", "cuda", overrides);
  const Pairs pairs = make_pairs(5, width, height);
  std::vector<ImageF> want;
  for (std::size_t i = 0; i < pairs.left.size(); ++i)
    want.push_back(m->compute(pairs.left[i], pairs.right[i], range).disparity);
  std::vector<std::size_t> order;
  double algorithm_sum = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  stream(*m, pairs, range, 7, [&](FrameResult&& r) {
    order.push_back(r.index);
    EXPECT_EQ(r.disparity.form, form) << "frame " << r.index;
    // Per frame: the time it added to each step's timeline (frames overlap), never negative.
    EXPECT_EQ(r.timing.clock.rfind("cuda events, each frame's time beyond the previous", 0), 0u) << r.timing.clock;
    EXPECT_GE(r.timing.upload_ms, 0.0);
    EXPECT_GE(r.timing.readback_ms, 0.0);
    EXPECT_GE(r.timing.algorithm_ms, 0.0);
    algorithm_sum += r.timing.algorithm_ms;
    const ImageF got = r.disparity.to_float();
    EXPECT_EQ(cuda_test::count_differences(got, want[r.index % want.size()]), 0)
        << "frame " << r.index << " (path " << m->params()["path_in_force"] << ", " << range.count
        << " levels): the streamed map differs from compute()'s";
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6}));
  // The added times do not overlap, so together they fit in the stream's wall time (the
  // frames' own overlapping event spans need not).
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LE(algorithm_sum, wall_ms);
}

TEST(CudaSalapStream, FusedEqualsComputeWith8BitIndices) {
  STEREO_REQUIRE_CUDA();
  expect_stream_equals_compute({}, DisparityRange{0, 48}, 203, 71, DisparityMap::Form::index_u8);
}

TEST(CudaSalapStream, NegativeMinimumAnd256Levels) {
  STEREO_REQUIRE_CUDA();
  expect_stream_equals_compute({}, DisparityRange{-20, 256}, 401, 33, DisparityMap::Form::index_u8);
}

TEST(CudaSalapStream, SixteenBitIndicesAbove256Levels) {
  STEREO_REQUIRE_CUDA();
  expect_stream_equals_compute({}, DisparityRange{0, 300}, 420, 24, DisparityMap::Form::index_u16);
}

// Frames of at least 8 bands go through compute() in row slabs (band launches on two lanes,
// merged and read back per slab), the stream's frames whole: the maps must be the same bits.
// Odd heights leave a partial last band; 300 levels read back 16-bit indices; half2 too.
TEST(CudaSalapStream, SlabbedComputeEqualsWholeFrames) {
  STEREO_REQUIRE_CUDA();
  expect_stream_equals_compute({}, DisparityRange{0, 48}, 333, 301, DisparityMap::Form::index_u8);
  expect_stream_equals_compute({}, DisparityRange{-7, 300}, 420, 270, DisparityMap::Form::index_u16);
  expect_stream_equals_compute({{"arithmetic", "half"}}, DisparityRange{0, 64}, 257, 259, DisparityMap::Form::index_u8);
  auto m = create_matcher("salap", "cuda", {});
  const Pairs pairs = make_pairs(1, 333, 301);
  const Timing t = m->compute(pairs.left[0], pairs.right[0], DisparityRange{0, 48}).timing;
  EXPECT_NE(t.clock.find("row slabs"), std::string::npos) << t.clock;
  EXPECT_GT(t.upload_ms, 0.0);
  EXPECT_GT(t.algorithm_ms, 0.0);
  EXPECT_GT(t.readback_ms, 0.0);
}

TEST(CudaSalapStream, StagePathEqualsCompute) {
  STEREO_REQUIRE_CUDA();
  expect_stream_equals_compute({{"path", "stages"}, {"window", "9"}}, DisparityRange{0, 12}, 97, 41,
                               DisparityMap::Form::index_u8);
}

TEST(CudaSalapStream, CompactComputeHasIndices) {
  STEREO_REQUIRE_CUDA();
  auto m = create_matcher("salap", "cuda", {});
  const Pairs pairs = make_pairs(1, 150, 60);
  Timing t;
  const DisparityMap map = m->compute_compact(pairs.left[0], pairs.right[0], DisparityRange{2, 40}, &t);
  ASSERT_EQ(map.form, DisparityMap::Form::index_u8);
  ASSERT_EQ(map.index8.size(), 150u * 60u);
  for (std::uint8_t v : map.index8) ASSERT_LT(v, 40);
  const ImageF f = m->compute(pairs.left[0], pairs.right[0], DisparityRange{2, 40}).disparity;
  EXPECT_EQ(cuda_test::count_differences(map.to_float(), f), 0);
  EXPECT_GT(t.algorithm_ms, 0.0);
}

TEST(CudaSalapStream, SourceErrorDeliversTheFramesInFlight) {
  STEREO_REQUIRE_CUDA();
  auto m = create_matcher("salap", "cuda", {});
  const Pairs pairs = make_pairs(3, 128, 48);
  std::size_t given = 0;
  std::vector<std::size_t> delivered;
  EXPECT_THROW(m->match_sequence(
                   DisparityRange{0, 32},
                   [&](FramePair& pair) {
                     if (given == 3) throw Error("test: frame 3 is unreadable");
                     pair.left = pairs.left[given];
                     pair.right = pairs.right[given];
                     ++given;
                     return true;
                   },
                   [&](FrameResult&& r) { delivered.push_back(r.index); }),
               Error);
  EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 1, 2}));
  // And the matcher still works afterwards.
  EXPECT_NO_THROW((void)m->compute(pairs.left[0], pairs.right[0], 32));
}

std::size_t free_device_bytes() {
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

TEST(CudaSalapStream, DeviceMemorySteadyOver1000Frames) {
  STEREO_REQUIRE_CUDA();
  auto m = create_matcher("salap", "cuda", {});
  const Pairs pairs = make_pairs(2, 320, 180);
  std::size_t after_first = 0;
  stream(*m, pairs, DisparityRange{0, 64}, 1000, [&](FrameResult&& r) {
    if (r.index == 3) after_first = free_device_bytes();  // every slot has run once
  });
  const std::size_t after_all = free_device_bytes();
  std::printf("  free device memory after frame 3: %.1f MiB, after frame 999: %.1f MiB\n",
              double(after_first) / 1048576.0, double(after_all) / 1048576.0);
  // cudaMemGetInfo counts whole pages of the device's allocator: any allocation per frame
  // would show as 1000 x at least 2 MiB. The figure is device-wide, so ctest runs this test
  // alone (RUN_SERIAL, tests/CMakeLists.txt: every test named *DeviceMemory*); another
  // process using the GPU at the same time would still move it, hence both figures printed.
  EXPECT_EQ(after_all, after_first);
}

}  // namespace
}  // namespace stereo
