// core/thread_pool.h: every index runs exactly once, an exception thrown in a worker reaches
// the caller (and the pool stays usable), and the one-shot form behaves the same.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"

using namespace stereo;

TEST(ThreadPool, EveryIndexRunsExactlyOnce) {
  for (unsigned threads : {1u, 2u, 7u, 0u}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads == 0 ? ThreadPool::hardware_threads() : threads);
    for (std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(1000)}) {
      std::vector<std::atomic<int>> hits(count);
      pool.parallel_for(count, [&](std::size_t i) { hits[i].fetch_add(1); });
      for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(hits[i].load(), 1) << threads << " threads, item " << i;
    }
  }
}

TEST(ThreadPool, ItemsRunOnSeveralThreads) {
  ThreadPool pool(4);
  std::mutex m;
  std::set<std::thread::id> ids;
  // Each item waits until four distinct threads have joined in (or gives up after a while), so
  // the test shows that the workers really run items rather than leaving all to the caller.
  std::atomic<int> arrived{0};
  pool.parallel_for(4, [&](std::size_t) {
    {
      std::lock_guard lock(m);
      ids.insert(std::this_thread::get_id());
    }
    arrived.fetch_add(1);
    for (int spin = 0; spin < 10000 && arrived.load() < 4; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  EXPECT_EQ(ids.size(), 4u);
}

TEST(ThreadPool, AWorkersExceptionReachesTheCaller) {
  for (unsigned threads : {1u, 2u, 7u}) {
    ThreadPool pool(threads);
    std::atomic<int> ran{0};
    try {
      pool.parallel_for(200, [&](std::size_t i) {
        ran.fetch_add(1);
        if (i == 37) throw Error("item 37 failed");
      });
      ADD_FAILURE() << "no exception with " << threads << " threads";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "item 37 failed");
    }
    // Items after the failure are skipped once the failure is seen (not all 200 need run),
    // and the pool runs the next loop in full.
    EXPECT_GE(ran.load(), 1);
    std::atomic<int> after{0};
    pool.parallel_for(50, [&](std::size_t) { after.fetch_add(1); });
    EXPECT_EQ(after.load(), 50) << threads << " threads";
  }
}

TEST(ThreadPool, OnlyTheFirstOfSeveralExceptionsIsRethrown) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.parallel_for(64, [](std::size_t) { throw std::runtime_error("every item fails"); }),
               std::runtime_error);
}

TEST(ThreadPool, OneShotForm) {
  std::vector<int> out(100, 0);
  parallel_for(out.size(), 7, [&](std::size_t i) { out[i] = int(i) * 2; });
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], int(i) * 2);
  EXPECT_THROW(parallel_for(10, 2, [](std::size_t i) { require(i != 9, "last item"); }), Error);
  parallel_for(0, 3, [](std::size_t) { FAIL() << "no item to run"; });
}
