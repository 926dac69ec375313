#pragma once
/// \file reference/cpu_matcher.h
/// What the `cpu` matchers of one Params struct have alike behind the Matcher interface: the
/// parameters bound from the user's overrides and validated once, at construction.

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/matcher.h"
#include "core/params.h"

namespace stereo::reference {

/// A `cpu` Matcher's bound and validated Params, its component name and the host CPU as device.
template <class Params>
class CpuMatcher : public Matcher {
 public:
  /// Binds `overrides` to Params and validates them; errors name `component` ("esaw/cpu").
  CpuMatcher(std::string component, const Overrides& overrides) : component_(std::move(component)) {
    params_json_ = bind_params(component_, overrides, params_);
    params_.validate(component_);
  }

  [[nodiscard]] nlohmann::json params() const override { return params_json_; }
  [[nodiscard]] std::string component() const override { return component_; }
  [[nodiscard]] std::string device() const override { return cpu_name(); }

 protected:
  Params params_;

 private:
  std::string component_;
  nlohmann::json params_json_;
};

}  // namespace stereo::reference
