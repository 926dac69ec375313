// The comparison report from results.json alone (host/report.h). Every method, backend,
// scene and paper figure comes from the document; nothing here names one.

#include "app/report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>

#include "app/measure.h"
#include "core/error.h"
#include "app/image_io.h"
#include "app/montage.h"
#include "core/registry.h"

namespace stereo {
namespace fs = std::filesystem;
using nlohmann::json;
using cli::fmt;

namespace {

// ---- reading the document -------------------------------------------------------------

std::optional<double> num(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string text(const json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

/// A ratio with two decimals, or two significant digits below 0.1 (a CPU against a GPU).
std::string ratio_text(const std::optional<double>& v) {
  if (!v || *v >= 0.1) return fmt(v, 2);
  std::ostringstream s;
  s << std::setprecision(2) << *v;
  return s.str();
}

bool ok(const json& row) { return text(row, "status") == "ok"; }

std::string lane_of(const json& row) { return text(row, "method") + "/" + text(row, "backend"); }

std::string size_of(const json& row) { return text(row, "width") + "x" + text(row, "height"); }

/// The driver: CUDA backends give it as "driver", GL ones inside the context's "version"
/// string ("4.5.0 NVIDIA 580.95.05").
std::string driver_of(const json& device_info) {
  const std::string d = text(device_info, "driver");
  return d.empty() ? text(device_info, "version") : d;
}

/// The device a row ran on, with the GPU's UUID and driver where the backend gives them.
std::string device_text(const json& row) {
  const json& d = row.value("device_info", json(nullptr));
  std::string t = text(d, "name");
  if (t.empty()) t = text(row, "device");
  if (!text(d, "uuid").empty()) t += " (" + text(d, "uuid") + ")";
  if (!driver_of(d).empty()) t += ", driver " + driver_of(d);
  return t;
}

/// A speed row's setting with the parameter overrides it ran with: "paper wavelets=30".
std::string setting_text(const json& row) {
  std::string t = text(row, "setting");
  const json set = row.value("set", json::object());
  if (set.is_object())
    for (const auto& [k, v] : set.items()) t += " " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return t;
}

std::vector<const json*> rows_where(const json& doc, const std::string& kind, const std::string& method) {
  std::vector<const json*> out;
  for (const json& r : doc["rows"])
    if (text(r, "kind") == kind && (method.empty() || text(r, "method") == method)) out.push_back(&r);
  return out;
}

/// Lanes ("method/backend") in the order the document lists its backends.
std::vector<std::string> lanes(const json& doc, const std::string& method = "") {
  std::vector<std::string> out;
  for (const json& b : doc["backends"])
    if (method.empty() || text(b, "method") == method) out.push_back(lane_of(b));
  return out;
}

std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
  return o;
}

std::string row_line(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const std::string& c : cells) {
    s += ' ';
    s += md_cell(c);
    s += " |";
  }
  return s + "\n";
}

std::string header_lines(const std::vector<std::string>& cells) {
  std::string s = row_line(cells) + "|";
  for (std::size_t i = 0; i < cells.size(); ++i) s += "---|";
  return s + "\n";
}

/// The mean of a metric over a lane's ok accuracy rows of one dataset, if any has it.
std::optional<double> mean_metric(const std::vector<const json*>& rows, const std::string& lane,
                                  const std::string& dataset, const char* key) {
  double sum = 0.0;
  int n = 0;
  for (const json* r : rows)
    if (ok(*r) && lane_of(*r) == lane && text(*r, "dataset") == dataset)
      if (const auto v = num((*r)["metrics"], key)) sum += *v, ++n;
  return n ? std::optional(sum / n) : std::nullopt;
}

std::vector<std::string> datasets_of(const std::vector<const json*>& rows) {
  std::vector<std::string> out;
  for (const json* r : rows)
    if (std::find(out.begin(), out.end(), text(*r, "dataset")) == out.end()) out.push_back(text(*r, "dataset"));
  return out;
}

// ---- report.md ------------------------------------------------------------------------

void accuracy_section(std::ostringstream& md, const json& doc) {
  md << "## Accuracy\n\nBad pixels (%): |d - ground truth| > the scene format's threshold (Middlebury v2: 1 px "
        "over nonocc / all / disc; MiddEval3: 2 px over the non-occluded mask, 'all' over every pixel with ground "
        "truth). The paper's figures stand beside ours only where the paper gives that scene at that threshold. "
        "Time: one run (after one untimed warm-up on non-`cpu` backends), upload + algorithm + read-back.\n\n";
  for (const json& m : doc["methods"]) {
    const std::string name = text(m, "name");
    const auto rows = rows_where(doc, "accuracy", name);
    if (rows.empty()) continue;
    md << "### " << name << ": " << text(m, "title") << "\n\n" << text(m, "citation") << ".  \nPaper: "
       << (text(m, "accuracy_source").empty() ? "no accuracy table" : text(m, "accuracy_source")) << ".\n\n";
    md << header_lines({"input", "backend", "size", "threshold", "nonocc", "all", "disc", "avg err", "density",
                        "ms", "paper nonocc", "paper all", "paper disc"});
    for (const json* r : rows) {
      const json& me = r->value("metrics", json(nullptr));
      const json& pa = r->value("paper", json(nullptr));
      if (!ok(*r)) {
        md << row_line({text(*r, "input"), text(*r, "backend"), size_of(*r), "", text(*r, "status"), "", "", "", "",
                        "", "", "", ""});
        continue;
      }
      md << row_line({text(*r, "input"), text(*r, "backend"), size_of(*r), fmt(num(*r, "threshold"), 1),
                      fmt(num(me, "nonocc")), fmt(num(me, "all")), fmt(num(me, "disc")), fmt(num(me, "avg_error")),
                      fmt(num(me, "density"), 1), fmt(num(*r, "total_ms"), 1), fmt(num(pa, "nonocc")),
                      fmt(num(pa, "all")), fmt(num(pa, "disc"))});
    }
    // Averages per dataset and backend, and ours beside the paper's over the scenes where both
    // give a column's figure (the same convention as `stereo eval`).
    md << "\nAverages per dataset (ours over every scene; 'vs paper': ours and the paper's over the scenes where "
          "both have the figure):\n\n";
    md << header_lines({"dataset", "backend", "nonocc", "all", "disc", "vs paper: nonocc ours / paper",
                        "all ours / paper", "disc ours / paper"});
    for (const std::string& d : datasets_of(rows))
      for (const std::string& lane : lanes(doc, name)) {
        std::vector<std::string> cells = {d, lane.substr(name.size() + 1)};
        bool any = false;
        for (const char* k : {"nonocc", "all", "disc"}) {
          const auto v = mean_metric(rows, lane, d, k);
          any = any || v;
          cells.push_back(fmt(v));
        }
        if (!any) continue;
        for (const char* k : {"nonocc", "all", "disc"}) {
          double ours = 0.0, paper = 0.0;
          int n = 0;
          for (const json* r : rows)
            if (ok(*r) && lane_of(*r) == lane && text(*r, "dataset") == d) {
              const auto o = num(r->value("metrics", json(nullptr)), k);
              const auto p = num(r->value("paper", json(nullptr)), k);
              if (o && p) ours += *o, paper += *p, ++n;
            }
          cells.push_back(n ? fmt(ours / n) + " / " + fmt(paper / n) + " (" + std::to_string(n) + ")" : "-");
        }
        md << row_line(cells);
      }
    md << "\n";
  }
}

void speed_section(std::ostringstream& md, const json& doc) {
  const json& s = doc["settings"];
  md << "## Speed\n\nMde/s = width x height x disparities / time (million disparity evaluations per second) over "
        "the total time: upload of both images + algorithm + read-back of the disparity map; 'alg Mde/s' over the "
        "algorithm time alone. Each cell: median of "
     << text(s, "repeats") << " timed runs after "
     << (s.contains("warmup") ? text(s["warmup"], "text") : std::string("one untimed warm-up run"))
     << "; the spread is the fastest and slowest of "
     << "those runs. Inputs: " << text(s, "speed_input")
     << " (speed does not depend on content). 'grid' cells are the size x levels grid, 'paper' cells each "
        "paper's own settings.\n\n";
  for (const json& m : doc["methods"]) {
    const std::string name = text(m, "name");
    const auto rows = rows_where(doc, "speed", name);
    if (rows.empty()) continue;
    md << "### " << name << "\n\nPaper: " << (text(m, "speed_source").empty() ? "-" : text(m, "speed_source"))
       << "; the paper's GPU: " << (text(m, "paper_gpu").empty() ? "-" : text(m, "paper_gpu")) << ".\n\n";
    md << header_lines({"backend", "device", "size", "levels", "setting", "total ms (median)", "spread ms",
                        "alg ms", "Mde/s", "alg Mde/s", "ns/de", "paper Mde/s", "ours / paper"});
    for (const json* r : rows) {
      if (!ok(*r)) {
        md << row_line({text(*r, "backend"), "", size_of(*r), text(*r, "levels"), setting_text(*r),
                        text(*r, "status"), "", "", "", "", "", "", ""});
        continue;
      }
      const json& pa = r->value("paper", json(nullptr));
      md << row_line({text(*r, "backend"), device_text(*r), size_of(*r), text(*r, "levels"), setting_text(*r),
                      fmt(num(*r, "total_ms"), 3),
                      fmt(num(*r, "total_ms_min"), 3) + " .. " + fmt(num(*r, "total_ms_max"), 3),
                      fmt(num(*r, "algorithm_ms"), 3), fmt(num(*r, "mdes"), 1), fmt(num(*r, "mdes_algorithm"), 1),
                      fmt(num(*r, "ns_per_de"), 3), fmt(num(pa, "mdes"), 0), ratio_text(num(pa, "ratio_mdes"))});
    }
    md << "\n";
  }
}

/// Render-pass and compute shaders against CUDA on one GPU: for every method with a `cuda`
/// backend and at least one `gl*` backend, their Mde/s side by side per timed input.
void shader_section(std::ostringstream& md, const json& doc) {
  bool title = false;
  for (const json& m : doc["methods"]) {
    const std::string name = text(m, "name");
    const auto rows = rows_where(doc, "speed", name);
    std::vector<std::string> shaders;
    bool cuda = false;
    for (const std::string& lane : lanes(doc, name)) {
      const std::string b = lane.substr(name.size() + 1);
      if (b == "cuda") cuda = true;
      else if (b.rfind("gl", 0) == 0) shaders.push_back(b);
    }
    if (!cuda || shaders.empty() || rows.empty()) continue;
    if (!title)
      md << "## Shaders against CUDA\n\nMde/s over the total time on each backend's device; 'shader / CUDA' is "
            "the ratio of the Mde/s (above 1: the shader is faster).\n\n";
    title = true;
    md << "### " << name << "\n\n";
    std::vector<std::string> head = {"size", "levels", "setting"};
    for (const std::string& b : shaders) head.push_back(b + " Mde/s");
    head.push_back("cuda Mde/s");
    for (const std::string& b : shaders) head.push_back(b + " / CUDA");
    md << header_lines(head);
    std::vector<std::string> seen;
    for (const json* r : rows) {
      const std::string key = size_of(*r) + " " + text(*r, "levels") + " " + setting_text(*r);
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      const auto mdes_of = [&](const std::string& b) -> std::optional<double> {
        for (const json* q : rows)
          if (ok(*q) && text(*q, "backend") == b &&
              size_of(*q) + " " + text(*q, "levels") + " " + setting_text(*q) == key)
            return num(*q, "mdes");
        return std::nullopt;
      };
      std::vector<std::string> cells = {size_of(*r), text(*r, "levels"), setting_text(*r)};
      const auto c = mdes_of("cuda");
      for (const std::string& b : shaders) cells.push_back(fmt(mdes_of(b), 1));
      cells.push_back(fmt(c, 1));
      for (const std::string& b : shaders) {
        const auto g = mdes_of(b);
        cells.push_back(g && c && *c > 0 ? fmt(*g / *c, 2) : "-");
      }
      md << row_line(cells);
    }
    md << "\n";
  }
}

void paper_speed_section(std::ostringstream& md, const json& doc) {
  std::vector<const json*> rows;
  for (const json* r : rows_where(doc, "speed", ""))
    if (ok(*r) && num(r->value("paper", json(nullptr)), "mdes")) rows.push_back(r);
  if (rows.empty()) return;
  md << "## Against the papers' speed figures\n\nOurs on our device against each paper's published Mde/s on the "
        "paper's GPU, at the paper's own setting (where the paper gives a time but no Mde/s, the figure is derived "
        "from that time as its MethodInfo says).\n\n";
  md << header_lines({"method", "backend", "our device", "size", "levels", "ours Mde/s", "paper Mde/s", "paper GPU",
                      "ours / paper", "paper note"});
  for (const json* r : rows)
    md << row_line({text(*r, "method"), text(*r, "backend"), device_text(*r), size_of(*r), text(*r, "levels"),
                    fmt(num(*r, "mdes"), 1), fmt(num((*r)["paper"], "mdes"), 0), text((*r)["paper"], "gpu"),
                    ratio_text(num((*r)["paper"], "ratio_mdes")), text((*r)["paper"], "note")});
  md << "\n";
}

void not_run_section(std::ostringstream& md, const json& doc) {
  std::vector<std::string> lines;
  for (const json& b : doc["backends"])
    if (!b.value("available", false)) lines.push_back("- " + lane_of(b) + ": not run: " + text(b, "reason"));
  for (const json& r : doc["rows"])
    if (!ok(r))
      lines.push_back("- " + lane_of(r) + " " + text(r, "kind") + " " + text(r, "input") + " x " + text(r, "levels") +
                      ": " + text(r, "status") + ": " + text(r, "reason"));
  if (lines.empty()) return;
  md << "## Not run, refused or failed\n\n";
  for (const std::string& l : lines) md << l << "\n";
  md << "\n";
}

// ---- repeatability ---------------------------------------------------------------------

/// The fields of a row that the repeatability check reads (see repeat_summary()).
constexpr std::array<const char*, 22> REPEAT_FIELDS = {
    "kind",         "method",           "backend",          "input",     "setting",    "width",
    "height",       "min_disparity",    "levels",           "set",       "status",     "device",
    "cpu",          "metrics",          "total_ms",         "total_ms_min", "total_ms_max", "algorithm_ms",
    "algorithm_ms_min", "algorithm_ms_max", "upload_ms",    "readback_ms"};

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

/// The first metric that differs between two accuracy rows, or "" when all are equal.
std::string metric_difference(const json& a, const json& b) {
  const json ma = a.value("metrics", json(nullptr)), mb = b.value("metrics", json(nullptr));
  if (ma == mb) return "";
  if (!ma.is_object() || !mb.is_object()) return "metrics " + ma.dump() + " here, " + mb.dump() + " there";
  for (const auto& [k, v] : ma.items())
    if (!mb.contains(k) || mb[k] != v) {
      std::ostringstream s;
      s << k << " " << std::setprecision(10) << v.dump() << " here, " << (mb.contains(k) ? mb[k].dump() : "none")
        << " there";
      return s.str();
    }
  for (const auto& [k, v] : mb.items())
    if (!ma.contains(k)) return k + " none here, " + v.dump() + " there";
  return "metrics differ";
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

void speed_table(std::ostringstream& md, const std::vector<Repeatability::Speed>& cells, bool host_cpu) {
  md << header_lines({"cell", "median ms (this run)", "spread ms", "median ms (other run)", "spread ms",
                      "this / other", "tolerance ms", "agree", "largest change (this - other)"});
  for (const auto& c : cells)
    if (c.host_cpu == host_cpu)
      md << row_line({c.cell, fmt(c.median, 3) + (c.unsettled_here ? " (unsettled)" : ""), fmt(c.spread, 3),
                      fmt(c.other_median, 3) + (c.unsettled_there ? " (unsettled)" : ""), fmt(c.other_spread, 3),
                      fmt(c.ratio, 3), fmt(c.tolerance, 3), c.agrees ? "yes" : "**no**", c.largest_change});
  md << "\n";
}

void repeat_section(std::ostringstream& md, const json& doc) {
  if (!doc.contains("repeat_of")) return;
  const Repeatability r = compare_repeat(doc);
  const json& other = doc["repeat_of"];
  md << "## Repeatability\n\nThis run (made " << text(doc, "created") << ") against the run made "
     << text(other, "created") << " by `" << text(other, "command") << "` on " << text(other["host"], "cpu")
     << ", read from " << text(other, "source") << " by `stereo report DIR --repeat-of " << text(other, "source")
     << "` and kept in this results.json under \"repeat_of\", so `stereo report DIR` remakes this section from "
        "this file alone.\n\n";
  if (r.same_run)
    md << "**Both documents carry the same creation time and command: this compares a run with itself.**\n\n";
  const auto list = [&](const std::vector<std::string>& items) {
    for (const std::string& i : items) md << "- " << i << "\n";
    if (!items.empty()) md << "\n";
  };
  md << "**Accuracy:** " << r.accuracy_compared - int(r.accuracy_differ.size()) << " of " << r.accuracy_compared
     << " cells identical (the same status and every stored metric equal to the last digit).";
  if (r.accuracy_differ.empty()) md << "\n\n";
  else md << " Differing:\n\n";
  list(r.accuracy_differ);
  int gpu = 0, gpu_ok = 0, gpu_ms = 0, gpu_ms_ok = 0, cpu = 0, cpu_ok = 0;
  for (const auto& c : r.speed) {
    if (c.host_cpu) {
      ++cpu;
      cpu_ok += c.agrees;
      continue;
    }
    ++gpu;
    gpu_ok += c.agrees;
    if (std::max(c.median, c.other_median) >= 1.0) ++gpu_ms, gpu_ms_ok += c.agrees;
  }
  md << "**Speed, the noise:** a speed cell's two medians (total time: upload + algorithm + read-back) agree when "
        "they differ by no more than the larger of the two runs' spreads (slowest minus fastest of the cell's timed "
        "runs, the spread of the speed table) plus "
     << fmt(100.0 * REPEAT_FLOOR, 0)
     << " % of the larger median. The spread is how far one run's own repeats scatter; a median of such repeats "
        "that lies further from the other run's median than either run's whole scatter is a change, not noise: for "
        "two runs of 5 repeats drawn from one distribution that happens to under 1 % of cells even without the floor "
        "(simulated: 0.9 % for uniform, 0.4 % for normal, 0.2 % for exponential or log-normal noise). The "
     << fmt(100.0 * REPEAT_FLOOR, 0)
     << " % floor is for cells whose repeats are nearly identical within a run while the whole run's level moves "
        "with the GPU's clock and temperature.\n\n";
  md << "**GPU cells:** " << gpu_ok << " of " << gpu << " agree (" << gpu_ms_ok << " of " << gpu_ms
     << " with a median of 1 ms or more).";
  std::vector<std::string> disagree;
  for (const auto& c : r.speed)
    if (!c.agrees && !c.host_cpu)
      disagree.push_back(c.cell + ": " + fmt(c.median, 3) + " ms against " + fmt(c.other_median, 3) + " ms (x" +
                         fmt(c.ratio, 2) + ", tolerance " + fmt(c.tolerance, 3) + " ms; " + c.largest_change + ")");
  md << (disagree.empty() ? "\n\n" : " Disagreeing:\n\n");
  list(disagree);
  // The algorithm part alone: where the totals disagree only through upload or read-back (the
  // copies from and to pageable host memory), this says whether the GPU work itself repeated.
  std::vector<std::string> algorithm_disagree;
  for (const auto& c : r.speed)
    if (!c.host_cpu && !c.algorithm_agrees)
      algorithm_disagree.push_back(c.cell + ": algorithm " + fmt(c.algorithm_median, 3) + " ms against " +
                                   fmt(c.other_algorithm_median, 3) + " ms");
  md << "**GPU cells, algorithm time alone** (the same rule on the algorithm part's medians and spreads, upload and "
        "read-back left out): "
     << gpu - int(algorithm_disagree.size()) << " of " << gpu << " agree."
     << (algorithm_disagree.empty() ? "\n\n" : " Disagreeing:\n\n");
  list(algorithm_disagree);
  std::vector<std::string> restless;
  for (const auto& c : r.speed)
    if (!c.host_cpu && (c.unsettled_here || c.unsettled_there))
      restless.push_back(c.cell + ": " +
                         (c.unsettled_here && c.unsettled_there ? std::string("both runs")
                          : c.unsettled_here                    ? std::string("this run")
                                                                : std::string("the other run")) +
                         " (medians " + fmt(c.median, 3) + " and " + fmt(c.other_median, 3) + " ms; " +
                         c.largest_change + ")");
  md << "**Unsettled GPU cells:** " << restless.size()
     << " (a run's median more than " << fmt(100.0 * REPEAT_UNSETTLED, 0)
     << " % above its own fastest run: at least half of its timed runs carried a cost the fastest did not, so its "
        "spread is wide and the rule above is loose for it; named here whether they agree or not).";
  md << "\n\n";
  list(restless);
  md << "**Host-CPU cells** (the CPU backends and Mesa's llvmpipe, on a host CPU shared with other work; apart from "
        "the GPU cells): "
     << cpu_ok << " of " << cpu << " agree.";
  disagree.clear();
  for (const auto& c : r.speed)
    if (!c.agrees && c.host_cpu)
      disagree.push_back(c.cell + ": " + fmt(c.median, 3) + " ms against " + fmt(c.other_median, 3) + " ms (x" +
                         fmt(c.ratio, 2) + ", tolerance " + fmt(c.tolerance, 3) + " ms)");
  md << (disagree.empty() ? "\n\n" : " Disagreeing:\n\n");
  list(disagree);
  if (!r.speed_status_differ.empty()) {
    md << "**Speed cells timed in one run only** (a different status):\n\n";
    list(r.speed_status_differ);
  }
  if (!r.only_here.empty()) {
    md << "**Cells only in this run:**\n\n";
    list(r.only_here);
  }
  if (!r.only_there.empty()) {
    md << "**Cells only in the other run:**\n\n";
    list(r.only_there);
  }
  if (gpu) {
    md << "### GPU speed cells\n\n";
    speed_table(md, r.speed, false);
  }
  if (cpu) {
    md << "### Host-CPU speed cells\n\n";
    speed_table(md, r.speed, true);
  }
}

// ---- CSV --------------------------------------------------------------------------------

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string csv_value(const json& row, const std::string& column) {
  const json& me = row.value("metrics", json(nullptr));
  const json& pa = row.value("paper", json(nullptr));
  const json& dev = row.value("device_info", json(nullptr));
  const auto n = [](const std::optional<double>& v) {
    if (!v) return std::string();
    std::ostringstream s;
    s.precision(10);
    s << *v;
    return s.str();
  };
  if (column == "bad_nonocc") return n(num(me, "nonocc"));
  if (column == "bad_all") return n(num(me, "all"));
  if (column == "bad_disc") return n(num(me, "disc"));
  if (column == "avg_error") return n(num(me, "avg_error"));
  if (column == "density") return n(num(me, "density"));
  if (column == "d1_all") return n(num(me, "d1_all"));
  if (column == "paper_nonocc") return n(num(pa, "nonocc"));
  if (column == "paper_all") return n(num(pa, "all"));
  if (column == "paper_disc") return n(num(pa, "disc"));
  if (column == "paper_mdes") return n(num(pa, "mdes"));
  if (column == "paper_ms") return n(num(pa, "ms"));
  if (column == "paper_gpu") return text(pa, "gpu");
  if (column == "ratio_mdes") return n(num(pa, "ratio_mdes"));
  if (column == "paper_note") return text(pa, "note");
  if (column == "device") return text(dev, "name").empty() ? text(row, "device") : text(dev, "name");
  if (column == "device_uuid") return text(dev, "uuid");
  if (column == "driver") return driver_of(dev);
  if (column == "params") return row.contains("params") ? row["params"].dump() : "";
  if (const auto v = num(row, column.c_str())) return n(v);
  return text(row, column.c_str());
}

// ---- montages -----------------------------------------------------------------------------

constexpr int TILE_WIDTH = 360;  // a montage of two tiles stays readable on one screen

/// One grid picture per scene (app/montage.h): first row the left view and the ground truth,
/// then one row per method/backend with its disparity and error maps, each row labelled in the
/// picture as report.md lists it. Returns (file, row labels); adds the files it wrote to
/// `written`.
std::vector<std::pair<std::string, std::vector<std::string>>> write_montages(const json& doc, const fs::path& dir,
                                                                            std::vector<std::string>& written) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  std::vector<std::string> inputs;
  for (const json* r : rows_where(doc, "accuracy", ""))
    if (std::find(inputs.begin(), inputs.end(), text(*r, "input")) == inputs.end()) inputs.push_back(text(*r, "input"));
  for (const std::string& input : inputs) {
    std::vector<std::pair<std::string, std::array<std::string, 2>>> grid;  // label, two files
    for (const json* r : rows_where(doc, "accuracy", "")) {
      if (text(*r, "input") != input || !r->contains("maps") || !(*r)["maps"].is_object()) continue;
      const json& m = (*r)["maps"];
      if (grid.empty()) grid.push_back({"left view | ground truth", {text(m, "left"), text(m, "gt")}});
      grid.push_back({lane_of(*r) + ": disparity | error", {text(m, "disparity"), text(m, "error")}});
    }
    if (grid.size() < 2) continue;
    std::vector<MontageRow> rows;
    bool any_tile = false;
    for (const auto& [label, files] : grid) {
      MontageRow row{label, {}, {}};
      for (int i = 0; i < 2; ++i)
        if (!files[std::size_t(i)].empty() && fs::exists(dir / files[std::size_t(i)])) {
          (i == 0 ? row.left : row.right) = shrink(read_image(dir / files[std::size_t(i)]), TILE_WIDTH);
          any_tile = true;
        }
      rows.push_back(std::move(row));
    }
    std::string name = input;
    std::replace(name.begin(), name.end(), '/', '-');
    const std::string file = (fs::path("maps") / ("montage_" + name + ".png")).string();
    std::vector<std::string> labels;
    for (const auto& g : grid) labels.push_back(g.first);
    if (!any_tile) {
      // No map of this scene is here (a results folder kept without its maps): an existing
      // montage, made where the maps were, still stands for the same rows.
      if (fs::exists(dir / file)) out.push_back({file, labels});
      continue;
    }
    const ImageU8 canvas = compose_montage(input, rows);
    fs::create_directories(dir / "maps");
    write_png(dir / file, canvas);
    written.push_back(file);
    out.push_back({file, labels});
  }
  return out;
}

// ---- plots ------------------------------------------------------------------------------

void write_text(const fs::path& path, const std::string& content) {
  write_atomically(path, [&](const fs::path& tmp) {
    std::ofstream f(tmp);
    f << content;
    if (!f) throw Error("report: cannot write " + path.string());
  });
}

/// gnuplot titles: no spaces (word() splits on them) and no underscores (enhanced text).
std::string plot_title(std::string s) {
  std::replace(s.begin(), s.end(), ' ', '-');
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

struct PlotScript {
  std::string name;    ///< stem of the .gp, .dat and .png
  std::string script;  ///< gnuplot commands
};

/// Mde/s against levels, one line per method/backend, one plot per grid size.
std::vector<PlotScript> throughput_plots(const json& doc, const fs::path& plots) {
  std::vector<PlotScript> out;
  std::vector<std::string> sizes;
  for (const json* r : rows_where(doc, "speed", ""))
    if (ok(*r) && text(*r, "setting") == "grid" &&
        std::find(sizes.begin(), sizes.end(), size_of(*r)) == sizes.end())
      sizes.push_back(size_of(*r));
  for (const std::string& size : sizes) {
    std::ostringstream dat;
    std::vector<std::string> titles;
    for (const std::string& lane : lanes(doc)) {
      std::vector<std::pair<int, double>> pts;
      for (const json* r : rows_where(doc, "speed", ""))
        if (ok(*r) && lane_of(*r) == lane && text(*r, "setting") == "grid" && size_of(*r) == size)
          pts.push_back({(*r)["levels"].get<int>(), num(*r, "mdes").value_or(0.0)});
      if (pts.empty()) continue;
      std::sort(pts.begin(), pts.end());
      dat << "# " << lane << "\n";
      for (const auto& [l, v] : pts) dat << l << " " << v << "\n";
      dat << "\n\n";
      titles.push_back(plot_title(lane));
    }
    if (titles.empty()) continue;
    const std::string name = "mdes_vs_levels_" + size;
    write_text(plots / (name + ".dat"), dat.str());
    std::string words;
    for (const std::string& t : titles) words += (words.empty() ? "" : " ") + t;
    std::ostringstream gp;
    gp << "set terminal pngcairo size 900,600 noenhanced\nset output '" << name << ".png'\n"
       << "set title 'Throughput at " << size << " (median, upload + algorithm + read-back)'\n"
       << "set xlabel 'disparity levels'\nset ylabel 'Mde/s'\nset logscale x 2\nset logscale y 10\n"
       << "set key outside right\nset grid\ntitles = '" << words << "'\n"
       << "plot for [i=0:" << titles.size() - 1 << "] '" << name
       << ".dat' index i using 1:2 with linespoints lw 2 title word(titles, i+1)\n";
    out.push_back({name, gp.str()});
  }
  return out;
}

/// Error against nanoseconds per disparity estimate on a log2 axis (the Pareto view of Yu et
/// al.'s Fig. 15): one point per method/backend and dataset, the mean bad % over the dataset's
/// scenes (non-occluded mask) against the median ns/de of the same accuracy runs.
std::optional<PlotScript> pareto_plot(const json& doc, const fs::path& plots) {
  const auto rows = rows_where(doc, "accuracy", "");
  std::ostringstream dat;
  std::vector<std::string> titles;
  for (const std::string& d : datasets_of(rows)) {
    std::ostringstream block;
    int points = 0;
    for (const std::string& lane : lanes(doc)) {
      const auto bad = mean_metric(rows, lane, d, "nonocc");
      std::vector<double> ns;
      for (const json* r : rows)
        if (ok(*r) && lane_of(*r) == lane && text(*r, "dataset") == d)
          if (const auto v = num(*r, "ns_per_de")) ns.push_back(*v);
      if (!bad || ns.empty()) continue;
      block << cli::median(ns) << " " << *bad << " " << plot_title(lane) << "\n";
      ++points;
    }
    if (!points) continue;
    dat << "# " << d << ": ns/de, bad nonocc %, method/backend\n" << block.str() << "\n\n";
    titles.push_back(plot_title(d));
  }
  if (titles.empty()) return std::nullopt;
  const std::string name = "pareto";
  write_text(plots / (name + ".dat"), dat.str());
  std::string words;
  for (const std::string& t : titles) words += (words.empty() ? "" : " ") + t;
  std::ostringstream gp;
  gp << "set terminal pngcairo size 1000,700 noenhanced\nset output '" << name << ".png'\n"
     << "set title 'Error against time per disparity estimate (accuracy runs; lower left is better)'\n"
     << "set xlabel 'ns per disparity estimate (log2)'\nset ylabel 'bad pixels, non-occluded (%)'\n"
     << "set logscale x 2\nset grid\nset key outside right\ntitles = '" << words << "'\n"
     << "plot for [i=0:" << titles.size() - 1 << "] '" << name
     << ".dat' index i using 1:2 with points pt 7 ps 1.5 title word(titles, i+1), \\\n"
     << "     for [i=0:" << titles.size() - 1 << "] '" << name
     << ".dat' index i using 1:2:3 with labels offset 1,0.6 font ',8' notitle\n";
  return PlotScript{name, gp.str()};
}

}  // namespace

// ---- public -------------------------------------------------------------------------------

void check_results(const json& doc, const std::string& what) {
  const auto need = [&](const json& j, const char* key, json::value_t type, const std::string& where) {
    require(j.is_object() && j.contains(key), what + ": " + where + " has no \"" + key + "\"");
    const json& v = j[key];
    const bool number_ok = type == json::value_t::number_float && v.is_number();
    require(v.type() == type || number_ok,
            what + ": " + where + " \"" + key + "\" is " + v.type_name());
  };
  require(doc.is_object(), what + ": not a JSON object");
  need(doc, "schema", json::value_t::string, "the document");
  require(doc["schema"] == RESULTS_SCHEMA,
          what + ": schema is " + doc["schema"].dump() + ", expected \"" + RESULTS_SCHEMA + "\"");
  need(doc, "created", json::value_t::string, "the document");
  need(doc, "command", json::value_t::string, "the document");
  need(doc, "host", json::value_t::object, "the document");
  need(doc, "settings", json::value_t::object, "the document");
  need(doc, "methods", json::value_t::array, "the document");
  need(doc, "backends", json::value_t::array, "the document");
  need(doc, "rows", json::value_t::array, "the document");
  need(doc["settings"], "repeats", json::value_t::number_float, "settings");
  need(doc["settings"], "speed_input", json::value_t::string, "settings");
  for (const json& m : doc["methods"]) {
    need(m, "name", json::value_t::string, "a method");
    for (const char* k : {"accuracy", "speed"}) need(m, k, json::value_t::array, "method " + text(m, "name"));
    need(m, "paper_gpu", json::value_t::string, "method " + text(m, "name"));
  }
  for (const json& b : doc["backends"]) {
    need(b, "method", json::value_t::string, "a backend");
    need(b, "backend", json::value_t::string, "a backend");
    need(b, "available", json::value_t::boolean, "backend " + lane_of(b));
  }
  for (std::size_t i = 0; i < doc["rows"].size(); ++i) {
    const json& r = doc["rows"][i];
    const std::string where = "row " + std::to_string(i);
    for (const char* k : {"kind", "method", "backend", "input", "status"}) need(r, k, json::value_t::string, where);
    for (const char* k : {"width", "height", "levels"}) need(r, k, json::value_t::number_float, where);
    const std::string kind = r["kind"];
    require(kind == "accuracy" || kind == "speed", what + ": " + where + " kind \"" + kind + "\" is neither accuracy nor speed");
    const std::string status = r["status"];
    require(status == "ok" || status == "refused" || status == "failed" || status == "skipped",
            what + ": " + where + " status \"" + status + "\" is unknown");
    if (status != "ok") {
      need(r, "reason", json::value_t::string, where);
      continue;
    }
    for (const char* k : {"total_ms", "mdes", "ns_per_de"}) need(r, k, json::value_t::number_float, where);
    need(r, "time_includes", json::value_t::string, where);
    if (kind == "accuracy") {
      need(r, "dataset", json::value_t::string, where);
      need(r, "scene", json::value_t::string, where);
      need(r, "threshold", json::value_t::number_float, where);
      need(r, "maps", json::value_t::object, where);
    } else {
      for (const char* k : {"repeats", "total_ms_min", "total_ms_max", "algorithm_ms", "mdes_algorithm"})
        need(r, k, json::value_t::number_float, where);
      need(r, "setting", json::value_t::string, where);
    }
  }
  if (doc.contains("repeat_of")) {
    const json& o = doc["repeat_of"];
    need(doc, "repeat_of", json::value_t::object, "the document");
    for (const char* k : {"source", "created", "command"}) need(o, k, json::value_t::string, "repeat_of");
    need(o, "rows", json::value_t::array, "repeat_of");
    for (std::size_t i = 0; i < o["rows"].size(); ++i) {
      const json& r = o["rows"][i];
      const std::string where = "repeat_of row " + std::to_string(i);
      for (const char* k : {"kind", "method", "backend", "input", "status"}) need(r, k, json::value_t::string, where);
      for (const char* k : {"width", "height", "levels"}) need(r, k, json::value_t::number_float, where);
      if (r["kind"] == "speed" && r["status"] == "ok")
        for (const char* k : {"total_ms", "total_ms_min", "total_ms_max"})
          need(r, k, json::value_t::number_float, where);
    }
  }
}

const std::vector<std::string>& results_csv_columns() {
  static const std::vector<std::string> columns = {
      "kind",        "method",       "backend",      "input",          "setting",       "set",           "status",
      "reason",      "width",        "height",       "min_disparity",  "levels",        "threshold",
      "bad_nonocc",  "bad_all",      "bad_disc",     "avg_error",      "density",       "d1_all",
      "repeats",
      "total_ms",    "total_ms_min", "total_ms_max", "algorithm_ms",   "upload_ms",     "readback_ms",
      "mdes",        "mdes_algorithm", "ns_per_de",  "paper_nonocc",   "paper_all",     "paper_disc",
      "paper_ms",    "paper_mdes",   "paper_gpu",    "ratio_mdes",     "paper_note",    "device",        "device_uuid",
      "driver",      "cpu",          "cpu_threads",  "clock",          "time_includes", "params"};
  return columns;
}

std::string results_csv(const json& doc) {
  std::string out;
  const auto& cols = results_csv_columns();
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (i) out += ',';
    out += cols[i];
  }
  out += '\n';
  for (const json& row : doc["rows"]) {
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (i) out += ',';
      out += csv_field(csv_value(row, cols[i]));
    }
    out += '\n';
  }
  return out;
}

std::string report_markdown(const json& doc, const std::vector<std::string>& plots,
                            const std::vector<std::pair<std::string, std::vector<std::string>>>& montages) {
  std::ostringstream md;
  md << "# Stereo comparison\n\nMade by `" << text(doc, "command") << "` at " << text(doc, "created")
     << "; this file is remade from results.json by `stereo report DIR`.  \nHost: " << text(doc["host"], "cpu")
     << ". Source: " << (text(doc, "revision").empty() ? "not recorded" : "`" + text(doc, "revision") + "`")
     << ".\n\n## Backends\n\n";
  md << header_lines({"method", "backend", "device (UUID, driver)", "ran", "params"});
  for (const json& b : doc["backends"]) {
    md << row_line({text(b, "method"), text(b, "backend"), device_text(b),
                    b.value("available", false) ? "yes" : "no: " + text(b, "reason"),
                    b.contains("params") && !b["params"].is_null() ? "`" + b["params"].dump() + "`" : ""});
  }
  md << "\n";
  accuracy_section(md, doc);
  speed_section(md, doc);
  shader_section(md, doc);
  paper_speed_section(md, doc);
  not_run_section(md, doc);
  repeat_section(md, doc);
  md << "## Plots\n\n";
  if (plots.empty())
    md << "Not made here (gnuplot was not found, or there was nothing to plot). The gnuplot scripts and data are in "
          "plots/; `stereo report DIR` on a machine with gnuplot (Debian: gnuplot-nox) makes the pictures.\n\n";
  if (!plots.empty())
    md << "Throughput: Mde/s against levels per grid size, one line per method/backend (log-log). Pareto view (Yu "
          "et al., Fig. 15): per method/backend and dataset, the mean bad % (non-occluded) against the median ns per "
          "disparity estimate of the same accuracy runs (upload + algorithm + read-back on the scenes' own sizes, "
          "so small scenes weigh fixed costs more than the speed grid does).\n\n";
  for (const std::string& p : plots) md << "![" << p << "](" << p << ")\n\n";
  if (!montages.empty()) {
    md << "## Disparity and error maps\n\nDisparity colour ramp over each scene's searched range (black: no "
          "disparity); error maps grey where correct, red where bad over non-occluded pixels, orange where bad in "
          "occluded ones, black without ground truth.\n\n";
    for (const auto& [file, labels] : montages) {
      md << "![" << file << "](" << file << ")\n\nRows, top to bottom: ";
      for (std::size_t i = 0; i < labels.size(); ++i) md << (i ? "; " : "") << labels[i];
      md << ".\n\n";
    }
  }
  return md.str();
}

std::string summary_table(const json& doc) {
  const auto acc = rows_where(doc, "accuracy", "");
  const auto datasets = datasets_of(acc);
  std::ostringstream s;
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> head = {"method/backend"};
  for (const std::string& d : datasets) head.push_back("bad% " + d);
  head.insert(head.end(), {"Mde/s (largest grid input)", "not ok"});
  table.push_back(head);
  for (const json& b : doc["backends"]) {
    const std::string lane = lane_of(b);
    std::vector<std::string> row = {lane};
    for (const std::string& d : datasets) row.push_back(fmt(mean_metric(acc, lane, d, "nonocc")));
    const json* best = nullptr;
    int not_ok = 0;
    for (const json& r : doc["rows"]) {
      if (lane_of(r) != lane) continue;
      if (!ok(r)) {
        ++not_ok;
        continue;
      }
      if (text(r, "kind") != "speed" || text(r, "setting") != "grid") continue;
      const auto work = [](const json& q) { return q["width"].get<double>() * q["height"].get<double>() * q["levels"].get<double>(); };
      if (!best || work(r) > work(*best)) best = &r;
    }
    row.push_back(!b.value("available", false) ? "not run"
                  : best ? fmt(num(*best, "mdes"), 1) + " at " + size_of(*best) + "x" + text(*best, "levels")
                         : "-");
    row.push_back(std::to_string(not_ok));
    table.push_back(row);
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& r : table)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  for (const auto& r : table) {
    for (std::size_t i = 0; i < r.size(); ++i)
      s << (i ? "  " : "") << r[i] << std::string(width[i] - r[i].size(), ' ');
    s << "\n";
  }
  s << "(bad%: mean over the dataset's scenes, non-occluded mask, each format's threshold)\n";
  return s.str();
}

std::vector<std::string> write_report(const json& doc, const fs::path& dir, std::ostream& log) {
  check_results(doc, (dir / "results.json").string());
  std::vector<std::string> written;
  write_text(dir / "results.csv", results_csv(doc));
  written.push_back("results.csv");
  const auto montages = write_montages(doc, dir, written);

  const fs::path plots = dir / "plots";
  fs::create_directories(plots);
  std::vector<PlotScript> scripts = throughput_plots(doc, plots);
  if (auto p = pareto_plot(doc, plots)) scripts.push_back(*p);
  for (const PlotScript& p : scripts) {
    write_text(plots / (p.name + ".gp"), p.script);
    written.push_back("plots/" + p.name + ".gp");
  }
  // gnuplot is optional (the GPU machine has none): the scripts stay, and `stereo report DIR`
  // elsewhere renders them. STEREO_GNUPLOT names another program (or a missing one, in tests).
  const char* env = std::getenv("STEREO_GNUPLOT");
  const std::string gnuplot = env && *env ? env : "gnuplot";
  const bool have = !scripts.empty() &&
                    std::system(("command -v '" + gnuplot + "' >/dev/null 2>&1").c_str()) == 0;
  std::vector<std::string> pictures;
  if (scripts.empty()) {
    log << "report: nothing to plot\n";
  } else if (!have) {
    log << "report: plots skipped: " << gnuplot << " not found (Debian: apt-get install gnuplot-nox); the scripts "
        << "are in " << plots.string() << ", and `stereo report " << dir.string()
        << "` on a machine with gnuplot makes the pictures\n";
  } else {
    for (const PlotScript& p : scripts) {
      const std::string cmd = "cd '" + plots.string() + "' && '" + gnuplot + "' '" + p.name + ".gp' 2>'" + p.name + ".log'";
      if (std::system(cmd.c_str()) == 0 && fs::exists(plots / (p.name + ".png"))) {
        pictures.push_back("plots/" + p.name + ".png");
        std::error_code ec;
        fs::remove(plots / (p.name + ".log"), ec);
      } else {
        log << "report: gnuplot failed on " << (plots / (p.name + ".gp")).string() << " (see " << p.name << ".log)\n";
      }
    }
  }
  written.insert(written.end(), pictures.begin(), pictures.end());
  write_text(dir / "report.md", report_markdown(doc, pictures, montages));
  written.push_back("report.md");
  return written;
}

json read_results(const fs::path& dir) {
  const fs::path path = dir / "results.json";
  std::ifstream in(path);
  require(in.good(), "report: cannot read " + path.string());
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw Error("report: " + path.string() + " is not JSON: " + e.what());
  }
  check_results(doc, path.string());
  return doc;
}

std::vector<std::string> regenerate_report(const fs::path& dir, std::ostream& log) {
  return write_report(read_results(dir), dir, log);
}

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

namespace {

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
      if (sa != sb) r.accuracy_differ.push_back(name + ": " + sa + " here, " + sb + " there");
      else if (sa == "ok")
        if (const std::string d = metric_difference(a, b); !d.empty()) r.accuracy_differ.push_back(name + ": " + d);
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
