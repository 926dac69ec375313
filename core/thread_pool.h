#pragma once
/// \file core/thread_pool.h
/// A small fixed pool of CPU threads for the CPU references: `parallel_for(count, fn)` runs
/// fn(0) .. fn(count-1), each exactly once, spread over the pool, and returns when all are
/// done. Indices are handed out one at a time from a shared counter, so the order in which
/// items run is unspecified: work that must come out identical for every thread count writes
/// each item's result to its own place (row band, column band) and merges in a fixed order.
///
/// Exceptions: the first exception an item throws is kept (std::exception_ptr), the items not
/// yet started are skipped, and parallel_for rethrows it in the caller once every thread has
/// left the loop. A worker never lets an exception escape (which would call std::terminate).
///
/// Memory: the pool itself holds nothing per item; what a caller allocates per item is alive
/// only while the item runs, so at most size() items' worth at a time.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace stereo {

class ThreadPool {
 public:
  /// `threads` workers in all, the calling thread counted (so 1 = run inline, no thread is
  /// started); 0 = std::thread::hardware_concurrency(). Throws std::system_error when a thread
  /// cannot be started (the ones already started are stopped and joined first).
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Threads that run items, the caller included.
  [[nodiscard]] unsigned size() const { return unsigned(workers_.size()) + 1; }

  /// Runs fn(i) for i = 0 .. count-1 on the pool and the calling thread; rethrows the first
  /// exception an item threw. Not re-entrant: fn must not call parallel_for on the same pool,
  /// and one pool serves one calling thread at a time.
  void parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn);

  /// hardware_concurrency(), at least 1.
  static unsigned hardware_threads();

 private:
  void worker_loop();
  void run_items();
  void stop_workers();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;  // a new job, or stop
  std::condition_variable done_;  // the last worker left the current job
  // The current job; written under mutex_ before generation_ moves on.
  const std::function<void(std::size_t)>* fn_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  std::size_t generation_ = 0;
  unsigned busy_ = 0;  // workers that have not yet finished the current job
  bool stop_ = false;
};

/// One-shot form: a pool of `threads` (0 = all hardware threads, and never more than
/// `count`) for one loop.
void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn);

}  // namespace stereo
