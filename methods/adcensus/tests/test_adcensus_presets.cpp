// adcensus's presets as registered (core/registry.h ParamPreset): what `--set preset=NAME`
// stands for on this method.

#include <gtest/gtest.h>

#include <string>

#include "core/registry.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

// AD-Census's preset, as registered: the levers issue 29 names and nothing else, labelled as
// not the paper's.
TEST(Presets, AdCensusPresetChangesOnlyTheArmsAndTheCostBalance) {
  const MethodInfo& info = builtin_registry().method("adcensus");
  ASSERT_EQ(info.presets.size(), 1u);
  const ParamPreset& p = info.presets[0];
  EXPECT_EQ(p.name, "middeval3");
  EXPECT_NE(p.note.find("not the paper's"), std::string::npos) << p.note;
  for (const auto& [key, value] : p.overrides)
    EXPECT_TRUE(key == "arm_l1" || key == "arm_l2" || key == "lambda_ad" || key == "lambda_census") << key;
}

}  // namespace
}  // namespace stereo
