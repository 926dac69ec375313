// Every CUDA method over sequences (core/matcher.h match_sequence): the frame's overlapped path
// (cuda/frame_stream.h: slots with their own streams around the method's stages) and the
// streams of matchers that keep their own.
//  - six frames of different content come back in order, each map bit-identical to compute()
//    on the same pair; methods whose map is whole levels come back as 8- or 16-bit indices;
//  - each frame's timing is its own (the steps and the stage laps non-negative, the laps
//    within the algorithm time, also where the stages replay one CUDA graph for every frame);
//    every stage timed has its bytes for the bench's floor;
//  - an error from the source mid-sequence delivers the frames before it, then propagates,
//    and the matcher still matches after it; a size change names the frame;
//  - a second sequence of another size reallocates and matches again;
//  - device memory after 300 frames is where it was after the first ones;
//  - the compact read-back's kernel gives indices only where they widen back exactly.
// The cases are the methods' own (methods/<folder>/tests/cases.cpp, tests/method_cases.h); a
// registered CUDA method that declares none fails EveryCudaMethodHasACase. These skip without a CUDA device; the lead runs them on the GPU.
// The loop they share (cu::keep_in_flight: order, depth, errors) is tested on the host.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/matcher.h"
#include "cuda/common.h"
#include "cuda/frame_stream.h"
#include "cuda/level_index.h"
#include "methods/builtin.h"
#include "tests/method_cases.h"
#include "tests/test_cuda_util.h"
#include "tests/sequence_util.h"

namespace stereo {
namespace {

using test::SequenceCase;

const std::vector<SequenceCase>& cases() { return test::method_cases().sequences; }

using test::make_pairs;
using test::Pairs;
using test::stream;

class CudaSequence : public ::testing::TestWithParam<SequenceCase> {};

TEST_P(CudaSequence, EveryMapEqualsComputeInOrder) {
  STEREO_REQUIRE_CUDA();
  const SequenceCase& c = GetParam();
  auto m = create_matcher(c.method, "cuda", c.overrides);
  const Pairs pairs = make_pairs(6, c.width, c.height, 700, c.channels);
  std::vector<ImageF> want;
  for (std::size_t i = 0; i < pairs.left.size(); ++i)
    want.push_back(m->compute(pairs.left[i], pairs.right[i], c.range).disparity);
  std::vector<std::size_t> order;
  stream(*m, pairs, c.range, pairs.left.size(), [&](FrameResult&& r) {
    order.push_back(r.index);
    EXPECT_EQ(r.disparity.form, c.form) << "frame " << r.index;
    EXPECT_EQ(r.disparity.range.min, c.range.min);
    EXPECT_EQ(r.disparity.range.count, c.range.count);
    ASSERT_LT(r.index, want.size());
    EXPECT_EQ(cuda_test::count_differences(r.disparity.to_float(), want[r.index]), 0)
        << c.name << " frame " << r.index << ": the streamed map differs from compute()'s";
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
}

// Each frame's steps and laps are its own: with three frames in flight, a lap read from an
// event the next frame had recorded again (a replayed graph's lap nodes) would fall outside
// this frame's algorithm time, or not be complete yet and throw.
TEST_P(CudaSequence, EachFrameTimesItsOwnSteps) {
  STEREO_REQUIRE_CUDA();
  const SequenceCase& c = GetParam();
  if (!c.own_timing.empty()) GTEST_SKIP() << c.own_timing;
  auto m = create_matcher(c.method, "cuda", c.overrides);
  const Pairs pairs = make_pairs(3, c.width, c.height, 700, c.channels);
  const Timing single = m->compute(pairs.left[0], pairs.right[0], c.range).timing;
  std::size_t frames = 0;
  double algorithm_sum = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  stream(*m, pairs, c.range, 8, [&](FrameResult&& r) {
    ++frames;
    EXPECT_EQ(r.timing.clock.rfind("cuda events; 3 frames in flight", 0), 0u) << r.timing.clock;
    EXPECT_GE(r.timing.upload_ms, 0.0);
    EXPECT_GT(r.timing.algorithm_ms, 0.0);
    EXPECT_GE(r.timing.readback_ms, 0.0);
    algorithm_sum += r.timing.algorithm_ms;
    // The same stages, named as compute() names them.
    ASSERT_EQ(r.timing.stages.size(), single.stages.size()) << "frame " << r.index;
    double laps = 0.0;
    for (std::size_t k = 0; k < r.timing.stages.size(); ++k) {
      EXPECT_EQ(r.timing.stages[k].first, single.stages[k].first);
      EXPECT_GE(r.timing.stages[k].second, 0.0) << r.timing.stages[k].first;
      laps += r.timing.stages[k].second;
    }
    // Event times have 0.5 us resolution: a little slack per lap.
    EXPECT_LE(laps, r.timing.algorithm_ms + 0.002 * double(r.timing.stages.size()) + 1e-3)
        << c.name << " frame " << r.index;
  });
  EXPECT_EQ(frames, 8u);
  // Frames' stages run one after another on the matcher's stream: together they fit in the wall time.
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LE(algorithm_sum, wall_ms);
}

// `stereo bench` sets each timed stage against the bytes its design must move
// (Matcher::memory_stats, issue 38): every stage a frame times is accounted, none left out.
TEST_P(CudaSequence, EveryTimedStageHasItsBytes) {
  STEREO_REQUIRE_CUDA();
  const SequenceCase& c = GetParam();
  auto m = create_matcher(c.method, "cuda", c.overrides);
  const Pairs pairs = make_pairs(1, c.width, c.height, 700, c.channels);
  const Timing timing = m->compute(pairs.left[0], pairs.right[0], c.range).timing;
  const std::optional<MemoryStats> stats = m->memory_stats(c.width, c.height, c.range);
  ASSERT_TRUE(stats.has_value()) << c.name;
  EXPECT_GT(stats->copy_gb_s, 0.0) << c.name;
  ASSERT_FALSE(timing.stages.empty()) << c.name;
  for (const auto& [name, ms] : timing.stages) {
    const auto& bytes = stats->stage_bytes;
    const auto it = std::find_if(bytes.begin(), bytes.end(), [&](const auto& e) { return e.first == name; });
    ASSERT_NE(it, bytes.end()) << c.name << ": the timed stage '" << name << "' has no bytes";
    EXPECT_GE(it->second, 0.0) << c.name << " " << name;
  }
}

TEST_P(CudaSequence, SourceErrorDeliversTheFramesBeforeIt) {
  STEREO_REQUIRE_CUDA();
  const SequenceCase& c = GetParam();
  auto m = create_matcher(c.method, "cuda", c.overrides);
  const Pairs pairs = make_pairs(4, c.width, c.height, 900, c.channels);
  std::size_t given = 0;
  std::vector<std::size_t> delivered;
  std::vector<ImageF> maps;
  try {
    m->match_sequence(
        c.range,
        [&](FramePair& pair) {
          if (given == 4) throw Error("test: frame 4 is unreadable");
          pair.left = pairs.left[given];
          pair.right = pairs.right[given];
          ++given;
          return true;
        },
        [&](FrameResult&& r) {
          delivered.push_back(r.index);
          maps.push_back(r.disparity.to_float());
        });
    ADD_FAILURE() << c.name << ": the source's error did not propagate";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "test: frame 4 is unreadable");
  }
  EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 1, 2, 3}));
  // Their maps are complete, and the matcher still works afterwards.
  for (std::size_t i = 0; i < maps.size(); ++i)
    EXPECT_EQ(cuda_test::count_differences(maps[i], m->compute(pairs.left[i], pairs.right[i], c.range).disparity), 0)
        << c.name << " frame " << i;
}

TEST_P(CudaSequence, SizeChangeNamesTheFrame) {
  STEREO_REQUIRE_CUDA();
  const SequenceCase& c = GetParam();
  auto m = create_matcher(c.method, "cuda", c.overrides);
  const Pairs pairs = make_pairs(2, c.width, c.height, 700, c.channels);
  const Pairs other = make_pairs(1, c.width + 8, c.height, 800, c.channels);
  std::size_t given = 0;
  std::vector<std::size_t> delivered;
  try {
    m->match_sequence(
        c.range,
        [&](FramePair& pair) {
          const Pairs& from = given == 2 ? other : pairs;
          pair.left = from.left[given % from.left.size()];
          pair.right = from.right[given % from.right.size()];
          ++given;
          return true;
        },
        [&](FrameResult&& r) { delivered.push_back(r.index); });
    ADD_FAILURE() << c.name << ": a size change went through";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(c.method + "/cuda: frame 2: size " + std::to_string(c.width + 8) + "x"), std::string::npos)
        << what;
    EXPECT_NE(what.find("differs from the sequence's " + std::to_string(c.width) + "x" + std::to_string(c.height)),
              std::string::npos)
        << what;
  }
  EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 1}));
}

// The slots are kept for the next sequence of the same size and made anew for another.
TEST_P(CudaSequence, ASecondSequenceOfAnotherSize) {
  STEREO_REQUIRE_CUDA();
  const SequenceCase& c = GetParam();
  auto m = create_matcher(c.method, "cuda", c.overrides);
  for (const auto& [w, h] : {std::pair{c.width, c.height}, std::pair{c.width + 13, c.height + 5}}) {
    const Pairs pairs = make_pairs(4, w, h, 1200, c.channels);
    // compute() before the sequence, not from its sink: the matcher is busy until
    // match_sequence returns (core/matcher.h).
    std::vector<ImageF> want;
    for (std::size_t i = 0; i < pairs.left.size(); ++i)
      want.push_back(m->compute(pairs.left[i], pairs.right[i], c.range).disparity);
    std::size_t frames = 0;
    stream(*m, pairs, c.range, 4, [&](FrameResult&& r) {
      ++frames;
      EXPECT_EQ(r.disparity.width, w);
      ASSERT_LT(r.index, want.size());
      EXPECT_EQ(cuda_test::count_differences(r.disparity.to_float(), want[r.index]), 0)
          << c.name << " " << w << "x" << h << " frame " << r.index;
    });
    EXPECT_EQ(frames, 4u);
  }
}

std::size_t free_device_bytes() {
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

// cudaMemGetInfo counts whole pages: any allocation per frame would show. Device-wide, so
// ctest runs *DeviceMemory* tests alone (tests/CMakeLists.txt).
TEST_P(CudaSequence, DeviceMemorySteadyOver300Frames) {
  STEREO_REQUIRE_CUDA();
  const SequenceCase& c = GetParam();
  auto m = create_matcher(c.method, "cuda", c.overrides);
  const Pairs pairs = make_pairs(2, c.width, c.height, 700, c.channels);
  std::size_t after_first = 0;
  stream(*m, pairs, c.range, 300, [&](FrameResult&& r) {
    if (r.index == 3) after_first = free_device_bytes();  // every slot has run once
  });
  const std::size_t after_all = free_device_bytes();
  std::printf("  %s: free device memory after frame 3: %.1f MiB, after frame 299: %.1f MiB\n", c.name.c_str(),
              double(after_first) / 1048576.0, double(after_all) / 1048576.0);
  EXPECT_EQ(after_all, after_first);
}

INSTANTIATE_TEST_SUITE_P(Methods, CudaSequence, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<SequenceCase>& param) { return param.param.name; });

// The compact read-back's kernel: indices where each widens back to the map's own bits, the
// flag raised by anything else, the float copy always whole.
TEST(CudaLevelIndex, IndicesWidenBackOrTheFlagIsRaised) {
  STEREO_REQUIRE_CUDA();
  const float inf = std::numeric_limits<float>::infinity();
  const DisparityRange range{-3, 300};
  const auto run = [&](const std::vector<float>& values, int index_bytes, std::vector<std::uint16_t>& indices,
                       std::vector<float>& copy) {
    ImageF map(int(values.size()), 1, 1);
    map.data = values;
    const cu::DeviceImage<float> d_map = cu::upload(map);
    auto d_index = cu::make_device_buffer<std::uint16_t>(values.size(), "test", "indices");
    auto d_copy = cu::make_device_buffer<float>(values.size(), "test", "copy");
    auto d_flag = cu::make_device_buffer<std::uint32_t>(1, "test", "flag");
    CUDA_CHECK(cudaMemset(d_flag.get(), 0, sizeof(std::uint32_t)));
    CUDA_CHECK(cudaMemset(d_index.get(), 0, values.size() * sizeof(std::uint16_t)));  // 8-bit: half is written
    cu::level_index(d_map.get(), values.size(), range, index_bytes, d_index.get(), d_copy.get(), d_flag.get(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::uint32_t flag = 0;
    indices.assign(values.size(), 0);
    copy.assign(values.size(), 0.0f);
    CUDA_CHECK(cudaMemcpy(&flag, d_flag.get(), sizeof flag, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(indices.data(), d_index.get(), values.size() * 2, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(copy.data(), d_copy.get(), values.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return flag;
  };
  std::vector<std::uint16_t> indices;
  std::vector<float> copy;
  const std::vector<float> whole{-3.0f, 0.0f, 5.0f, 296.0f, 1.0f};
  EXPECT_EQ(run(whole, 2, indices, copy), 0u);
  EXPECT_EQ(indices, (std::vector<std::uint16_t>{0, 3, 8, 299, 4}));
  EXPECT_EQ(copy, whole);
  for (const float bad : {2.5f, inf, std::numeric_limits<float>::quiet_NaN(), -4.0f, 297.0f}) {
    std::vector<float> values = whole;
    values[2] = bad;
    EXPECT_EQ(run(values, 2, indices, copy), 1u) << bad;
    EXPECT_EQ(std::memcmp(copy.data(), values.data(), values.size() * sizeof(float)), 0) << bad;
  }
  // -0.0 would widen to +0.0 (range.min + index): not the same bits.
  EXPECT_EQ(run({-3.0f, -0.0f}, 2, indices, copy), 1u);
  // 8-bit indices: two a 16-bit word.
  EXPECT_EQ(run({-3.0f, 252.0f}, 1, indices, copy), 0u);
  EXPECT_EQ(indices[0], std::uint16_t(0 | (255 << 8)));
}

// cu::keep_in_flight, the loop of every sequence with frames in flight, is host code: these
// run without a device.
struct FlightLog {
  std::vector<std::string> events;  // "s3": frame 3 submitted, "d3": delivered
  std::size_t frames = 0;           // what the source gives
  std::size_t throw_at_source = SIZE_MAX, throw_at_submit = SIZE_MAX, throw_at_deliver = SIZE_MAX;

  void run(const std::function<std::size_t()>& depth, const std::function<void(std::size_t)>& on_submit = {}) {
    std::size_t given = 0;
    cu::keep_in_flight(
        depth,
        [&](FramePair&) {
          if (given == throw_at_source) throw Error("source " + std::to_string(given));
          return given++ < frames;
        },
        [&](const FramePair&, std::size_t frame) {
          if (on_submit) on_submit(frame);
          if (frame == throw_at_submit) throw Error("submit " + std::to_string(frame));
          events.push_back("s" + std::to_string(frame));
        },
        [&](std::size_t frame) {
          events.push_back("d" + std::to_string(frame));
          if (frame == throw_at_deliver) throw Error("deliver " + std::to_string(frame));
        });
  }
};

using Events = std::vector<std::string>;

TEST(KeepInFlight, DeliversInOrderWithDepthFramesInFlight) {
  FlightLog log;
  log.frames = 6;
  log.run([] { return std::size_t(3); });
  EXPECT_EQ(log.events, (Events{"s0", "s1", "s2", "d0", "s3", "d1", "s4", "d2", "s5", "d3", "d4", "d5"}));
}

TEST(KeepInFlight, TheFirstFrameMayDecideTheDepth) {
  FlightLog log;
  log.frames = 4;
  std::size_t depth = 0;
  log.run([&] { return depth; }, [&](std::size_t frame) { depth = frame == 0 ? 1 : depth; });
  EXPECT_EQ(log.events, (Events{"s0", "d0", "s1", "d1", "s2", "d2", "s3", "d3"}));
}

TEST(KeepInFlight, ASourceErrorDeliversTheFramesInFlightFirst) {
  FlightLog log;
  log.frames = 10;
  log.throw_at_source = 4;
  try {
    log.run([] { return std::size_t(3); });
    ADD_FAILURE() << "the source's error did not propagate";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "source 4");
  }
  EXPECT_EQ(log.events, (Events{"s0", "s1", "s2", "d0", "s3", "d1", "d2", "d3"}));
}

TEST(KeepInFlight, ASubmitErrorDeliversTheFramesBeforeIt) {
  FlightLog log;
  log.frames = 10;
  log.throw_at_submit = 2;
  EXPECT_THROW(log.run([] { return std::size_t(3); }), Error);
  EXPECT_EQ(log.events, (Events{"s0", "s1", "d0", "d1"}));
}

// A failing sink: the frames still in flight are delivered (a second error would be dropped),
// then the first error propagates.
TEST(KeepInFlight, ADeliveryErrorStillDeliversTheRest) {
  FlightLog log;
  log.frames = 10;
  log.throw_at_deliver = 1;
  try {
    log.run([] { return std::size_t(2); });
    ADD_FAILURE() << "the sink's error did not propagate";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "deliver 1");
  }
  EXPECT_EQ(log.events, (Events{"s0", "s1", "d0", "s2", "d1", "d2"}));
}

TEST(CudaSequenceCases, EveryCudaMethodHasACase) {
  std::set<std::string> covered, names;
  for (const SequenceCase& c : cases()) {
    covered.insert(c.method);
    EXPECT_TRUE(names.insert(c.name).second) << "two sequence cases are named " << c.name;
    EXPECT_NO_THROW((void)builtin_registry().find(c.method, "cuda")) << c.name << " names no registered CUDA backend";
  }
  for (const BackendEntry& e : builtin_registry().entries())
    if (e.backend == "cuda") {
      EXPECT_EQ(covered.count(e.method), 1u)
          << e.method << "/cuda has no sequence case: its folder's tests/cases.cpp declares none";
    }
}

}  // namespace
}  // namespace stereo
