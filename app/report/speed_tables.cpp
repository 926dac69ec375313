// report.md's speed sections (app/report/speed_tables.h).

#include "app/report/speed_tables.h"

#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/measure.h"
#include "app/report/document.h"
#include "app/report/markdown_table.h"

namespace stereo::report {
using cli::fmt;
using nlohmann::json;

namespace {

/// A ratio with two decimals, or two significant digits below 0.1 (a CPU against a GPU).
std::string ratio_text(const std::optional<double>& v) {
  if (!v || *v >= 0.1) return fmt(v, 2);
  std::ostringstream s;
  s << std::setprecision(2) << *v;
  return s.str();
}

}  // namespace

void speed_section(std::ostream& md, const json& doc) {
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

void shader_section(std::ostream& md, const json& doc) {
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

void paper_speed_section(std::ostream& md, const json& doc) {
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

}  // namespace stereo::report
