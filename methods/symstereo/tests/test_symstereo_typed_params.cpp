// SymStereo's typed parameters (stereo/symstereo.h): create(Params{}, backend) reports the
// registered table's defaults (tests/typed_params_check.h).

#include <gtest/gtest.h>

#include <stereo/symstereo.h>
#include <stereo/stereo.h>

#include "tests/typed_params_check.h"

namespace stereo {
namespace {

TEST(SymstereoTypedParams, DefaultsAreTheRegisteredTable) {
  test::expect_typed_defaults_match(
      "symstereo", [](const std::string& backend) { return create(symstereo::Params{}, backend); });
}

}  // namespace
}  // namespace stereo
