#include "core/thread_pool.h"

#include <algorithm>
#include <utility>

namespace stereo {

unsigned ThreadPool::hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

ThreadPool::ThreadPool(unsigned threads) {
  const unsigned total = threads == 0 ? hardware_threads() : threads;
  try {
    workers_.reserve(total - 1);
    for (unsigned t = 1; t < total; ++t) workers_.emplace_back([this] { worker_loop(); });
  } catch (...) {
    stop_workers();  // the destructor does not run when the constructor throws
    throw;
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_)
    if (t.joinable()) t.join();
}

void ThreadPool::run_items() {
  while (!failed_.load(std::memory_order_relaxed)) {
    const std::size_t i = next_.fetch_add(1);
    if (i >= count_) return;
    try {
      (*fn_)(i);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      failed_ = true;
    }
  }
}

void ThreadPool::worker_loop() {
  std::size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    run_items();
    std::lock_guard lock(mutex_);
    // parallel_for waits for every worker before it returns, so no worker can miss a job or
    // see one twice: the next generation starts only after this decrement.
    if (--busy_ == 0) done_.notify_one();
  }
}

void ThreadPool::parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn) {
  if (count == 0) return;
  {
    std::lock_guard lock(mutex_);
    fn_ = &fn;
    count_ = count;
    next_ = 0;
    failed_ = false;
    error_ = nullptr;
    busy_ = unsigned(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  run_items();
  std::exception_ptr error;
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    fn_ = nullptr;
    error = std::exchange(error_, nullptr);
  }
  if (error) std::rethrow_exception(error);
}

void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn) {
  if (count == 0) return;
  const unsigned wanted = threads == 0 ? ThreadPool::hardware_threads() : threads;
  ThreadPool pool(unsigned(std::min<std::size_t>(wanted, count)));
  pool.parallel_for(count, fn);
}

}  // namespace stereo
