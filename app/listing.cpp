// `stereo list` and `stereo params` (app/listing.h): the registry as text and as JSON.

#include "app/listing.h"

#include <iomanip>
#include <sstream>

#include "app/measure.h"

namespace stereo::cli {
using nlohmann::json;

json backend_json(const BackendEntry& e) {
  const auto reason = unavailable(e);
  return {{"method", e.method}, {"backend", e.backend}, {"summary", e.summary}, {"available", !reason},
          {"reason", reason ? json(*reason) : json(nullptr)}};
}

json list_json(const Registry& registry) {
  json methods = json::array(), backends = json::array();
  for (const MethodInfo& m : registry.methods()) {
    json j = method_json(m);
    j["backends"] = json::array();
    for (const std::string& b : registry.backends(m.name)) {
      // Each row once: a GL backend's availability probe creates a context.
      const json row = backend_json(registry.find(m.name, b));
      j["backends"].push_back(row);
      backends.push_back(row);
    }
    methods.push_back(j);
  }
  return {{"methods", methods}, {"backends", backends}};
}

std::string list_text(const Registry& registry) {
  std::ostringstream out;
  bool first = true;
  for (const MethodInfo& m : registry.methods()) {
    if (!first) out << "\n";
    first = false;
    out << m.name << ": " << m.title << "\n  " << m.citation << "\n";
    if (!m.accuracy_source.empty()) out << "  paper accuracy: " << m.accuracy_source << "\n";
    if (!m.speed_source.empty()) out << "  paper speed: " << m.speed_source << "\n";
    out << "  parameters: stereo params -m " << m.name << "\n";
    out << std::left << std::setw(10) << "method" << std::setw(11) << "backend" << std::setw(11) << "available"
        << "notes\n";
    for (const std::string& b : registry.backends(m.name)) {
      const BackendEntry& e = registry.find(m.name, b);
      const auto reason = unavailable(e);
      out << std::setw(10) << m.name << std::setw(11) << b << std::setw(11) << (reason ? "no" : "yes")
          << (reason ? *reason : e.summary) << "\n";
    }
  }
  return out.str();
}

json preset_json(const ParamPreset& preset) {
  json overrides = json::array();
  for (const auto& [key, value] : preset.overrides) overrides.push_back(key + "=" + value);
  return {{"name", preset.name}, {"note", preset.note}, {"overrides", overrides}};
}

json params_json(const Registry& registry, const std::string& method) {
  const MethodInfo& m = registry.method(method);
  json backends = json::array();
  for (const std::string& b : registry.backends(method)) {
    const BackendEntry& e = registry.find(method, b);
    backends.push_back({{"backend", b}, {"available", !unavailable(e)},
                        {"options", e.describe_options ? describe_lines(e.describe_options()) : std::vector<std::string>{}}});
  }
  json presets = json::array();
  for (const ParamPreset& p : m.presets) presets.push_back(preset_json(p));
  return {{"method", m.name}, {"title", m.title}, {"citation", m.citation},
          {"params", m.describe_params ? describe_lines(m.describe_params()) : std::vector<std::string>{}},
          {"presets", presets}, {"backends", backends}};
}

std::string params_text(const Registry& registry, const std::string& method) {
  const json j = params_json(registry, method);
  std::ostringstream out;
  out << j["method"].get<std::string>() << ": " << j["title"].get<std::string>() << "\n  "
      << j["citation"].get<std::string>() << "\n\nparameters of the method, bound by every backend "
      << "(--set key=value; key = default  (doc)):\n";
  if (j["params"].empty()) out << "  (none)\n";
  for (const json& line : j["params"]) out << "  " << line.get<std::string>() << "\n";
  if (!j["presets"].empty())
    out << "\npresets, parameter sets that are not the paper's (--set preset=NAME stands for its overrides,"
        << " in place; a later --set still wins):\n";
  for (const json& p : j["presets"]) {
    out << "  " << p["name"].get<std::string>() << ":";
    for (const json& o : p["overrides"]) out << " " << o.get<std::string>();
    out << "\n    " << p["note"].get<std::string>() << "\n";
  }
  for (const json& b : j["backends"]) {
    out << "\n" << method << "/" << b["backend"].get<std::string>() << " options"
        << (b["available"].get<bool>() ? "" : " (not available here)") << ":\n";
    if (b["options"].empty()) out << "  (no options)\n";
    for (const json& line : b["options"]) out << "  " << line.get<std::string>() << "\n";
  }
  out << "\nevery run prints all parameters and options in force\n";
  return out.str();
}

}  // namespace stereo::cli
