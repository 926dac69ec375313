#pragma once
/// \file reference/cpu_matcher.h
/// What the `cpu` matchers have alike behind the Matcher interface: the paper's parameters and
/// the backend's own knobs bound from the user's overrides and validated once, at
/// construction, and their registry entry.

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"

namespace stereo::reference {

/// The Options of a `cpu` backend without knobs of its own.
struct NoOptions {
  template <class B>
  void describe(B& /*binder*/) {}
  void validate(const std::string& /*component*/) const {}
};

/// A `cpu` Matcher's bound and validated Params (the paper's parameters) and Options (the
/// backend's knobs: threads, precision models; each with describe() and validate()), its
/// component name and the host CPU as device.
template <class Params, class Options = NoOptions>
class CpuMatcher : public Matcher {
 public:
  using ParamsType = Params;
  using OptionsType = Options;

  /// Binds `overrides` to Params and Options in one binder (a key of neither is an error) and
  /// validates both; errors name `component` ("esaw/cpu").
  CpuMatcher(std::string component, const Overrides& overrides) : component_(std::move(component)) {
    params_json_ = bind_params(component_, overrides, params_, options_);
    validate_params(params_, component_);
    validate_params(options_, component_);
  }

  [[nodiscard]] nlohmann::json params() const override { return params_json_; }
  [[nodiscard]] std::string component() const override { return component_; }
  [[nodiscard]] std::string device() const override { return cpu_name(); }

 protected:
  Params params_;
  Options options_;

 private:
  std::string component_;
  nlohmann::json params_json_;
};

/// The registry entry of the `cpu` matcher `M` (a CpuMatcher whose constructor takes the
/// overrides) of `method`: always available, its Options described where it has any.
template <class M>
BackendEntry cpu_backend_entry(const std::string& method, std::string summary) {
  BackendEntry entry;
  entry.method = method;
  entry.backend = "cpu";
  entry.summary = std::move(summary);
  entry.unavailable = [] { return std::optional<std::string>{}; };
  entry.create = [](const Overrides& overrides) -> std::unique_ptr<Matcher> { return std::make_unique<M>(overrides); };
  using Options = typename M::OptionsType;
  if constexpr (!std::is_same_v<Options, NoOptions>)
    entry.describe_options = [component = method + "/cpu"] { return describe_defaults<Options>(component); };
  return entry;
}

}  // namespace stereo::reference
