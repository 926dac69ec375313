// The pass inspector of every registered pair with a `cpu` backend (tests/inspect_every_pair.h),
// and that every registered backend is one some test executable checks.

#include "tests/inspect_every_pair.h"

namespace stereo {
namespace {

class InspectEveryCpuPair : public ::testing::TestWithParam<std::string> {};

TEST_P(InspectEveryCpuPair, EveryStageReadsAtItsLayout) { test::check_every_stage_inspectable(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Registry, InspectEveryCpuPair,
                         ::testing::ValuesIn(test::registered_pairs([](const std::string& b) { return b == "cpu"; })),
                         test::pair_test_name);

// The CPU, GL and CUDA executables split the backends as cpu, gl*, cuda: a backend of another
// kind would be checked by none of them.
TEST(InspectEveryPair, EveryBackendIsCheckedSomewhere) {
  const auto unchecked = test::registered_pairs(
      [](const std::string& b) { return b != "cpu" && b.rfind("gl", 0) != 0 && b != "cuda"; });
  EXPECT_TRUE(unchecked.empty()) << unchecked.front() << " is checked by no executable";
  EXPECT_FALSE(test::registered_pairs([](const std::string& b) { return b == "cpu"; }).empty());
}

}  // namespace
}  // namespace stereo
