// Reading a results document for the report's parts (app/report/document.h).

#include "app/report/document.h"

#include <algorithm>
#include <fstream>

#include "app/image_io.h"
#include "core/error.h"

namespace stereo::report {
namespace fs = std::filesystem;
using nlohmann::json;

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

bool ok(const json& row) { return text(row, "status") == "ok"; }

std::string lane_of(const json& row) { return text(row, "method") + "/" + text(row, "backend"); }

std::string size_of(const json& row) { return text(row, "width") + "x" + text(row, "height"); }

std::string driver_of(const json& device_info) {
  const std::string d = text(device_info, "driver");
  return d.empty() ? text(device_info, "version") : d;
}

std::string device_text(const json& row) {
  const json& d = row.value("device_info", json(nullptr));
  std::string t = text(d, "name");
  if (t.empty()) t = text(row, "device");
  if (!text(d, "uuid").empty()) t += " (" + text(d, "uuid") + ")";
  if (!driver_of(d).empty()) t += ", driver " + driver_of(d);
  return t;
}

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

std::vector<std::string> lanes(const json& doc, const std::string& method) {
  std::vector<std::string> out;
  for (const json& b : doc["backends"])
    if (method.empty() || text(b, "method") == method) out.push_back(lane_of(b));
  return out;
}

bool has_submitted(const json& doc) {
  for (const json& r : doc["rows"])
    if (text(r, "kind") == "accuracy" && ok(r) && r.contains(SUBMITTED_METRICS)) return true;
  return false;
}

std::optional<double> mean_metric(const std::vector<const json*>& rows, const std::string& lane,
                                  const std::string& dataset, const char* field, const char* key) {
  double sum = 0.0;
  int n = 0;
  for (const json* r : rows)
    if (ok(*r) && lane_of(*r) == lane && text(*r, "dataset") == dataset)
      if (const auto v = num(r->value(field, json(nullptr)), key)) sum += *v, ++n;
  return n ? std::optional(sum / n) : std::nullopt;
}

std::vector<std::string> datasets_of(const std::vector<const json*>& rows) {
  std::vector<std::string> out;
  for (const json* r : rows)
    if (std::find(out.begin(), out.end(), text(*r, "dataset")) == out.end()) out.push_back(text(*r, "dataset"));
  return out;
}

void write_text(const fs::path& path, const std::string& content) {
  write_atomically(path, [&](const fs::path& tmp) {
    std::ofstream f(tmp);
    f << content;
    if (!f) throw Error("report: cannot write " + path.string());
  });
}

}  // namespace stereo::report
