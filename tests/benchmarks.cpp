// Google Benchmark over every method x backend of the registry (builtin_registry()), for
// regression tracking (--benchmark_format=json); `stereo bench` prints the same kind of numbers
// as a table beside the paper's. Registered per method x backend:
//   compute/M/B/WxHxD[/key=value...]  one Matcher::compute of the synthetic bench_pair():
//       at 320x240 x 64 levels (`stereo run`'s default -d), at 1920x1080 x the levels of the
//       method's 1920x1080 speed setting (256, the suite's common setting, where it has none),
//       at each of the paper's own speed settings (MethodInfo::speed, with the setting's
//       parameter overrides), and over the backend-option grids of OPTION_GRIDS.
//   stream/M/B/WxHxD/F_frames  F pairs through Matcher::match_sequence (4 at 320x240 x 64,
//       100 at 1920x1080 x 256).
// compute's time is the backend's own clock (CUDA events, GL timer queries or the host clock;
// the label names it and the device) as manual time: upload of both images + algorithm +
// read-back of the disparity map, after the warm-up `stereo bench` uses (app/measure.h); making
// the pair and the matcher is outside it. Its counters: Mde/s (W x H x D / that time), alg Mde/s
// (over the algorithm alone), the mean upload, read-back and per-stage ms. stream's time is wall
// time over the whole sequence (every copy included); fps and Mde/s over it.
// A backend that cannot run here, or rejects a setting, is skipped with the reason.
// The 1920x1080 and paper cases take minutes on the CPU backends and Mesa's llvmpipe:
//   without a GPU:  stereo_benchmarks --benchmark_filter='/320x240x'
//   on the GPU:     stereo_benchmarks --benchmark_filter='/(cuda|gl|glcompute)/'

#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/measure.h"
#include "app/synth.h"
#include "core/error.h"
#include "core/matcher.h"
#include "core/registry.h"
#include "methods/builtin.h"
#include "tests/method_cases.h"

namespace {

using stereo::Overrides;

struct Setting {
  int width = 0, height = 0, levels = 0;
  Overrides set;  ///< parameter or option overrides of this setting; {} = the defaults
};

struct Case {
  std::string method, backend;
  Setting setting;
};

const Setting SMALL{320, 240, 64, {}};
constexpr int COMMON_LEVELS = 256;  // the suite's common 1920x1080 setting

/// Backend options swept at 1920x1080 x 256, one case per combination: the grids the methods
/// declare (methods/<folder>/tests/cases.cpp).
using stereo::test::OptionGrid;

std::string setting_name(const Setting& s) {
  std::string name = std::to_string(s.width) + "x" + std::to_string(s.height) + "x" + std::to_string(s.levels);
  for (const auto& [key, value] : s.set) name += "/" + key + "=" + value;
  return name;
}

/// Every combination of the grid's values, the first option varying slowest.
std::vector<Overrides> combinations(const OptionGrid& grid) {
  std::vector<Overrides> out{{}};
  for (const auto& [key, values] : grid.options) {
    std::vector<Overrides> next;
    for (const Overrides& partial : out)
      for (const std::string& v : values) {
        Overrides o = partial;
        o.emplace_back(key, v);
        next.push_back(std::move(o));
      }
    out = std::move(next);
  }
  return out;
}

/// The method's settings: the small one, 1920x1080, the paper's, then its option grids on
/// `backend`, each once.
std::vector<Setting> settings_of(const stereo::MethodInfo& info, const std::string& backend) {
  int hd_levels = COMMON_LEVELS;
  for (const stereo::PaperSpeed& s : info.speed)
    if (s.width == 1920 && s.height == 1080 && s.set.empty()) hd_levels = s.levels;
  std::vector<Setting> out{SMALL, {1920, 1080, hd_levels, {}}};
  for (const stereo::PaperSpeed& s : info.speed) out.push_back({s.width, s.height, s.levels, s.set});
  for (const OptionGrid& grid : stereo::test::method_cases().option_grids)
    if (grid.method == info.name && grid.backend == backend)
      for (Overrides& o : combinations(grid)) out.push_back({1920, 1080, COMMON_LEVELS, std::move(o)});
  std::vector<Setting> unique;
  std::set<std::string> seen;
  for (Setting& s : out)
    if (seen.insert(setting_name(s)).second) unique.push_back(std::move(s));
  return unique;
}

/// The case's matcher, or null with the benchmark skipped and the reason given.
std::unique_ptr<stereo::Matcher> matcher_or_skip(benchmark::State& state, const Case& c) {
  const stereo::BackendEntry& entry = stereo::builtin_registry().find(c.method, c.backend);
  if (const auto reason = stereo::cli::unavailable(entry)) {
    state.SkipWithError(reason->c_str());
    return nullptr;
  }
  try {
    return entry.create(c.setting.set);
  } catch (const stereo::Error& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
}

void compute_case(benchmark::State& state, const Case& c) {
  auto m = matcher_or_skip(state, c);
  if (!m) return;
  const auto [left, right] = stereo::bench_pair(c.setting.width, c.setting.height);
  const stereo::DisparityRange range{0, c.setting.levels};
  try {
    stereo::cli::warm_up(stereo::cli::WarmUp{}, [&] { (void)m->compute(left, right, range); });
  } catch (const stereo::Error& e) {  // a size or range the backend refuses
    state.SkipWithError(e.what());
    return;
  }
  double total_ms = 0.0, algorithm_ms = 0.0, upload_ms = 0.0, readback_ms = 0.0;
  std::vector<std::pair<std::string, double>> stages;  // in the backend's order, summed
  std::string clock;
  for (auto _ : state) {
    const stereo::Timing t = m->compute(left, right, range).timing;
    state.SetIterationTime(t.total_ms() * 1e-3);
    total_ms += t.total_ms(), algorithm_ms += t.algorithm_ms, upload_ms += t.upload_ms, readback_ms += t.readback_ms;
    for (const auto& [name, ms] : t.stages) {
      auto it = std::find_if(stages.begin(), stages.end(), [&](const auto& s) { return s.first == name; });
      if (it == stages.end()) stages.emplace_back(name, ms);
      else it->second += ms;
    }
    clock = t.clock;
  }
  const double n = double(state.iterations());
  if (n == 0.0) return;
  const auto& s = c.setting;
  state.counters["Mde/s"] = stereo::cli::mdes(s.width, s.height, s.levels, total_ms / n);
  state.counters["alg Mde/s"] = stereo::cli::mdes(s.width, s.height, s.levels, algorithm_ms / n);
  state.counters["upload ms"] = upload_ms / n;
  state.counters["readback ms"] = readback_ms / n;
  for (const auto& [name, ms] : stages) state.counters[name + " ms"] = ms / n;
  state.SetLabel(m->device() + "; time = upload + algorithm + read-back (" + clock + ")");
}

// A sequence through Matcher::match_sequence (issue 14): `frames` pairs per iteration, wall time
// (every copy, the host's included: the source copies a pair into the FramePair as a decoder
// would write it). fps and Mde/s over the whole stream.
void stream_case(benchmark::State& state, const Case& c, std::size_t frames) {
  auto m = matcher_or_skip(state, c);
  if (!m) return;
  const auto [left, right] = stereo::bench_pair(c.setting.width, c.setting.height);
  const stereo::DisparityRange range{0, c.setting.levels};
  const auto run = [&](std::size_t count) {
    std::size_t given = 0, done = 0;
    m->match_sequence(
        range,
        [&](stereo::FramePair& pair) {
          if (given == count) return false;
          pair.left = left;
          pair.right = right;
          ++given;
          return true;
        },
        [&](stereo::FrameResult&&) { ++done; });
    return done;
  };
  try {
    run(4);  // warm-up: buffers, programs, the pipeline's slots
  } catch (const stereo::Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  std::size_t total = 0;
  for (auto _ : state) total += run(frames);
  const auto& s = c.setting;
  state.counters["fps"] = benchmark::Counter(double(total), benchmark::Counter::kIsRate);
  state.counters["Mde/s"] =
      benchmark::Counter(double(s.width) * s.height * s.levels * 1e-6 * double(total), benchmark::Counter::kIsRate);
  state.SetLabel(m->device() + "; wall time of the whole sequence");
}

void register_all() {
  const stereo::Registry& registry = stereo::builtin_registry();
  for (const stereo::BackendEntry& e : registry.entries()) {
    const stereo::MethodInfo& info = registry.method(e.method);
    const std::string prefix = e.method + "/" + e.backend + "/";
    for (const Setting& s : settings_of(info, e.backend)) {
      const Case c{e.method, e.backend, s};
      benchmark::RegisterBenchmark(("compute/" + prefix + setting_name(s)).c_str(),
                                   [c](benchmark::State& state) { compute_case(state, c); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
    struct Stream {
      Setting setting;
      std::size_t frames;
      int iterations;
    };
    for (const Stream& st : {Stream{SMALL, 4, 1}, Stream{{1920, 1080, COMMON_LEVELS, {}}, 100, 3}}) {
      const Case c{e.method, e.backend, st.setting};
      benchmark::RegisterBenchmark(
          ("stream/" + prefix + setting_name(st.setting) + "/" + std::to_string(st.frames) + "_frames").c_str(),
          [c, frames = st.frames](benchmark::State& state) { stream_case(state, c, frames); })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(st.iterations);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
