// The device pool (app/parallel/device_pool.h) with fake matchers, so it runs without a GPU:
//  - every frame of a spread sequence comes back once, in input order, with its own map,
//    and a faster matcher takes more frames than a slower one (frames go as each frees up);
//  - a bad frame stops the run: the frames before it are delivered, the error names it, and
//    every worker is joined (no hang); an error in the caller's sink does the same;
//  - spread_items delivers in order and says which worker ran each item;
//  - --devices parsing refuses the CPU backend, repeats, non-ordinals and several GL devices;
//  - create_on_devices makes each matcher with its ordinal in STEREO_DEVICE and restores it;
//  - the MPI shares (block_of, interleaved_of) cover every item once.
// The GPU side (two CUDA matchers, bit-identical maps) is the lead's GPU check (docs/streaming.md).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "app/parallel/device_pool.h"
#include "app/parallel/ranks.h"
#include "core/error.h"
#include "core/gpu_select.h"

namespace stereo {
namespace {

/// A matcher whose map is filled with the left image's first pixel, after `delay`.
class FakeMatcher : public Matcher {
 public:
  FakeMatcher(std::string name, std::chrono::milliseconds delay) : name_(std::move(name)), delay_(delay) {}
  [[nodiscard]] nlohmann::json params() const override { return nlohmann::json::object(); }
  [[nodiscard]] std::string component() const override { return "fake/" + name_; }
  [[nodiscard]] std::string device() const override { return name_; }
  std::atomic<int> runs{0};

 protected:
  StereoResult match(const ImageU8& left, const ImageU8& /*right*/, DisparityRange /*range*/) override {
    std::this_thread::sleep_for(delay_);
    ++runs;
    StereoResult r;
    r.disparity = ImageF(left.width, left.height, 1);
    for (float& v : r.disparity.data) v = static_cast<float>(left.data[0]);
    return r;
  }

 private:
  std::string name_;
  std::chrono::milliseconds delay_;
};

constexpr DisparityRange POOL_RANGE{0, 4};

/// Frame i: 8x4 grey images whose pixels are all i (mod 256).
FramePair frame(std::size_t i) {
  FramePair p;
  p.left = ImageU8(8, 4, 1);
  p.right = ImageU8(8, 4, 1);
  for (auto& v : p.left.data) v = static_cast<std::uint8_t>(i % 256);
  for (auto& v : p.right.data) v = static_cast<std::uint8_t>(i % 256);
  return p;
}

TEST(DevicePool, SequenceComesBackInOrderAndFasterDevicesTakeMore) {
  FakeMatcher slow("slow", std::chrono::milliseconds(20)), fast("fast", std::chrono::milliseconds(0));
  const std::size_t count = 40;
  std::vector<std::size_t> order;
  std::vector<std::size_t> per_worker(2, 0);
  parallel::spread_sequence({&slow, &fast}, POOL_RANGE, count, frame, 2,
                            [&](FrameResult&& r, const parallel::FrameRecord& rec) {
                              order.push_back(r.index);
                              ++per_worker[rec.worker];
                              const ImageF map = r.disparity.to_float();
                              EXPECT_EQ(map.data[0], static_cast<float>(r.index)) << "frame " << r.index;
                              EXPECT_LE(rec.given, rec.returned);
                            });
  ASSERT_EQ(order.size(), count);
  for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(per_worker[0] + per_worker[1], count);
  EXPECT_EQ(per_worker[0], static_cast<std::size_t>(slow.runs.load()));
  // The slow one sleeps 20 ms a frame; the fast one takes the rest meanwhile.
  EXPECT_GT(per_worker[1], per_worker[0]);
}

TEST(DevicePool, OneMatcherRunsOnTheCallingThread) {
  FakeMatcher only("only", std::chrono::milliseconds(0));
  const std::thread::id caller = std::this_thread::get_id();
  std::size_t n = 0;
  parallel::spread_sequence({&only}, POOL_RANGE, 5, frame, 0, [&](FrameResult&& r, const parallel::FrameRecord& rec) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(r.index, n++);
    EXPECT_EQ(rec.worker, 0u);
  });
  EXPECT_EQ(n, 5u);
}

TEST(DevicePool, BadFrameStopsTheRunAfterTheFramesBeforeIt) {
  FakeMatcher a("a", std::chrono::milliseconds(1)), b("b", std::chrono::milliseconds(2));
  const auto read = [](std::size_t i) {
    if (i == 7) throw Error("test: frame 7 (0007.png): corrupt");
    return frame(i);
  };
  std::vector<std::size_t> delivered;
  try {
    parallel::spread_sequence({&a, &b}, POOL_RANGE, 30, read, 2,
                              [&](FrameResult&& r, const parallel::FrameRecord&) { delivered.push_back(r.index); });
    FAIL() << "no error for the bad frame";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("frame 7 (0007.png)"), std::string::npos) << e.what();
  }
  ASSERT_EQ(delivered.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(delivered[i], i);
}

TEST(DevicePool, SinkErrorStopsAndJoinsTheWorkers) {
  FakeMatcher a("a", std::chrono::milliseconds(1)), b("b", std::chrono::milliseconds(1));
  std::size_t delivered = 0;
  EXPECT_THROW(parallel::spread_sequence({&a, &b}, POOL_RANGE, 1000, frame, 0,
                                         [&](FrameResult&&, const parallel::FrameRecord&) {
                                           if (++delivered == 3) throw Error("test: disk full");
                                         }),
               Error);
  EXPECT_EQ(delivered, 3u);
  // Stopped early: far fewer than the 1000 frames were matched.
  EXPECT_LT(a.runs + b.runs, 1000);
}

TEST(DevicePool, ItemsComeBackInOrderWithTheirWorker) {
  const std::size_t count = 25;
  std::vector<int> slot(count, -1);
  std::vector<std::size_t> order;
  parallel::spread_items(3, count, [&](std::size_t worker, std::size_t i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(i % 3));
    slot[i] = static_cast<int>(worker);
  }, [&](std::size_t i, std::size_t worker) {
    order.push_back(i);
    EXPECT_EQ(slot[i], static_cast<int>(worker));
  });
  ASSERT_EQ(order.size(), count);
  for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(order[i], i);
}

TEST(DevicePool, ItemErrorPropagatesAfterTheItemsBeforeIt) {
  std::vector<std::size_t> order;
  EXPECT_THROW(parallel::spread_items(
                   2, 50,
                   [](std::size_t, std::size_t i) {
                     if (i == 4) throw Error("test: scene 4 failed");
                   },
                   [&](std::size_t i, std::size_t) { order.push_back(i); }),
               Error);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3}));
}

TEST(DevicePool, DevicesOption) {
  using parallel::parse_devices;
  EXPECT_EQ(parse_devices("0,1", "cuda", "stream"), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_devices("3", "gl", "stream"), (std::vector<int>{3}));
  const auto message = [](const std::string& text, const std::string& backend) {
    try {
      parse_devices(text, backend, "stream");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("0", "cpu").find("stream: --devices 0: backend cpu runs on the CPU"), std::string::npos);
  EXPECT_NE(message("0,0", "cuda").find("device 0 is named twice"), std::string::npos);
  EXPECT_NE(message("0,x", "cuda").find("'x' is not a GPU ordinal"), std::string::npos);
  EXPECT_NE(message("", "cuda").find("'' is not a GPU ordinal"), std::string::npos);
  EXPECT_NE(message("0,-1", "cuda").find("'-1' is not a GPU ordinal"), std::string::npos);
  EXPECT_NE(message("0,1", "glcompute").find("one OpenGL context per process"), std::string::npos);
  if (parallel::cuda_device_count() == 0)
    EXPECT_NE(message("all", "cuda").find("no CUDA device visible"), std::string::npos);
  else
    EXPECT_EQ(parse_devices("all", "cuda", "stream").size(), static_cast<std::size_t>(parallel::cuda_device_count()));
}

TEST(DevicePool, MatchersAreMadeWithTheirOrdinalAndTheEnvironmentRestored) {
  setenv(GPU_ENV, "5", 1);
  std::vector<int> seen;
  const auto made = parallel::create_on_devices({2, 0, 1}, [&] {
    seen.push_back(requested_gpu().value_or(-1));
    return std::make_unique<FakeMatcher>("x", std::chrono::milliseconds(0));
  });
  EXPECT_EQ(made.size(), 3u);
  EXPECT_EQ(seen, (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(requested_gpu(), 5);
  unsetenv(GPU_ENV);
  EXPECT_THROW(parallel::create_on_devices({0, 1}, []() -> std::unique_ptr<Matcher> { throw Error("test: no"); }),
               Error);
  EXPECT_EQ(requested_gpu(), std::nullopt);
}

TEST(DevicePool, RankSharesCoverEveryItemOnce) {
  for (std::size_t count : {0u, 1u, 5u, 19u})
    for (int size : {1, 2, 3, 7}) {
      std::multiset<std::size_t> blocks, interleaved;
      for (int r = 0; r < size; ++r) {
        const auto b = parallel::block_of(count, r, size);
        blocks.insert(b.begin(), b.end());
        EXPECT_LE(b.size(), count / static_cast<std::size_t>(size) + 1);
        for (std::size_t k = 1; k < b.size(); ++k) EXPECT_EQ(b[k], b[k - 1] + 1) << "blocks are contiguous";
        const auto i = parallel::interleaved_of(count, r, size);
        interleaved.insert(i.begin(), i.end());
      }
      std::multiset<std::size_t> all;
      for (std::size_t k = 0; k < count; ++k) all.insert(k);
      EXPECT_EQ(blocks, all) << count << " items over " << size;
      EXPECT_EQ(interleaved, all) << count << " items over " << size;
    }
}

}  // namespace
}  // namespace stereo
