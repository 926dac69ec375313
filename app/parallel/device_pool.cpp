// The device pool (app/parallel/device_pool.h): --devices parsing, a matcher per device, and
// the one queue with in-order delivery that `stream` (through match_sequence) and `eval`
// (scene by scene) spread their work over.

#include "app/parallel/device_pool.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#ifdef STEREO_PARALLEL_CUDA
#include <cuda_runtime_api.h>
#endif

#include "app/parallel/ranks.h"
#include "core/error.h"
#include "core/gpu_select.h"
#include "core/thread_pool.h"

namespace stereo::parallel {

bool is_gpu_backend(const std::string& backend) {
  return backend.rfind("cuda", 0) == 0 || backend.rfind("gl", 0) == 0;
}

int cuda_device_count() {
#ifdef STEREO_PARALLEL_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
#else
  return 0;
#endif
}

std::size_t default_readers() { return std::clamp<std::size_t>(ThreadPool::hardware_threads(), 1, 16); }

std::vector<int> parse_devices(const std::string& text, const std::string& backend, const std::string& command) {
  const std::string what = command + ": --devices " + text;
  require(is_gpu_backend(backend),
          what + ": backend " + backend +
              " runs on the CPU and spreads over its own threads; --devices names GPUs (cuda, gl, glcompute)",
          ErrorKind::invalid_argument);
  std::vector<int> devices;
  if (text == "all") {
    const int count = cuda_device_count();
    require(count > 0, what + ": no CUDA device visible to count (name the ordinals: --devices 0,1)",
            ErrorKind::unavailable);
    for (int d = 0; d < count; ++d) devices.push_back(d);
  } else {
    std::set<int> seen;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      const std::string item = text.substr(start, comma - start);
      // A plain int, not an optional assigned inside the try: GCC 12 at -O3 let such an
      // optional look engaged after parse_gpu_ordinal threw.
      int ordinal = -1;
      try {
        if (const std::optional<int> parsed = parse_gpu_ordinal(item)) ordinal = *parsed;
      } catch (const Error&) {
      }
      require(ordinal >= 0, what + ": '" + item + "' is not a GPU ordinal (a list such as 0,1, or all)",
              ErrorKind::invalid_argument);
      require(seen.insert(ordinal).second, what + ": device " + item + " is named twice", ErrorKind::invalid_argument);
      devices.push_back(ordinal);
      start = comma + 1;
    }
  }
  require(devices.size() == 1 || backend.rfind("gl", 0) != 0,
          what + ": a GL backend has one OpenGL context per process (gl/context.h); run one process per GPU "
                 "instead (mpirun -np " + std::to_string(devices.size()) + ", docs/streaming.md)",
          ErrorKind::invalid_argument);
  return devices;
}

std::vector<std::unique_ptr<Matcher>> create_on_devices(const std::vector<int>& devices,
                                                       const std::function<std::unique_ptr<Matcher>()>& create) {
  // One at a time: STEREO_DEVICE is the process's, and a worker may make a matcher of its own
  // (compare's paper settings) while another does.
  static std::mutex one_at_a_time;
  const std::lock_guard<std::mutex> lock(one_at_a_time);
  const char* before = std::getenv(GPU_ENV);
  const std::optional<std::string> previous = before ? std::optional<std::string>(before) : std::nullopt;
  const auto restore = [&previous] {
    if (previous)
      (void)setenv(GPU_ENV, previous->c_str(), 1);
    else
      (void)unsetenv(GPU_ENV);
  };
  std::vector<std::unique_ptr<Matcher>> matchers;
  try {
    for (const int d : devices) {
      request_gpu(d);
      matchers.push_back(create());
    }
  } catch (...) {
    restore();
    throw;
  }
  restore();
  return matchers;
}

std::vector<std::unique_ptr<Matcher>> place_matchers(const std::string& devices, const std::string& backend,
                                                    const std::string& command, const Ranks& ranks,
                                                    const std::function<std::unique_ptr<Matcher>()>& create,
                                                    std::vector<int>& ordinals) {
  ordinals.clear();
  if (!devices.empty()) {
    ordinals = parse_devices(devices, backend, command);
  } else if (ranks.spread() && is_gpu_backend(backend) && !requested_gpu()) {
    const int count = cuda_device_count();
    require(count == 0 || ranks.local_rank() < count,
            command + ": rank " + std::to_string(ranks.rank()) + " is rank " + std::to_string(ranks.local_rank()) +
                " on " + ranks.host() + ", which has " + std::to_string(count) +
                " CUDA devices: run at most one rank per GPU, or name the GPUs (--devices)",
            ErrorKind::invalid_argument);
    ordinals = {ranks.local_rank()};
  }
  if (!ordinals.empty()) return create_on_devices(ordinals, create);
  ordinals = {requested_gpu().value_or(-1)};
  std::vector<std::unique_ptr<Matcher>> one;
  one.push_back(create());
  return one;
}

namespace {

/// Indices handed out in order, results marked ready from any thread, delivered in order on
/// the calling thread (drain); the first failure stops the hand-out.
class InOrder {
 public:
  InOrder(std::size_t count, std::size_t workers) : ready_(count, false), active_(workers) {}

  std::optional<std::size_t> claim() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_ || next_claim_ >= ready_.size()) return std::nullopt;
    return next_claim_++;
  }
  void ready(std::size_t index) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_[index] = true;
    }
    changed_.notify_all();
  }
  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::move(e);
      stopped_ = true;
    }
    changed_.notify_all();
  }
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
  }
  void worker_finished() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --active_;
    }
    changed_.notify_all();
  }
  /// Delivers every ready index in order until the workers are done and the next is missing;
  /// then rethrows the first failure, if any.
  void drain(const std::function<void(std::size_t)>& deliver) {
    std::size_t next = 0;
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return (next < ready_.size() && ready_[next]) || active_ == 0; });
      if (next >= ready_.size() || !ready_[next]) break;
      lock.unlock();
      deliver(next++);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (error_) std::rethrow_exception(error_);
    if (next < ready_.size())
      throw Error("device pool: item " + std::to_string(next) + " of " + std::to_string(ready_.size()) +
                  " never came back");
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<bool> ready_;
  std::size_t next_claim_ = 0;
  std::size_t active_;
  bool stopped_ = false;
  std::exception_ptr error_;
};

/// Runs body(worker) on `workers` threads, then order.drain(deliver) on this one; joins the
/// threads on every path.
void run_workers(InOrder& order, std::size_t workers, const std::function<void(std::size_t)>& body,
                 const std::function<void(std::size_t)>& deliver) {
  std::vector<std::thread> threads;
  const auto join = [&threads] {
    for (std::thread& t : threads)
      if (t.joinable()) t.join();
  };
  try {
    for (std::size_t w = 0; w < workers; ++w)
      threads.emplace_back([&order, &body, w] {
        try {
          body(w);
        } catch (...) {
          order.fail(std::current_exception());
        }
        order.worker_finished();
      });
    order.drain(deliver);
  } catch (...) {
    order.stop();
    // Workers not started never report; count them finished so none is waited for.
    for (std::size_t w = threads.size(); w < workers; ++w) order.worker_finished();
    join();
    throw;
  }
  join();
}

/// Pairs read on their own threads up to `ahead` frames past the one taken (0: read when taken).
class Prefetch {
 public:
  Prefetch(std::size_t count, const IndexedRead& read, std::size_t ahead) : read_(read), ahead_(ahead), slots_(count) {}
  ~Prefetch() {
    for (std::future<FramePair>& f : slots_)
      if (f.valid()) f.wait();  // a read still running uses read_; its error is no longer anyone's
  }
  Prefetch(const Prefetch&) = delete;
  Prefetch& operator=(const Prefetch&) = delete;

  FramePair take(std::size_t index) {
    if (ahead_ == 0) return read_(index);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (; launched_ < slots_.size() && launched_ <= index + ahead_; ++launched_)
        slots_[launched_] = std::async(std::launch::async, read_, launched_);
    }
    return slots_[index].get();
  }

 private:
  const IndexedRead& read_;
  std::size_t ahead_;
  std::mutex mutex_;
  std::size_t launched_ = 0;
  std::vector<std::future<FramePair>> slots_;
};

}  // namespace

void spread_sequence(const std::vector<Matcher*>& matchers, DisparityRange range, std::size_t count,
                     const IndexedRead& read, std::size_t read_ahead, const RecordSink& deliver) {
  require(!matchers.empty(), "device pool: no matcher to spread the sequence over");
  Prefetch prefetch(count, read, read_ahead);
  std::vector<FrameRecord> records(count);
  if (matchers.size() == 1) {
    // The calling thread alone, delivering as the matcher does: a GL context stays on its thread.
    std::size_t next = 0;
    const FrameSource source = [&](FramePair& pair) {
      if (next >= count) return false;
      pair = prefetch.take(next);
      records[next].given = Clock::now();
      ++next;
      return true;
    };
    const FrameSink sink = [&](FrameResult&& r) {
      records[r.index].returned = Clock::now();
      deliver(std::move(r), records[r.index]);
    };
    matchers[0]->match_sequence(range, source, sink);
    return;
  }
  InOrder order(count, matchers.size());
  std::vector<std::optional<FrameResult>> results(count);
  const auto body = [&](std::size_t w) {
    // The matcher numbers its frames 0, 1, ... in the order it took them; this maps them back.
    std::mutex taken_mutex;
    std::vector<std::size_t> taken;
    const FrameSource source = [&](FramePair& pair) {
      const std::optional<std::size_t> i = order.claim();
      if (!i) return false;
      {
        std::lock_guard<std::mutex> lock(taken_mutex);
        taken.push_back(*i);
      }
      pair = prefetch.take(*i);
      records[*i].worker = w;
      records[*i].given = Clock::now();
      return true;
    };
    const FrameSink sink = [&](FrameResult&& r) {
      std::size_t i = 0;
      {
        std::lock_guard<std::mutex> lock(taken_mutex);
        i = taken.at(r.index);
      }
      records[i].returned = Clock::now();
      r.index = i;
      results[i] = std::move(r);
      order.ready(i);
    };
    matchers[w]->match_sequence(range, source, sink);
  };
  run_workers(order, matchers.size(), body, [&](std::size_t i) {
    FrameResult r = std::move(*results[i]);
    results[i].reset();
    deliver(std::move(r), records[i]);
  });
}

void spread_items(std::size_t workers, std::size_t count, const std::function<void(std::size_t, std::size_t)>& work,
                  const std::function<void(std::size_t, std::size_t)>& deliver) {
  require(workers > 0, "device pool: no worker to spread the items over");
  if (workers == 1) {
    for (std::size_t i = 0; i < count; ++i) {
      work(0, i);
      deliver(i, 0);
    }
    return;
  }
  InOrder order(count, workers);
  std::vector<std::size_t> worker_of(count, 0);
  const auto body = [&](std::size_t w) {
    while (const std::optional<std::size_t> i = order.claim()) {
      work(w, *i);
      worker_of[*i] = w;
      order.ready(*i);
    }
  };
  run_workers(order, workers, body, [&](std::size_t i) { deliver(i, worker_of[i]); });
}

}  // namespace stereo::parallel
