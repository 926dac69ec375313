// Google Benchmark over every available SA-LAP backend at the paper's Table 2 sizes.
// `stereo bench` prints the same numbers as a table with upload/read-back split out; this
// binary is for regression tracking (--benchmark_format=json). Times are per full run
// (upload, all passes, read-back), reported as manual time from the backends' own clocks.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>

#include "host/matcher.h"

namespace {

std::pair<stereo::ImageU8, stereo::ImageU8> pair_of(int w, int h) {
  std::mt19937 rng(20070917u);
  std::uniform_int_distribution<int> u(0, 255);
  stereo::ImageU8 l(w, h, 3), r(w, h, 3);
  for (auto& v : l.data) v = static_cast<std::uint8_t>(u(rng));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) r.at(x, y, c) = l.at(std::min(w - 1, x + 8), y, c);
  return {l, r};
}

void run_backend(benchmark::State& state, const std::string& backend) {
  const int size = int(state.range(0)), levels = int(state.range(1));
  const auto backends = stereo::Registry::builtin().backends("salap");
  if (std::find(backends.begin(), backends.end(), backend) == backends.end()) {
    state.SkipWithError("backend not in this build");
    return;
  }
  const auto& entry = stereo::Registry::builtin().find("salap", backend);
  if (const auto reason = entry.unavailable()) {
    state.SkipWithError(reason->c_str());
    return;
  }
  auto m = entry.create({});
  const auto [l, r] = pair_of(size, size);
  m->compute(l, r, levels);  // warm-up
  for (auto _ : state) {
    const auto res = m->compute(l, r, levels);
    state.SetIterationTime(res.timing.total_ms() * 1e-3);
  }
  state.counters["Mde/s"] = benchmark::Counter(double(size) * size * levels * 1e-6 * double(state.iterations()),
                                               benchmark::Counter::kIsRate);
  state.SetLabel(m->device());
}

void table2(benchmark::internal::Benchmark* b) {
  for (int s : {256, 512})
    for (int d : {16, 32, 64, 96}) b->Args({s, d});
  b->UseManualTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK_CAPTURE(run_backend, gl, std::string("gl"))->Apply(table2);
BENCHMARK_CAPTURE(run_backend, glcompute, std::string("glcompute"))->Apply(table2);
BENCHMARK_CAPTURE(run_backend, cuda, std::string("cuda"))->Apply(table2);
BENCHMARK_CAPTURE(run_backend, cpu, std::string("cpu"))->Args({256, 16})->UseManualTime()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
