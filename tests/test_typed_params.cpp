// Each method's typed parameters (stereo/<method>.h, stereo::<method>::Params) against the
// string overrides the CLI and Python use: the defaults are the registered table's, every field
// reaches the matcher exactly (floats too), and the string options given beside them win.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <stereo/adcensus.h>
#include <stereo/crossrt.h>
#include <stereo/esaw.h>
#include <stereo/salap.h>
#include <stereo/sgbm.h>
#include <stereo/stereo.h>
#include <stereo/symstereo.h>

#include "core/params.h"
#include "methods/adcensus/params.h"
#include "methods/typed_params.h"

namespace stereo {
namespace {

/// The first backend of `method` that runs here, or "" where none does.
std::string available_backend(const std::string& method) {
  for (const Backend& b : list())
    if (b.method == method && b.available) return b.backend;
  return "";
}

std::string value_of(const ParamValues& values, const std::string& key) {
  const auto it = std::find_if(values.begin(), values.end(), [&](const auto& kv) { return kv.first == key; });
  return it == values.end() ? "(absent)" : it->second;
}

/// create(P{}, backend) and create(name, backend) report the same parameters.
template <class P>
void expect_typed_defaults_match(const std::string& method, int& checked) {
  SCOPED_TRACE(method);
  const std::string backend = available_backend(method);
  if (backend.empty()) return;  // sgbm without OpenCV, symstereo without FFTW or CUDA
  EXPECT_EQ(create(P{}, backend).params(), create(method, backend).params());
  ++checked;
}

TEST(TypedParams, DefaultsAreTheRegisteredTables) {
  int checked = 0;
  expect_typed_defaults_match<salap::Params>("salap", checked);
  expect_typed_defaults_match<adcensus::Params>("adcensus", checked);
  expect_typed_defaults_match<crossrt::Params>("crossrt", checked);
  expect_typed_defaults_match<symstereo::Params>("symstereo", checked);
  expect_typed_defaults_match<esaw::Params>("esaw", checked);
  expect_typed_defaults_match<esmp::Params>("esmp", checked);
  expect_typed_defaults_match<sgbm::Params>("sgbm", checked);
  EXPECT_GE(checked, 5) << "salap, adcensus, crossrt, esaw and esmp have cpu backends";
}

// The text the typed fields are written as reads back to the same values: floats that "%.7g"
// would round (0.1f * 3, a value with nine significant digits) included.
TEST(TypedParams, EveryFieldBindsBackExactly) {
  AdCensusParams typed;
  typed.lambda_ad = 0.1f * 3.0f;
  typed.tau_h = 0.123456789f;
  typed.pi2 = 3.0000002f;
  typed.arm_l1 = 21;
  typed.refine = "vote";
  const Overrides text = typed_overrides<AdCensusParams>(static_cast<const adcensus::Params&>(typed));
  AdCensusParams bound;
  bind_params("adcensus/test", text, bound);
  EXPECT_EQ(bound.lambda_ad, typed.lambda_ad);
  EXPECT_EQ(bound.tau_h, typed.tau_h);
  EXPECT_EQ(bound.pi2, typed.pi2);
  EXPECT_EQ(bound.arm_l1, 21);
  EXPECT_EQ(bound.refine, "vote");
  // Every key of the table is written: the typed form leaves none at the binder's default.
  EXPECT_EQ(text.size(), params("adcensus").size());
}

TEST(TypedParams, FieldsReachTheMatcherAndStringOptionsWin) {
  adcensus::Params p;
  p.pi2 = 4.0f;
  p.refine = "lrc";
  EXPECT_EQ(value_of(create(p, "cpu").params(), "pi2"), "4.0");
  EXPECT_EQ(value_of(create(p, "cpu").params(), "refine"), "lrc");
  EXPECT_EQ(value_of(create(p, "cpu", {{"pi2", "5"}}).params(), "pi2"), "5.0");
  p.arm_l1 = 0;  // out of range: the method's validate() names the key
  try {
    (void)create(p, "cpu");
    FAIL() << "arm_l1 = 0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("arm_l1"), std::string::npos) << e.what();
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
}

}  // namespace
}  // namespace stereo
