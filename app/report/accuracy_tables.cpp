// report.md's accuracy section (app/report/accuracy_tables.h).

#include "app/report/accuracy_tables.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "app/measure.h"
#include "app/report/document.h"
#include "app/report/markdown_table.h"

namespace stereo::report {
using cli::fmt;
using nlohmann::json;

namespace {

constexpr std::array<const char*, 3> BAD = {"nonocc", "all", "disc"};

/// Which figure is which. With both scores: each format's rule once, with the inputs it
/// applies to, as `stereo eval` prints it. Without: that every figure of ours is a float one,
/// which the papers' (scored as submitted) may not match to the last digit.
void scoring_text(std::ostream& md, const json& doc, bool both) {
  if (!both) {
    md << "**This run holds float figures only:** its results.json predates the scores as submitted (its rows "
          "have no \"metrics_submitted\"), so every figure of ours below is the map as computed, while the papers' "
          "figures were scored on the maps as their benchmark received them (Middlebury v2: an 8-bit image at the "
          "ground truth's scale, 1/16, 1/8 or 1/4 px steps; MiddEval3: float, as computed). A new `stereo compare` "
          "scores both.\n\n";
    return;
  }
  md << "Each bad-pixel figure of ours twice: first the map as the scene format's benchmark received it (the "
        "papers' protocol, `stereo eval --protocol submitted`), with the paper's figure beside it; then 'float', "
        "the map as computed (`--protocol float`). 'avg err' and 'density' are the float map's (a map submitted to "
        "Middlebury v2 has a value at every pixel). Each format's rule:\n\n";
  std::vector<std::pair<std::string, std::vector<std::string>>> rules;
  for (const json* r : rows_where(doc, "accuracy", "")) {
    const std::string rule = text(*r, "submission_rule");
    if (rule.empty()) continue;
    auto it = std::find_if(rules.begin(), rules.end(), [&](const auto& p) { return p.first == rule; });
    if (it == rules.end()) it = rules.insert(rules.end(), {rule, {}});
    if (std::find(it->second.begin(), it->second.end(), text(*r, "input")) == it->second.end())
      it->second.push_back(text(*r, "input"));
  }
  for (const auto& [rule, inputs] : rules) {
    md << "- submitted as " << rule << ":";
    for (std::size_t i = 0; i < inputs.size(); ++i) md << (i ? ", " : " ") << inputs[i];
    md << "\n";
  }
  md << "\n";
}

/// A scene's row: with both scores, per column ours as submitted, the paper's, ours as float.
std::vector<std::string> scene_cells(const json& r, bool both) {
  const json& fl = r.value(FLOAT_METRICS, json(nullptr));
  const json& pa = r.value("paper", json(nullptr));
  std::vector<std::string> cells = {text(r, "input"), text(r, "backend"), size_of(r)};
  if (!ok(r)) {
    cells.insert(cells.end(), {"", text(r, "status")});
    cells.resize(both ? 16 : 13);  // the header's columns
    return cells;
  }
  cells.push_back(fmt(num(r, "threshold"), 1));
  if (both) {
    const json& sub = r.value(SUBMITTED_METRICS, json(nullptr));
    for (const char* k : BAD) cells.insert(cells.end(), {fmt(num(sub, k)), fmt(num(pa, k)), fmt(num(fl, k))});
    cells.insert(cells.end(), {fmt(num(fl, "avg_error")), fmt(num(fl, "density"), 1), fmt(num(r, "total_ms"), 1)});
    return cells;
  }
  for (const char* k : BAD) cells.push_back(fmt(num(fl, k)));
  cells.insert(cells.end(), {fmt(num(fl, "avg_error")), fmt(num(fl, "density"), 1), fmt(num(r, "total_ms"), 1)});
  for (const char* k : BAD) cells.push_back(fmt(num(pa, k)));
  return cells;
}

/// Ours (the row's `field`) and the paper's, each averaged over a lane's scenes of one dataset
/// where both give column `k` (the same convention as `stereo eval`): "4.25 / 3.50 (1)", or "-".
std::string vs_paper(const std::vector<const json*>& rows, const std::string& lane, const std::string& dataset,
                     const char* field, const char* k) {
  double ours = 0.0, paper = 0.0;
  int n = 0;
  for (const json* r : rows)
    if (ok(*r) && lane_of(*r) == lane && text(*r, "dataset") == dataset) {
      const auto o = num(r->value(field, json(nullptr)), k);
      const auto p = num(r->value("paper", json(nullptr)), k);
      if (o && p) ours += *o, paper += *p, ++n;
    }
  return n ? fmt(ours / n) + " / " + fmt(paper / n) + " (" + std::to_string(n) + ")" : "-";
}

}  // namespace

void accuracy_section(std::ostream& md, const json& doc) {
  md << "## Accuracy\n\nBad pixels (%): |d - ground truth| > the scene format's threshold (Middlebury v2: 1 px "
        "over nonocc / all / disc; MiddEval3: 2 px over the non-occluded mask, 'all' over every pixel with ground "
        "truth). The paper's figures stand beside ours only where the paper gives that scene at that threshold. "
        "Time: one run (after one untimed warm-up on non-`cpu` backends), upload + algorithm + read-back.\n\n";
  const bool both = has_submitted(doc);
  // The papers were scored as submitted (MethodInfo::accuracy_protocol): where the document has
  // that score, it is the one set beside theirs.
  const char* ours = both ? SUBMITTED_METRICS : FLOAT_METRICS;
  if (!rows_where(doc, "accuracy", "").empty()) scoring_text(md, doc, both);
  for (const json& m : doc["methods"]) {
    const std::string name = text(m, "name");
    const auto rows = rows_where(doc, "accuracy", name);
    if (rows.empty()) continue;
    md << "### " << name << ": " << text(m, "title") << "\n\n" << text(m, "citation") << ".  \nPaper: "
       << (text(m, "accuracy_source").empty() ? "no accuracy table" : text(m, "accuracy_source")) << ".\n\n";
    if (both)
      md << header_lines({"input", "backend", "size", "threshold", "nonocc", "paper nonocc", "float nonocc", "all",
                          "paper all", "float all", "disc", "paper disc", "float disc", "float avg err",
                          "float density", "ms"});
    else
      md << header_lines({"input", "backend", "size", "threshold", "nonocc", "all", "disc", "avg err", "density",
                          "ms", "paper nonocc", "paper all", "paper disc"});
    for (const json* r : rows) md << row_line(scene_cells(*r, both));
    md << (both ? "\nAverages per dataset (ours over every scene, as submitted; 'vs paper': ours as submitted and the "
                  "paper's over the scenes where both have the figure; 'float': ours over every scene, the maps as "
                  "computed):\n\n"
                : "\nAverages per dataset (ours over every scene; 'vs paper': ours and the paper's over the scenes "
                  "where both have the figure):\n\n");
    std::vector<std::string> head = {"dataset", "backend", "nonocc", "all", "disc", "vs paper: nonocc ours / paper",
                                     "all ours / paper", "disc ours / paper"};
    if (both) head.insert(head.end(), {"float nonocc", "float all", "float disc"});
    md << header_lines(head);
    for (const std::string& d : datasets_of(rows))
      for (const std::string& lane : lanes(doc, name)) {
        std::vector<std::string> cells = {d, lane.substr(name.size() + 1)};
        bool any = false;
        const auto means = [&](const char* field) {
          for (const char* k : BAD) {
            const auto v = mean_metric(rows, lane, d, field, k);
            any = any || v;
            cells.push_back(fmt(v));
          }
        };
        means(ours);
        for (const char* k : BAD) cells.push_back(vs_paper(rows, lane, d, ours, k));
        if (both) means(FLOAT_METRICS);
        if (any) md << row_line(cells);
      }
    md << "\n";
  }
}

}  // namespace stereo::report
