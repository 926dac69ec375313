// results.json's schema check and reading (app/report/results_schema.h).

#include "app/report/results_schema.h"

#include <fstream>

#include "app/report/document.h"
#include "core/error.h"

namespace stereo {
namespace fs = std::filesystem;
using nlohmann::json;
using report::lane_of;
using report::text;

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
      // Both scores are objects, or null without ground truth; documents from before the scores
      // as submitted lack that one and the rule.
      for (const char* k : {"metrics", "metrics_submitted"})
        if (r.contains(k) && !r[k].is_object() && !r[k].is_null())
          throw Error(what + ": " + where + " \"" + k + "\" is " + r[k].type_name());
      if (r.contains("submission_rule")) need(r, "submission_rule", json::value_t::string, where);
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

}  // namespace stereo
