// report.md's accuracy section (app/report/accuracy_tables.h).

#include "app/report/accuracy_tables.h"

#include <string>
#include <vector>

#include "app/measure.h"
#include "app/report/document.h"
#include "app/report/markdown_table.h"

namespace stereo::report {
using cli::fmt;
using nlohmann::json;

void accuracy_section(std::ostream& md, const json& doc) {
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

}  // namespace stereo::report
