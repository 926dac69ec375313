#pragma once
/// \file reference/adcensus_parallel.h
/// The one threading device of the AD-Census reference: independent items (rows, columns,
/// scanlines) split over the hardware threads. Each item must write only its own outputs, so
/// the result does not depend on the thread count.

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace stereo::reference {

/// Calls f(i) for i = 0 .. n-1, item i on thread i % T (T = the hardware threads, at most n).
/// The first exception a call throws is rethrown here after every thread has joined.
template <class F>
void parallel_for(int n, F&& f) {
  const int threads = std::max(1, std::min(n, int(std::thread::hardware_concurrency())));
  if (threads <= 1) {
    for (int i = 0; i < n; ++i) f(i);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  pool.reserve(std::size_t(threads));
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (int i = t; i < n; i += threads) f(i);
      } catch (...) {
        errors[std::size_t(t)] = std::current_exception();
      }
    });
  for (std::thread& thread : pool) thread.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace stereo::reference
