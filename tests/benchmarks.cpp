// Google Benchmark over every available SA-LAP backend at the paper's Table 2 sizes.
// `stereo bench` prints the same numbers as a table with upload/read-back split out; this
// binary is for regression tracking (--benchmark_format=json). Times are per full run
// (upload, all passes, read-back), reported as manual time from the backends' own clocks.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>

#include "core/matcher.h"
#include "app/synth.h"
#include "methods/builtin.h"

namespace {

// SA-LAP's `backend` with its default parameters, or null (the benchmark marked skipped, with
// the reason) where this build lacks the backend or it cannot run here.
std::unique_ptr<stereo::Matcher> salap_matcher_or_skip(benchmark::State& state, const std::string& backend) {
  const auto backends = stereo::builtin_registry().backends("salap");
  if (std::find(backends.begin(), backends.end(), backend) == backends.end()) {
    state.SkipWithError("backend not in this build");
    return nullptr;
  }
  const auto& entry = stereo::builtin_registry().find("salap", backend);
  if (const auto reason = entry.unavailable()) {
    state.SkipWithError(reason->c_str());
    return nullptr;
  }
  return entry.create({});
}

void run_backend(benchmark::State& state, const std::string& backend) {
  const int size = int(state.range(0)), levels = int(state.range(1));
  auto m = salap_matcher_or_skip(state, backend);
  if (!m) return;
  const auto [l, r] = stereo::bench_pair(size, size);
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

// A sequence through Matcher::match_sequence (issue 14): `frames` pairs of width x height at
// `levels` per iteration, wall time (every copy, the host's included: the source copies a
// pair into the FramePair as a decoder would write it). fps and Gde/s over the whole stream.
void stream_backend(benchmark::State& state, const std::string& backend) {
  const int width = int(state.range(0)), height = int(state.range(1)), levels = int(state.range(2));
  const auto frames = static_cast<std::size_t>(state.range(3));
  auto m = salap_matcher_or_skip(state, backend);
  if (!m) return;
  const auto [l, r] = stereo::bench_pair(width, height);
  const auto run = [&](std::size_t count) {
    std::size_t given = 0, done = 0;
    m->match_sequence(
        stereo::DisparityRange{0, levels},
        [&](stereo::FramePair& pair) {
          if (given == count) return false;
          pair.left = l;
          pair.right = r;
          ++given;
          return true;
        },
        [&](stereo::FrameResult&&) { ++done; });
    return done;
  };
  run(4);  // warm-up: buffers, programs, the pipeline's slots
  std::size_t total = 0;
  for (auto _ : state) total += run(frames);
  state.counters["fps"] = benchmark::Counter(double(total), benchmark::Counter::kIsRate);
  state.counters["Gde/s"] =
      benchmark::Counter(double(width) * height * levels * 1e-9 * double(total), benchmark::Counter::kIsRate);
  state.SetLabel(m->device());
}

void stream_1080p(benchmark::internal::Benchmark* b) {
  b->Args({1920, 1080, 256, 100})->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(3);
}

}  // namespace

BENCHMARK_CAPTURE(stream_backend, cuda, std::string("cuda"))->Apply(stream_1080p);
BENCHMARK_CAPTURE(stream_backend, glcompute, std::string("glcompute"))->Apply(stream_1080p);
BENCHMARK_CAPTURE(stream_backend, gl, std::string("gl"))->Args({1920, 1080, 256, 10})->UseRealTime()
    ->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(stream_backend, cpu_small, std::string("cpu"))->Args({160, 120, 16, 8})->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(run_backend, gl, std::string("gl"))->Apply(table2);
BENCHMARK_CAPTURE(run_backend, glcompute, std::string("glcompute"))->Apply(table2);
BENCHMARK_CAPTURE(run_backend, cuda, std::string("cuda"))->Apply(table2);
BENCHMARK_CAPTURE(run_backend, cpu, std::string("cpu"))->Args({256, 16})->UseManualTime()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
