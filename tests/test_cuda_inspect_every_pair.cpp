// The pass inspector of every registered pair with a `cuda` backend (tests/inspect_every_pair.h).
// Each skips, saying why, without a CUDA device.

#include "tests/inspect_every_pair.h"

namespace stereo {
namespace {

class InspectEveryCudaPair : public ::testing::TestWithParam<std::string> {};

TEST_P(InspectEveryCudaPair, EveryStageReadsAtItsLayout) { test::check_every_stage_inspectable(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Registry, InspectEveryCudaPair,
                         ::testing::ValuesIn(test::registered_pairs([](const std::string& b) { return b == "cuda"; })),
                         test::pair_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(InspectEveryCudaPair);

}  // namespace
}  // namespace stereo
