#pragma once
/// \file app/measure.h
/// What `eval`, `bench` and `compare` share: the JSON forms of timings and of a method's
/// paper figures, the throughput convention, the timed benchmark of one configuration, and
/// the number formatting of the tables. One definition each, so the commands cannot drift.

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/bench_report.h"
#include "core/disparity_range.h"
#include "core/image.h"
#include "core/matcher.h"
#include "core/registry.h"

namespace stereo::cli {

/// Million disparity evaluations per second: W x H x the number of disparities searched / time.
/// 0 for a non-positive time.
double mdes(int width, int height, int levels, double ms);

/// {algorithm_ms, upload_ms, readback_ms, total_ms, stages {name: ms}, clock}.
nlohmann::json timing_json(const Timing& t);

/// The value, or null.
nlohmann::json optional_json(const std::optional<double>& v);

/// Fixed-point text with `precision` decimals; "-" for an empty optional.
std::string fmt(double v, int precision = 2);
std::string fmt(const std::optional<double>& v, int precision = 2);

/// "0..63": the disparities searched, as every output names them.
std::string range_text(DisparityRange r);

/// The colour ramp over the searched range (min = the far end), so maps of different ranges
/// use the whole ramp and a map and its ground truth share one scale.
ImageU8 colorize_range(const ImageF& disparity, DisparityRange r);

/// Why a backend cannot run here, or nothing when it can.
std::optional<std::string> unavailable(const BackendEntry& e);

/// The lines of a "key = default  (doc)" table (Params::describe(), a backend's
/// describe_options), their indentation dropped and blank lines left out.
std::vector<std::string> describe_lines(const std::string& text);

/// A method's registry description as JSON: title, citation, the paper's accuracy rows (with
/// their `when` conditions), speed settings, paper GPU and parameter table (`list --json`,
/// and `compare`'s results.json, so a report needs no registry).
nlohmann::json method_json(const MethodInfo& m);

/// "WxH" with positive integers; throws stereo::Error naming `what` ("bench: --size") otherwise.
std::pair<int, int> parse_size(const std::string& s, const std::string& what);

/// Median of the values (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> v);

/// One timed configuration of `bench` and `compare`.
struct BenchConfig {
  int width = 0, height = 0;
  DisparityRange range;
  std::optional<PaperSpeed> paper;  ///< the paper's setting this is, if any
};

/// How a timed configuration is warmed up before its timed runs: untimed runs of the very
/// matcher, pair and range the timed runs use, until at least `min_runs` ran and `min_ms` of
/// wall time passed, and no more than `max_runs`. One run is not always enough: a cell that
/// follows a larger one (a CUDA lane's first small 'paper' cell after the 1920x1080 grid)
/// carried ~0.7 ms more upload time in at least 3 of its 5 timed runs on the H100 while
/// its algorithm time did not move, a transient of a few milliseconds that one warm-up run did
/// not cover; a time floor covers it whatever its source, at ~0.2 s per cell.
struct WarmUp {
  int min_runs = 1;
  double min_ms = 200.0;
  int max_runs = 1000;
};

/// "untimed warm-up runs of the same matcher, pair and range: at least 1 run and 200 ms
/// (at most 1000 runs)", as every output states it.
std::string warmup_text(const WarmUp& w);

/// {min_runs, min_ms, max_runs, text}, as results.json records it.
nlohmann::json warmup_json(const WarmUp& w);

/// Runs `run` (one untimed run of the configuration) as `w` asks; returns how many ran.
/// Throws stereo::Error for a policy that would run nothing or never stop.
int warm_up(const WarmUp& w, const std::function<void()>& run);

/// Times `m` on the synthetic bench_pair() of the configuration's size: the backend's memory
/// and fetch accounting first (they run work of their own), then the warm-up of `w` on the
/// same matcher, pair and range, then `repeat` timed runs with nothing between them and the
/// warm-up. Returns the medians (algorithm_ms, upload_ms, readback_ms, total_ms), the spread
/// of the totals and of the algorithm times (min and max over the repeats: *_min, *_max),
/// each repeat's times in order under "runs" {total_ms, algorithm_ms, upload_ms,
/// readback_ms}, "warmup_runs", fps, Mde/s over the total and over the algorithm time,
/// per-stage medians (with bytes, GB/s and the floor where the backend accounts them, and the
/// whole method's "floor": add_floor), the fetch ceiling of shader backends, under "paper"
/// the paper's figure for this setting with the ratio of ours to it, the matcher's
/// "device_memory_bytes" and "device_memory_declared_bytes" (the most it held after the
/// warm-up, the timed runs and the energy window; null where not known), and after the timed
/// runs the "energy" over `e` (measure_energy; null with "energy_unavailable").
nlohmann::json bench_one(Matcher& m, const MethodInfo& info, const std::string& backend, const BenchConfig& c,
                         int repeat, const WarmUp& w = {}, const EnergyWindow& e = {});

/// Whether a matcher whose params() are `params` runs a paper setting's overrides `set`:
/// every key it names has that value (compared as text, as MethodInfo::paper_accuracy does).
bool set_holds(const std::vector<std::pair<std::string, std::string>>& set, const nlohmann::json& params);

}  // namespace stereo::cli
