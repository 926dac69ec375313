#pragma once
/// \file core/params.h
/// Binding of a method's `Params` struct to `--set key=value` overrides and to JSON.
///
/// A Params struct lists its fields once, in `template <class B> void describe(B& b)`, with
/// `b.field("gamma", gamma, "SA-LAP fall-off, Lu et al. Sec. 4")`; choices are given as
/// `b.choice("cost", cost, {"rgb_mean", "luma"}, "...")`. A backend binds the method's struct
/// and its own options into one ParamBinder, so unknown keys are rejected per backend.

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "stereo/params.h"  // Overrides

namespace stereo {

/// Parses "key=value" (the CLI's --set argument).
std::pair<std::string, std::string> parse_override(const std::string& text);

/// Holds references to the bound structs' fields, so it lives only as long as they do (as in
/// bind_params); neither copyable nor movable, so a copy can never write through a stale entry.
class ParamBinder {
 public:
  explicit ParamBinder(std::string component) : component_(std::move(component)) {}
  ParamBinder(const ParamBinder&) = delete;
  ParamBinder& operator=(const ParamBinder&) = delete;
  ParamBinder(ParamBinder&&) = delete;
  ParamBinder& operator=(ParamBinder&&) = delete;

  void field(const std::string& key, float& value, const std::string& doc);
  void field(const std::string& key, int& value, const std::string& doc);
  void field(const std::string& key, bool& value, const std::string& doc);
  void choice(const std::string& key, std::string& value, std::vector<std::string> allowed,
              const std::string& doc);

  /// Applies the overrides in order; throws stereo::Error on an unknown key or a bad value.
  void apply(const Overrides& overrides);

  /// Current values, by key.
  [[nodiscard]] nlohmann::json to_json() const;

  /// One line per key: "key = value  (doc)".
  [[nodiscard]] std::string describe() const;

 private:
  struct Entry {
    std::string key;
    std::string doc;
    std::function<void(const std::string&)> set;
    std::function<nlohmann::json()> get;
  };
  Entry* find(const std::string& key);
  std::string component_;
  std::vector<Entry> entries_;
};

static_assert(!std::is_copy_constructible_v<ParamBinder> && !std::is_move_constructible_v<ParamBinder> &&
                  !std::is_copy_assignable_v<ParamBinder> && !std::is_move_assignable_v<ParamBinder>,
              "ParamBinder entries refer to the bound fields; it must stay where it was made");

/// One row of a parameter table: the key, its value (a JSON number, bool or string) and what
/// it is (for a choice, the doc ends with the allowed values, "(a|b)").
struct ParamDoc {
  std::string key;
  nlohmann::json value;
  std::string doc;
};

/// The rows of a table as ParamBinder::describe() writes it ("  key = value  (doc)" lines),
/// read back: how the library's stereo::params() gives a method's registered table
/// (MethodInfo::describe_params, text) as data. Throws stereo::Error naming the line that is
/// not in that form.
std::vector<ParamDoc> parse_param_table(const std::string& text);

/// The parameter table of a Params struct at its defaults: "key = value  (doc)" per line (what
/// a method registers as MethodInfo::describe_params).
template <class Params>
std::string describe_defaults(const std::string& component) {
  Params defaults;
  ParamBinder binder(component);
  defaults.describe(binder);
  return binder.describe();
}

/// Binds `params` (any struct with describe()) plus optional backend options and applies
/// `overrides`; returns the binder's JSON of the final values.
template <class... Structs>
nlohmann::json bind_params(const std::string& component, const Overrides& overrides, Structs&... structs) {
  ParamBinder binder(component);
  (structs.describe(binder), ...);
  binder.apply(overrides);
  return binder.to_json();
}

/// Runs `s.validate(component)` (a Params or Options struct's range checks, which throw plain
/// stereo::Error): what it refuses is the caller's value, so its errors leave with
/// ErrorKind::invalid_argument, as the binder's own do.
template <class Struct>
void validate_params(const Struct& s, const std::string& component) {
  try {
    s.validate(component);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::failure) throw;
    throw Error(e.what(), ErrorKind::invalid_argument);
  }
}

}  // namespace stereo
