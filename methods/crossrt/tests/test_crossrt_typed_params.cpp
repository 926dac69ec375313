// Chang-Maruyama's typed parameters (stereo/crossrt.h): create(Params{}, backend) reports the
// registered table's defaults (tests/typed_params_check.h).

#include <gtest/gtest.h>

#include <stereo/crossrt.h>
#include <stereo/stereo.h>

#include "tests/typed_params_check.h"

namespace stereo {
namespace {

TEST(CrossrtTypedParams, DefaultsAreTheRegisteredTable) {
  test::expect_typed_defaults_match(
      "crossrt", [](const std::string& backend) { return create(crossrt::Params{}, backend); });
}

}  // namespace
}  // namespace stereo
