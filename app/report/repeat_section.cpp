// report.md's Repeatability section (app/report/repeat_section.h).

#include "app/report/repeat_section.h"

#include <algorithm>
#include <string>
#include <vector>

#include "app/measure.h"
#include "app/report/document.h"
#include "app/report/markdown_table.h"
#include "app/report/repeatability.h"

namespace stereo::report {
using cli::fmt;
using nlohmann::json;

namespace {

void speed_table(std::ostream& md, const std::vector<Repeatability::Speed>& cells, bool host_cpu) {
  md << header_lines({"cell", "median ms (this run)", "spread ms", "median ms (other run)", "spread ms",
                      "this / other", "tolerance ms", "agree", "largest change (this - other)"});
  for (const auto& c : cells)
    if (c.host_cpu == host_cpu)
      md << row_line({c.cell, fmt(c.median, 3) + (c.unsettled_here ? " (unsettled)" : ""), fmt(c.spread, 3),
                      fmt(c.other_median, 3) + (c.unsettled_there ? " (unsettled)" : ""), fmt(c.other_spread, 3),
                      fmt(c.ratio, 3), fmt(c.tolerance, 3), c.agrees ? "yes" : "**no**", c.largest_change});
  md << "\n";
}

}  // namespace

void repeat_section(std::ostream& md, const json& doc) {
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
     << " cells identical (the same status and every stored metric equal to the last digit";
  if (r.accuracy_submitted > 0 && r.accuracy_float_only == 0)
    md << ", scored as submitted and as float";
  else if (r.accuracy_submitted > 0)
    md << ", scored as submitted and as float in " << r.accuracy_submitted << " cells, float only in "
       << r.accuracy_float_only << " where a run predates the scores as submitted";
  else if (r.accuracy_float_only > 0)
    md << "; float metrics only: a run predates the scores as submitted";
  md << ").";
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

}  // namespace stereo::report
