// The pass inspector of every registered pair with a GL backend (gl, glcompute, ...:
// tests/inspect_every_pair.h). Each skips, saying why, where no OpenGL 4.5 context can be made.

#include "tests/inspect_every_pair.h"

namespace stereo {
namespace {

class InspectEveryGlPair : public ::testing::TestWithParam<std::string> {};

TEST_P(InspectEveryGlPair, EveryStageReadsAtItsLayout) { test::check_every_stage_inspectable(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Registry, InspectEveryGlPair,
                         ::testing::ValuesIn(test::registered_pairs([](const std::string& b) {
                           return b.rfind("gl", 0) == 0;
                         })),
                         test::pair_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(InspectEveryGlPair);  // a build without GL methods

}  // namespace
}  // namespace stereo
