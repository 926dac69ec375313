#pragma once
/// \file app/cli/method_choice.h
/// The method, backend and --set overrides that run, eval and bench take, declared once.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "core/matcher.h"
#include "core/params.h"
#include "app/listing.h"
#include "core/registry.h"
#include "methods/builtin.h"

namespace stereo::cli {

struct MethodChoice {
  std::string method;
  std::string backend = "cpu";
  std::vector<std::string> sets;

  /// Adds -m, -b and --set to `sub`; `backend_optional_default` shows "cpu" as -b's default
  /// (bench has none: without -b it times every available GPU backend).
  void add_to(CLI::App* sub, bool backend_optional_default = true) {
    sub->add_option("-m,--method", method, "method name (see `stereo list`)")->required();
    auto* b = sub->add_option("-b,--backend", backend, "backend: cpu, gl, glcompute, cuda (see `stereo list`)");
    if (backend_optional_default) b->capture_default_str();
    sub->add_option("--set", sets, "override a parameter: --set key=value (repeatable; `stereo params -m METHOD`)");
  }
  [[nodiscard]] Overrides overrides() const {
    Overrides o;
    for (const auto& s : sets) o.push_back(parse_override(s));
    return o;
  }
  /// The preset --set names (--set preset=NAME), if any; throws for an unknown name.
  [[nodiscard]] std::optional<ParamPreset> preset() const {
    return builtin_registry().method(method).preset_named(overrides());
  }
};

/// The line under the params line of a run on a preset, so its figures are never read as the
/// paper's: "preset NAME: NOTE" ("" without a preset).
inline std::string preset_line(const std::optional<ParamPreset>& preset) {
  return preset ? "preset " + preset->name + ": " + preset->note + "\n" : "";
}

/// What a result's JSON carries as "preset": the preset as `params --json` lists it, or null
/// when the run has the paper's defaults and the user's --set alone.
inline nlohmann::json preset_json(const std::optional<ParamPreset>& preset) {
  return preset ? preset_json(*preset) : nlohmann::json(nullptr);
}

/// The run's first lines: method/backend, the device, every parameter in force and the preset.
inline void print_params(const std::string& method, const std::string& backend, const Matcher& m,
                         const std::optional<ParamPreset>& preset) {
  std::cout << method << "/" << backend << " on " << m.device() << "\nparams: " << m.params().dump() << "\n"
            << preset_line(preset);
}

}  // namespace stereo::cli
