// the SGBM peer's typed parameters (stereo/sgbm.h): create(Params{}, backend) reports the
// registered table's defaults (tests/typed_params_check.h).

#include <gtest/gtest.h>

#include <stereo/sgbm.h>
#include <stereo/stereo.h>

#include "tests/typed_params_check.h"

namespace stereo {
namespace {

TEST(SgbmTypedParams, DefaultsAreTheRegisteredTable) {
  test::expect_typed_defaults_match(
      "sgbm", [](const std::string& backend) { return create(sgbm::Params{}, backend); });
}

}  // namespace
}  // namespace stereo
