// The measuring and formatting that eval, bench and compare share (app/measure.h).

#include "app/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/error.h"
#include "app/metrics.h"
#include "app/protocol.h"
#include "app/revision.h"
#include "app/synth.h"
#include "core/registry.h"

namespace stereo::cli {
using nlohmann::json;

std::vector<std::string> describe_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos) out.push_back(line.substr(first));
  }
  return out;
}

// Million disparity evaluations per second: W x H x the number of disparities searched.
double mdes(int width, int height, int levels, double ms) {
  return ms > 0.0 ? double(width) * double(height) * double(levels) / (ms * 1e-3) / 1e6 : 0.0;
}

json timing_json(const Timing& t) {
  json stages = json::object();
  for (const auto& [name, ms] : t.stages) stages[name] = ms;
  return {{"algorithm_ms", t.algorithm_ms}, {"upload_ms", t.upload_ms}, {"readback_ms", t.readback_ms},
          {"total_ms", t.total_ms()}, {"stages", stages}, {"clock", t.clock}};
}

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string fmt(double v, int precision) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}
std::string fmt(const std::optional<double>& v, int precision) { return v ? fmt(*v, precision) : "-"; }

/// "0..63": the disparities searched, as every output names them.
std::string range_text(DisparityRange r) { return std::to_string(r.min) + ".." + std::to_string(r.max()); }

/// The colour ramp over the searched range (min = the far end), so maps of different ranges
/// use the whole ramp and a map and its ground truth share one scale.
ImageU8 colorize_range(const ImageF& disparity, DisparityRange r) {
  ImageF shifted = disparity;
  for (float& v : shifted.data)
    if (std::isfinite(v)) v -= float(r.min);
  return colorize_disparity(shifted, float(r.count - 1));
}

std::optional<std::string> unavailable(const BackendEntry& e) { return e.unavailable ? e.unavailable() : std::nullopt; }

json method_json(const MethodInfo& m) {
  json accuracy = json::array();
  for (const PaperAccuracy& a : m.accuracy) {
    json when = json::object();
    for (const auto& [k, v] : a.when) when[k] = v;
    accuracy.push_back({{"scene", a.scene}, {"nonocc", optional_json(a.nonocc)}, {"all", optional_json(a.all)},
                        {"disc", optional_json(a.disc)}, {"when", when}});
  }
  json speed = json::array();
  for (const PaperSpeed& s : m.speed) {
    json set = json::object();  // the parameters the paper's cell ran with (SymStereo's N), if any
    for (const auto& [key, value] : s.set) set[key] = value;
    speed.push_back({{"width", s.width}, {"height", s.height}, {"levels", s.levels}, {"ms", optional_json(s.ms)},
                     {"mdes", optional_json(s.mdes)}, {"note", s.note}, {"set", set}});
  }
  return {{"name", m.name},
          {"title", m.title},
          {"citation", m.citation},
          {"accuracy_source", m.accuracy_source},
          {"accuracy_threshold", m.accuracy_threshold},
          {"accuracy_protocol", to_string(m.accuracy_protocol)},
          {"accuracy", accuracy},
          {"speed_source", m.speed_source},
          {"paper_gpu", m.paper_gpu},
          {"speed", speed},
          {"params", m.describe_params ? json(describe_lines(m.describe_params())) : json::array()}};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string warmup_text(const WarmUp& w) {
  std::ostringstream s;
  s << "untimed warm-up runs of the same matcher, pair and range: at least " << w.min_runs
    << (w.min_runs == 1 ? " run" : " runs") << " and " << w.min_ms << " ms (at most " << w.max_runs << " runs)";
  return s.str();
}

json warmup_json(const WarmUp& w) {
  return {{"min_runs", w.min_runs}, {"min_ms", w.min_ms}, {"max_runs", w.max_runs}, {"text", warmup_text(w)}};
}

int warm_up(const WarmUp& w, const std::function<void()>& run) {
  require(w.min_runs >= 1 && w.max_runs >= w.min_runs && w.min_ms >= 0.0 && std::isfinite(w.min_ms),
          "bench: the warm-up needs 1 <= min_runs <= max_runs and a finite min_ms >= 0, got min_runs " +
              std::to_string(w.min_runs) + ", max_runs " + std::to_string(w.max_runs) + ", min_ms " +
              fmt(w.min_ms, 1));
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  int runs = 0;
  const auto elapsed_ms = [&] { return std::chrono::duration<double, std::milli>(clock::now() - start).count(); };
  while (runs < w.max_runs && (runs < w.min_runs || elapsed_ms() < w.min_ms)) {
    run();
    ++runs;
  }
  return runs;
}

bool set_holds(const std::vector<std::pair<std::string, std::string>>& set, const json& params) {
  const auto as_text = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  return std::all_of(set.begin(), set.end(), [&](const auto& kv) {
    return params.is_object() && params.contains(kv.first) && as_text(params[kv.first]) == kv.second;
  });
}

json bench_one(Matcher& m, const MethodInfo& info, const std::string& backend, const BenchConfig& c, int repeat,
               const WarmUp& w, const EnergyWindow& e) {
  require(repeat >= 1, "bench: --repeat must be >= 1, got " + std::to_string(repeat));
  const int width = c.width, height = c.height, levels = c.range.count;
  const auto [left, right] = bench_pair(width, height);
  // The accounting first: it runs work of its own (a 512 MiB copy, a fetch-only pass), which
  // must not sit between the warm-up and the timed runs.
  const std::optional<MemoryStats> memory = m.memory_stats(width, height, c.range);
  const std::optional<FetchStats> fetch = m.fetch_stats(width, height, levels);
  // The warm-up is this matcher on this pair and range, so allocation, plans, shader
  // compilation and module load for exactly what is timed happen here, and the transient that
  // follows a size change settles before the first timed run.
  const int warmups = warm_up(w, [&] { m.compute(left, right, c.range); });
  // The device memory the matcher holds, at its most: read after the warm-up (which allocated
  // everything for this size), after the timed runs and after the energy window.
  std::optional<DeviceMemoryUse> held;
  const auto note_memory = [&] {
    const std::optional<DeviceMemoryUse> now = m.device_memory();
    if (now && (!held || now->bytes > held->bytes)) held = now;
  };
  note_memory();
  std::vector<double> alg, up, rb, tot;
  std::vector<std::pair<std::string, std::vector<double>>> stage_ms;  // in the backend's order
  std::string clock;
  for (int i = 0; i < repeat; ++i) {
    const StereoResult r = m.compute(left, right, c.range);
    for (const auto& [name, ms] : r.timing.stages) {
      auto it = std::find_if(stage_ms.begin(), stage_ms.end(), [&](const auto& s) { return s.first == name; });
      if (it == stage_ms.end()) it = stage_ms.insert(stage_ms.end(), {name, {}});
      it->second.push_back(ms);
    }
    alg.push_back(r.timing.algorithm_ms);
    up.push_back(r.timing.upload_ms);
    rb.push_back(r.timing.readback_ms);
    tot.push_back(r.timing.total_ms());
    clock = r.timing.clock;
  }
  note_memory();
  // The energy after the timed runs, so its window (a second or more) does not lie between the
  // warm-up and them.
  const json energy = measure_energy(
      m, [&] { m.compute(left, right, c.range); }, e, double(width) * double(height) * double(levels));
  note_memory();
  const double total = median(tot), algorithm = median(alg);
  json j = {{"method", info.name}, {"backend", backend}, {"revision", source_revision()}, {"device", m.device()},
            {"device_info", m.device_info()}, {"width", width}, {"height", height}, {"min_disparity", c.range.min}, {"levels", levels}, {"repeat", repeat},
            {"clock", clock}, {"algorithm_ms", algorithm}, {"upload_ms", median(up)}, {"readback_ms", median(rb)},
            {"total_ms", total}, {"fps", total > 0 ? 1000.0 / total : 0.0},
            {"mdes", mdes(width, height, levels, total)}, {"mdes_algorithm", mdes(width, height, levels, algorithm)}};
  // The spread of the repeats, so a reader can tell a difference from the noise, and each
  // repeat in order, so an outlier shows which run and which part (upload, algorithm,
  // read-back) it was.
  j["total_ms_min"] = *std::min_element(tot.begin(), tot.end());
  j["total_ms_max"] = *std::max_element(tot.begin(), tot.end());
  j["algorithm_ms_min"] = *std::min_element(alg.begin(), alg.end());
  j["algorithm_ms_max"] = *std::max_element(alg.begin(), alg.end());
  j["runs"] = {{"total_ms", tot}, {"algorithm_ms", alg}, {"upload_ms", up}, {"readback_ms", rb}};
  j["warmup_runs"] = warmups;
  if (c.paper) {
    const double ours = j["mdes"].get<double>();
    j["paper"] = {{"gpu", info.paper_gpu}, {"ms", optional_json(c.paper->ms)}, {"mdes", optional_json(c.paper->mdes)},
                  {"note", c.paper->note},
                  {"ratio_mdes", c.paper->mdes && *c.paper->mdes > 0 ? json(ours / *c.paper->mdes) : json(nullptr)}};
  } else {
    j["paper"] = nullptr;
  }
  // Per-stage medians, with the bytes each stage must move and the copy rate measured now
  // where the backend accounts them (GB/s counts bytes read + written, as the copy rate does).
  json stages = json::array();
  for (const auto& [name, times] : stage_ms) {
    json s = {{"name", name}, {"ms", median(times)}};
    if (memory)
      for (const auto& [stage, bytes] : memory->stage_bytes)
        if (stage == name) {
          const double ms = median(times);
          s["bytes"] = bytes;
          s["gb_s"] = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
          s["copy_share"] = memory->copy_gb_s > 0 ? s["gb_s"].get<double>() / memory->copy_gb_s : 0.0;
        }
    stages.push_back(s);
  }
  j["stages"] = stages;
  j["copy_gb_s"] = memory ? json(memory->copy_gb_s) : json(nullptr);
  add_floor(j, memory);
  j["device_memory_bytes"] = held ? json(held->bytes) : json(nullptr);
  j["device_memory_declared_bytes"] = held ? json(held->declared_bytes) : json(nullptr);
  j.update(energy);
  if (fetch) {
    const double achieved = algorithm > 0 ? fetch->fetches_per_run / (algorithm * 1e-3) / 1e9 : 0.0;
    j["fetch_gtexel_s"] = achieved;
    j["ceiling_gtexel_s"] = fetch->ceiling_gtexel_s;
    j["fetch_share"] = fetch->ceiling_gtexel_s > 0 ? achieved / fetch->ceiling_gtexel_s : 0.0;
    j["ceiling_pass"] = fetch->ceiling_pass;
  }
  return j;
}

std::pair<int, int> parse_size(const std::string& s, const std::string& what) {
  int w = 0, h = 0;
  char x = 0, extra = 0;
  std::istringstream in(s);
  if (!(in >> w >> x >> h) || (x != 'x' && x != 'X') || (in >> extra) || w <= 0 || h <= 0)
    throw Error(what + " expects WxH with positive integers, got '" + s + "'");
  return {w, h};
}

}  // namespace stereo::cli
