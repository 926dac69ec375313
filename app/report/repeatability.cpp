// Two runs of one command, cell by cell (app/report/repeatability.h).

#include "app/report/repeatability.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>

#include "app/measure.h"
#include "app/report/document.h"
#include "app/report/results_schema.h"
#include "core/error.h"

namespace stereo {
using nlohmann::json;
using cli::fmt;
using namespace report;

namespace {

/// The fields of a row that the repeatability check reads (see repeat_summary()).
constexpr std::array<const char*, 23> REPEAT_FIELDS = {
    "kind",         "method",           "backend",          "input",        "setting",      "width",
    "height",       "min_disparity",    "levels",           "set",          "status",       "device",
    "cpu",          "metrics",          "metrics_submitted", "total_ms",    "total_ms_min", "total_ms_max",
    "algorithm_ms", "algorithm_ms_min", "algorithm_ms_max", "upload_ms",    "readback_ms"};

/// A cell's identity across runs (occurrences are counted apart, see cell_keys()).
std::string cell_key(const json& row) {
  const json set = row.value("set", json::object());
  return text(row, "kind") + "|" + lane_of(row) + "|" + text(row, "input") + "|" + text(row, "setting") + "|" +
         size_of(row) + "|" + text(row, "min_disparity") + "|" + text(row, "levels") + "|" +
         (set.is_object() ? set.dump() : std::string("{}"));
}

/// A cell for people: "symstereo/cuda 384x288 x 7 paper wavelets=30", "salap/gl accuracy d/s1".
std::string cell_name(const json& row) {
  if (text(row, "kind") == "accuracy") return lane_of(row) + " accuracy " + text(row, "input");
  std::string t = lane_of(row) + " " + size_of(row) + " x " + text(row, "levels");
  if (const auto mn = num(row, "min_disparity"); mn && *mn != 0.0) t += " from " + text(row, "min_disparity");
  return t + " " + setting_text(row);
}

/// Each row's key with its occurrence: the k-th row of a key gets "#k" from the second on.
std::vector<std::string> cell_keys(const json& rows) {
  std::vector<std::string> keys;
  std::vector<std::pair<std::string, int>> seen;
  for (const json& r : rows) {
    const std::string k = cell_key(r);
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.first == k; });
    if (it == seen.end()) it = seen.insert(seen.end(), {k, 0});
    ++it->second;
    keys.push_back(it->second == 1 ? k : k + "#" + std::to_string(it->second));
  }
  return keys;
}

std::string occurrence_suffix(const std::string& key) {
  const auto hash = key.rfind('#');
  return hash == std::string::npos ? "" : " (" + key.substr(hash) + ")";
}

/// Runs on the host CPU, shared with whatever else the machine does: the CPU backends (they
/// name the CPU) and Mesa's llvmpipe (a GL "GPU" that is the CPU).
bool on_host_cpu(const json& row) {
  return (row.contains("cpu") && !row["cpu"].is_null()) || text(row, "device").find("llvmpipe") != std::string::npos;
}

/// The first metric of the rows' `field` that differs, `label` before its name, or "" when all
/// are equal.
std::string field_difference(const json& a, const json& b, const char* field, const std::string& label) {
  const json ma = a.value(field, json(nullptr)), mb = b.value(field, json(nullptr));
  if (ma == mb) return "";
  if (!ma.is_object() || !mb.is_object()) return label + "metrics " + ma.dump() + " here, " + mb.dump() + " there";
  for (const auto& [k, v] : ma.items())
    if (!mb.contains(k) || mb[k] != v) {
      std::ostringstream s;
      s << label << k << " " << std::setprecision(10) << v.dump() << " here, "
        << (mb.contains(k) ? mb[k].dump() : "none") << " there";
      return s.str();
    }
  for (const auto& [k, v] : mb.items())
    if (!ma.contains(k)) return label + k + " none here, " + v.dump() + " there";
  return label + "metrics differ";
}

/// Both rows scored their map as submitted too (documents from before it did not).
bool both_submitted(const json& a, const json& b) {
  return a.contains(SUBMITTED_METRICS) && b.contains(SUBMITTED_METRICS);
}

/// The first metric that differs between two accuracy rows, or "" when all are equal: where both
/// rows have both scores, the papers' protocol first ("submitted nonocc ...", then "float
/// nonocc ..."); else the float metrics ("nonocc ...").
std::string metric_difference(const json& a, const json& b) {
  if (!both_submitted(a, b)) return field_difference(a, b, FLOAT_METRICS, "");
  if (std::string d = field_difference(a, b, SUBMITTED_METRICS, "submitted "); !d.empty()) return d;
  return field_difference(a, b, FLOAT_METRICS, "float ");
}

/// "upload +0.740 ms": the part (upload, algorithm, read-back) whose median moved most.
std::string largest_change(const json& a, const json& b) {
  std::string best;
  double best_delta = -1.0, signed_delta = 0.0;
  for (const auto& [key, name] : std::array<std::pair<const char*, const char*>, 3>{
           {{"upload_ms", "upload"}, {"algorithm_ms", "algorithm"}, {"readback_ms", "read-back"}}}) {
    const auto x = num(a, key), y = num(b, key);
    if (!x || !y) continue;
    if (std::abs(*x - *y) > best_delta) best_delta = std::abs(*x - *y), signed_delta = *x - *y, best = name;
  }
  if (best.empty()) return "-";
  if (best_delta == 0.0) return "none";
  return best + " " + (signed_delta >= 0 ? "+" : "-") + fmt(std::abs(signed_delta), 3) + " ms";
}

/// A timed part of a speed row ("total", "algorithm"): its median and spread (max - min; 0
/// where the row lacks them). present: the row has the median.
struct Timed {
  bool present = false;
  double median = 0, spread = 0;
};

Timed timed(const json& row, const std::string& part) {
  const std::optional<double> median = num(row, (part + "_ms").c_str());
  const double m = median.value_or(0.0);
  return {median.has_value(), m,
          num(row, (part + "_ms_max").c_str()).value_or(m) - num(row, (part + "_ms_min").c_str()).value_or(m)};
}

}  // namespace

double repeat_tolerance(double median_a, double spread_a, double median_b, double spread_b) {
  return std::max(spread_a, spread_b) + REPEAT_FLOOR * std::max(median_a, median_b);
}

bool unsettled(double median, double fastest) { return median - fastest > REPEAT_UNSETTLED * median; }

bool speeds_agree(double median_a, double spread_a, double median_b, double spread_b) {
  return std::abs(median_a - median_b) <= repeat_tolerance(median_a, spread_a, median_b, spread_b);
}

json repeat_summary(const json& other, const std::string& source) {
  check_results(other, source);
  json rows = json::array();
  for (const json& r : other["rows"]) {
    json cut = json::object();
    for (const char* k : REPEAT_FIELDS)
      if (r.contains(k)) cut[k] = r[k];
    rows.push_back(cut);
  }
  return {{"source", source}, {"created", other["created"]}, {"command", other["command"]}, {"host", other["host"]},
          {"rows", rows}};
}

Repeatability compare_repeat(const json& doc) {
  require(doc.is_object() && doc.contains("repeat_of") && doc["repeat_of"].is_object(),
          "report: the results have no \"repeat_of\" run to compare with");
  const json& here = doc["rows"];
  const json& there = doc["repeat_of"]["rows"];
  const std::vector<std::string> keys_here = cell_keys(here), keys_there = cell_keys(there);
  Repeatability r;
  r.same_run = text(doc, "created") == text(doc["repeat_of"], "created") &&
               text(doc, "command") == text(doc["repeat_of"], "command");
  std::vector<bool> matched(there.size(), false);
  for (std::size_t i = 0; i < here.size(); ++i) {
    const json& a = here[i];
    const std::string name = cell_name(a) + occurrence_suffix(keys_here[i]);
    const auto it = std::find(keys_there.begin(), keys_there.end(), keys_here[i]);
    if (it == keys_there.end()) {
      r.only_here.push_back(name);
      continue;
    }
    const std::size_t j = std::size_t(it - keys_there.begin());
    matched[j] = true;
    const json& b = there[j];
    const std::string sa = text(a, "status"), sb = text(b, "status");
    if (text(a, "kind") == "accuracy") {
      ++r.accuracy_compared;
      if (sa != sb) {
        r.accuracy_differ.push_back(name + ": " + sa + " here, " + sb + " there");
      } else if (sa == "ok") {
        ++(both_submitted(a, b) ? r.accuracy_submitted : r.accuracy_float_only);
        if (const std::string d = metric_difference(a, b); !d.empty()) r.accuracy_differ.push_back(name + ": " + d);
      }
      continue;
    }
    if (sa != sb) {
      r.speed_status_differ.push_back(name + ": " + sa + " here, " + sb + " there");
      continue;
    }
    if (sa != "ok") continue;  // refused or skipped in both: nothing timed
    Repeatability::Speed c;
    c.cell = name;
    c.host_cpu = on_host_cpu(a) || on_host_cpu(b);
    const Timed total = timed(a, "total"), other_total = timed(b, "total");
    c.median = total.median;
    c.spread = total.spread;
    c.other_median = other_total.median;
    c.other_spread = other_total.spread;
    c.ratio = c.other_median > 0 ? c.median / c.other_median : 0.0;
    c.tolerance = repeat_tolerance(c.median, c.spread, c.other_median, c.other_spread);
    c.agrees = speeds_agree(c.median, c.spread, c.other_median, c.other_spread);
    const Timed algorithm = timed(a, "algorithm"), other_algorithm = timed(b, "algorithm");
    c.algorithm_median = algorithm.median;
    c.other_algorithm_median = other_algorithm.median;
    c.algorithm_agrees = algorithm.present && other_algorithm.present &&
                         speeds_agree(algorithm.median, algorithm.spread, other_algorithm.median, other_algorithm.spread);
    c.unsettled_here = unsettled(c.median, num(a, "total_ms_min").value_or(c.median));
    c.unsettled_there = unsettled(c.other_median, num(b, "total_ms_min").value_or(c.other_median));
    c.largest_change = largest_change(a, b);
    r.speed.push_back(c);
  }
  for (std::size_t j = 0; j < there.size(); ++j)
    if (!matched[j]) r.only_there.push_back(cell_name(there[j]) + occurrence_suffix(keys_there[j]));
  return r;
}

std::string repeat_headline(const Repeatability& r) {
  int gpu = 0, gpu_ok = 0, gpu_algorithm_ok = 0, gpu_unsettled = 0, cpu = 0, cpu_ok = 0;
  for (const auto& c : r.speed) {
    (c.host_cpu ? cpu : gpu)++;
    (c.host_cpu ? cpu_ok : gpu_ok) += c.agrees;
    if (c.host_cpu) continue;
    gpu_unsettled += c.unsettled_here || c.unsettled_there;
    gpu_algorithm_ok += c.algorithm_agrees;
  }
  std::string t = "repeatability: accuracy " + std::to_string(r.accuracy_compared - int(r.accuracy_differ.size())) +
                  "/" + std::to_string(r.accuracy_compared) + " identical; GPU speed " + std::to_string(gpu_ok) + "/" +
                  std::to_string(gpu) + " agree (algorithm alone " + std::to_string(gpu_algorithm_ok) + "/" +
                  std::to_string(gpu) + "), " + std::to_string(gpu_unsettled) + " unsettled; host CPU speed " +
                  std::to_string(cpu_ok) + "/" + std::to_string(cpu) + " agree";
  if (!r.speed_status_differ.empty())
    t += "; " + std::to_string(r.speed_status_differ.size()) + " timed in one run only";
  if (!r.only_here.empty() || !r.only_there.empty())
    t += "; " + std::to_string(r.only_here.size() + r.only_there.size()) + " cells in one run only";
  return t;
}

}  // namespace stereo
