// The registry: methods and their backends by name, and the factory call.

#include "core/registry.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace stereo {

void Registry::add(BackendEntry entry) {
  for (const BackendEntry& e : entries_)
    require(e.method != entry.method || e.backend != entry.backend,
            "registry: backend " + entry.method + "/" + entry.backend + " registered twice");
  entries_.push_back(std::move(entry));
}

void Registry::add_method(MethodInfo info) {
  for (const MethodInfo& m : methods_)
    require(m.name != info.name, "registry: method '" + info.name + "' registered twice");
  methods_.push_back(std::move(info));
}

const MethodInfo& Registry::method(const std::string& name) const {
  for (const MethodInfo& m : methods_)
    if (m.name == name) return m;
  std::string names;
  for (const MethodInfo& m : methods_) names += (names.empty() ? "" : ", ") + m.name;
  throw Error("unknown method '" + name + "' (this build has: " + names + ")", ErrorKind::invalid_argument);
}

std::optional<PaperAccuracy> MethodInfo::paper_accuracy(const std::string& scene, const nlohmann::json& params) const {
  std::string lower = scene;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const auto as_text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  for (const PaperAccuracy& row : accuracy) {
    if (row.scene != lower) continue;
    // A row applies when every condition it names holds; a row with none applies only when
    // no other row's conditions hold (the defaults), so check conditioned rows first.
    if (row.when.empty()) continue;
    bool holds = true;
    for (const auto& [key, value] : row.when)
      holds = holds && params.contains(key) && as_text(params[key]) == value;
    if (holds) return row;
  }
  for (const PaperAccuracy& row : accuracy)
    if (row.scene == lower && row.when.empty()) return row;
  return std::nullopt;
}

std::optional<ParamPreset> MethodInfo::preset_named(const Overrides& overrides) const {
  std::optional<ParamPreset> named;
  for (const auto& [key, value] : overrides) {
    if (key != "preset") continue;
    // A named copy: clang before 16 cannot capture a structured binding in a lambda.
    const std::string& wanted = value;
    const auto it = std::find_if(presets.begin(), presets.end(), [&](const ParamPreset& p) { return p.name == wanted; });
    if (it == presets.end()) {
      std::string names;
      for (const ParamPreset& p : presets) names += (names.empty() ? "" : ", ") + p.name;
      throw Error(name + ": unknown preset '" + value + "' (" +
                      (names.empty() ? name + " has none" : name + " has: " + names) + ")",
                  ErrorKind::invalid_argument);
    }
    if (named)
      throw Error(name + ": one preset per run, got '" + named->name + "' and '" + value + "'",
                  ErrorKind::invalid_argument);
    named = *it;
  }
  return named;
}

Overrides MethodInfo::expand_presets(const Overrides& overrides) const {
  const std::optional<ParamPreset> preset = preset_named(overrides);
  if (!preset) return overrides;
  Overrides out;
  for (const auto& kv : overrides) {
    if (kv.first == "preset") out.insert(out.end(), preset->overrides.begin(), preset->overrides.end());
    else out.push_back(kv);
  }
  return out;
}

const BackendEntry& Registry::find(const std::string& method, const std::string& backend) const {
  bool method_known = false;
  for (const BackendEntry& e : entries_) {
    if (e.method != method) continue;
    method_known = true;
    if (e.backend == backend) return e;
  }
  if (!method_known) {
    std::string names;
    for (const BackendEntry& e : entries_)
      if (names.find(e.method) == std::string::npos) names += (names.empty() ? "" : ", ") + e.method;
    throw Error("unknown method '" + method + "' (this build has: " + names + ")", ErrorKind::invalid_argument);
  }
  std::string list;
  for (const std::string& b : backends(method)) list += (list.empty() ? "" : ", ") + b;
  throw Error(method + ": unknown backend '" + backend + "' (this build has: " + list + ")", ErrorKind::invalid_argument);
}

std::vector<std::string> Registry::backends(const std::string& method) const {
  std::vector<std::string> out;
  for (const BackendEntry& e : entries_)
    if (e.method == method) out.push_back(e.backend);
  return out;
}

std::unique_ptr<Matcher> Registry::create(const std::string& method, const std::string& backend,
                                          const Overrides& overrides) const {
  const BackendEntry& entry = find(method, backend);
  if (const auto reason = entry.unavailable ? entry.unavailable() : std::nullopt)
    throw Error(method + "/" + backend + " is not available here: " + *reason, ErrorKind::unavailable);
  // A test's registry may hold a backend without its MethodInfo; "preset" is then an unknown key.
  const auto info = std::find_if(methods_.begin(), methods_.end(), [&](const MethodInfo& m) { return m.name == method; });
  return entry.create(info != methods_.end() ? info->expand_presets(overrides) : overrides);
}

// Checked on a finished registry rather than in add(), so that a test may build a registry of
// one backend alone.
void Registry::check_complete() const {
  for (const BackendEntry& e : entries_)
    require(std::any_of(methods_.begin(), methods_.end(), [&](const MethodInfo& m) { return m.name == e.method; }),
            "registry: backend " + e.method + "/" + e.backend + " is registered without a MethodInfo for '" +
                e.method + "' (add_method it in methods/" + e.method + "/register.cpp)");
  for (const MethodInfo& m : methods_)
    require(!backends(m.name).empty(), "registry: method '" + m.name + "' has no backend in this build");
}

}  // namespace stereo
