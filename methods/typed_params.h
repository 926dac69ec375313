#pragma once
/// \file methods/typed_params.h
/// A method's typed parameters (stereo::<method>::Params, stereo/<method>.h) into a matcher by
/// the one binding path the CLI and Python take: the method's describe() lists every field as
/// ("key", "value") text, and the registry's create() binds that text as it binds `--set`.
/// Each method's register.cpp defines its create(const <method>::Params&, ...) through
/// create_typed<InternalParams>().

#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "stereo/params.h"
#include "stereo/stereo.h"

namespace stereo {

/// A binder for describe() that writes each field as the text ParamBinder reads back to the
/// same value: floats in the fewest digits that round-trip (std::to_chars), so that no typed
/// value is rounded on its way to the matcher.
class OverrideWriter {
 public:
  void field(const std::string& key, float& value, const std::string& /*doc*/) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    require(ec == std::errc(), "typed parameters: cannot write " + key);
    out_.emplace_back(key, std::string(text, end));
  }
  void field(const std::string& key, int& value, const std::string& /*doc*/) {
    out_.emplace_back(key, std::to_string(value));
  }
  void field(const std::string& key, bool& value, const std::string& /*doc*/) {
    out_.emplace_back(key, value ? "true" : "false");
  }
  void choice(const std::string& key, std::string& value, const std::vector<std::string>& /*allowed*/,
              const std::string& /*doc*/) {
    out_.emplace_back(key, value);
  }
  [[nodiscard]] Overrides take() { return std::move(out_); }

 private:
  Overrides out_;
};

/// Every field of `params` as overrides, in describe()'s order.
template <class Internal, class Public>
Overrides typed_overrides(const Public& params) {
  Internal bound;
  static_cast<Public&>(bound) = params;
  OverrideWriter writer;
  bound.describe(writer);
  return writer.take();
}

/// create(method, backend, ...) with every field of `params`, then `options` (which win).
template <class Internal, class Public>
StereoMatcher create_typed(const std::string& method, const Public& params, const std::string& backend,
                           const Overrides& options) {
  Overrides all = typed_overrides<Internal>(params);
  all.insert(all.end(), options.begin(), options.end());
  return create(method, backend, all);
}

}  // namespace stereo
