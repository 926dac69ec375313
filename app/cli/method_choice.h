#pragma once
/// \file method_choice.h
/// The method, backend and --set overrides that run, eval and bench take, declared once.

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "core/matcher.h"
#include "core/params.h"

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
};

/// The run's first lines: method/backend, the device and every parameter in force.
inline void print_params(const std::string& method, const std::string& backend, const Matcher& m) {
  std::cout << method << "/" << backend << " on " << m.device() << "\nparams: " << m.params().dump() << "\n";
}

}  // namespace stereo::cli
