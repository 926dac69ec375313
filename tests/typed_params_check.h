#pragma once
// The check every method's typed-parameters test makes (methods/<folder>/tests/
// test_<folder>_typed_params.cpp): create(P{}, backend), from the method's public struct
// stereo::<method>::Params, reports the same parameters as create(name, backend), its
// registered table's defaults. Here only the check; each method names its own struct.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <stereo/stereo.h>

namespace stereo::test {

/// The first backend of `method` that runs here, or "" where none does.
inline std::string available_backend(const std::string& method) {
  for (const Backend& b : list())
    if (b.method == method && b.available) return b.backend;
  return "";
}

/// The value of `key` in a matcher's parameters, or "(absent)".
inline std::string value_of(const ParamValues& values, const std::string& key) {
  const auto it = std::find_if(values.begin(), values.end(), [&](const auto& kv) { return kv.first == key; });
  return it == values.end() ? "(absent)" : it->second;
}

/// make(backend), the caller's create(P{}, backend), and create(method, backend) report the same
/// parameters; skips the test, saying why, where no backend of `method` runs here. The typed
/// create() is called where the method's header declares it: an unqualified call from here would
/// see only the overloads declared before this header (ADL looks in the Params' namespace, not
/// in stereo::), so which ones depends on the order a file includes headers.
template <class Make>
void expect_typed_defaults_match(const std::string& method, Make make) {
  const std::string backend = available_backend(method);
  if (backend.empty()) GTEST_SKIP() << method << " has no backend that runs here";
  EXPECT_EQ(make(backend).params(), create(method, backend).params());
}

}  // namespace stereo::test
