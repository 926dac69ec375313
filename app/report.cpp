// The comparison report from results.json alone (app/report.h): report.md put together from its
// sections, the terminal's summary, and every file written. Every method, backend, scene and
// paper figure comes from the document; nothing here names one.

#include "app/report.h"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "app/measure.h"
#include "app/report/accuracy_tables.h"
#include "app/report/document.h"
#include "app/report/markdown_table.h"
#include "app/report/montages.h"
#include "app/report/plots.h"
#include "app/report/repeat_section.h"
#include "app/report/speed_tables.h"

namespace stereo {
namespace fs = std::filesystem;
using nlohmann::json;
using cli::fmt;
using namespace report;

namespace {

void not_run_section(std::ostream& md, const json& doc) {
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

/// `s` in backticks. Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on
/// "`" + s once report_markdown is inlined into a translation unit this small.
std::string code(const std::string& s) {
  std::string t = "`";
  t += s;
  t += '`';
  return t;
}

}  // namespace

std::string report_markdown(const json& doc, const std::vector<std::string>& plots,
                            const std::vector<std::pair<std::string, std::vector<std::string>>>& montages) {
  std::ostringstream md;
  md << "# Stereo comparison\n\nMade by `" << text(doc, "command") << "` at " << text(doc, "created")
     << "; this file is remade from results.json by `stereo report DIR`.  \nHost: " << text(doc["host"], "cpu")
     << ". Source: " << (text(doc, "revision").empty() ? "not recorded" : code(text(doc, "revision")))
     << ".\n\n## Backends\n\n";
  md << header_lines({"method", "backend", "device (UUID, driver)", "ran", "params"});
  for (const json& b : doc["backends"]) {
    md << row_line({text(b, "method"), text(b, "backend"), device_text(b),
                    b.value("available", false) ? "yes" : "no: " + text(b, "reason"),
                    b.contains("params") && !b["params"].is_null() ? code(b["params"].dump()) : ""});
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
          "et al., Fig. 15): per method/backend and dataset, the mean bad % (non-occluded, the maps as computed) "
          "against the median ns per disparity estimate of the same accuracy runs (upload + algorithm + read-back on "
          "the scenes' own sizes, so small scenes weigh fixed costs more than the speed grid does).\n\n";
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
  const bool both = has_submitted(doc);
  std::ostringstream s;
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> head = {"method/backend"};
  for (const std::string& d : datasets) {
    head.push_back("bad% " + d);
    if (both) head.push_back("float bad% " + d);
  }
  head.insert(head.end(), {"Mde/s (largest grid input)", "not ok"});
  table.push_back(head);
  for (const json& b : doc["backends"]) {
    const std::string lane = lane_of(b);
    std::vector<std::string> row = {lane};
    for (const std::string& d : datasets) {
      row.push_back(fmt(mean_metric(acc, lane, d, both ? SUBMITTED_METRICS : FLOAT_METRICS, "nonocc")));
      if (both) row.push_back(fmt(mean_metric(acc, lane, d, FLOAT_METRICS, "nonocc")));
    }
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
  s << "(bad%: mean over the dataset's scenes, non-occluded mask, each format's threshold"
    << (both ? "; the maps as each format's benchmark received them, as the papers were scored; float bad%: the "
               "maps as computed)\n"
             : "; float maps only: this results.json predates the scores as submitted)\n");
  return s.str();
}

std::vector<std::string> write_report(const json& doc, const fs::path& dir, std::ostream& log) {
  check_results(doc, (dir / "results.json").string());
  std::vector<std::string> written;
  write_text(dir / "results.csv", results_csv(doc));
  written.push_back("results.csv");
  const auto montages = write_montages(doc, dir, written);
  const std::vector<std::string> pictures = write_plots(doc, dir, log, written);
  write_text(dir / "report.md", report_markdown(doc, pictures, montages));
  written.push_back("report.md");
  return written;
}

std::vector<std::string> regenerate_report(const fs::path& dir, std::ostream& log) {
  return write_report(read_results(dir), dir, log);
}

}  // namespace stereo
