// SA-LAP's typed parameters (stereo/salap.h): create(Params{}, backend) reports the
// registered table's defaults (tests/typed_params_check.h).

#include <gtest/gtest.h>

#include <stereo/salap.h>
#include <stereo/stereo.h>

#include "tests/typed_params_check.h"

namespace stereo {
namespace {

TEST(SalapTypedParams, DefaultsAreTheRegisteredTable) {
  test::expect_typed_defaults_match(
      "salap", [](const std::string& backend) { return create(salap::Params{}, backend); });
}

}  // namespace
}  // namespace stereo
