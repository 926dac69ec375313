// AD-Census's typed parameters (stereo/adcensus.h, stereo::adcensus::Params) against the string
// overrides the CLI and Python use: the defaults are the registered table's, every field reaches
// the matcher exactly (floats too), and the string options given beside them win. Every other
// method checks its defaults in its own test_<folder>_typed_params.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <stereo/adcensus.h>
#include <stereo/stereo.h>

#include "core/params.h"
#include "methods/adcensus/params.h"
#include "methods/typed_params.h"
#include "tests/typed_params_check.h"

namespace stereo {
namespace {

TEST(AdCensusTypedParams, DefaultsAreTheRegisteredTable) {
  test::expect_typed_defaults_match(
      "adcensus", [](const std::string& backend) { return create(adcensus::Params{}, backend); });
}

// The text the typed fields are written as reads back to the same values: floats that "%.7g"
// would round (0.1f * 3, a value with nine significant digits) included.
TEST(AdCensusTypedParams, EveryFieldBindsBackExactly) {
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

TEST(AdCensusTypedParams, FieldsReachTheMatcherAndStringOptionsWin) {
  adcensus::Params p;
  p.pi2 = 4.0f;
  p.refine = "lrc";
  EXPECT_EQ(test::value_of(create(p, "cpu").params(), "pi2"), "4.0");
  EXPECT_EQ(test::value_of(create(p, "cpu").params(), "refine"), "lrc");
  EXPECT_EQ(test::value_of(create(p, "cpu", {{"pi2", "5"}}).params(), "pi2"), "5.0");
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
