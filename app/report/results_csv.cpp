// results.csv (app/report/results_csv.h).

#include "app/report/results_csv.h"

#include <optional>
#include <sstream>

#include "app/report/document.h"

namespace stereo {
using nlohmann::json;
using namespace report;

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string csv_value(const json& row, const std::string& column) {
  const json& me = row.value(FLOAT_METRICS, json(nullptr));
  const json& sub = row.value(SUBMITTED_METRICS, json(nullptr));
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
  if (column == "bad_nonocc_submitted") return n(num(sub, "nonocc"));
  if (column == "bad_all_submitted") return n(num(sub, "all"));
  if (column == "bad_disc_submitted") return n(num(sub, "disc"));
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

}  // namespace

const std::vector<std::string>& results_csv_columns() {
  static const std::vector<std::string> columns = {
      "kind",        "method",       "backend",      "input",          "setting",       "set",           "status",
      "reason",      "width",        "height",       "min_disparity",  "levels",        "threshold",
      "bad_nonocc",  "bad_all",      "bad_disc",     "avg_error",      "density",       "d1_all",
      "bad_nonocc_submitted",        "bad_all_submitted",                "bad_disc_submitted", "submission_rule",
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

}  // namespace stereo
