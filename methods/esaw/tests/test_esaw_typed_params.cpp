// ESAW and ESMP's typed parameters (stereo/esaw.h): create(Params{}, backend) reports the
// registered table's defaults (tests/typed_params_check.h).

#include <gtest/gtest.h>

#include <stereo/esaw.h>
#include <stereo/stereo.h>

#include "tests/typed_params_check.h"

namespace stereo {
namespace {

TEST(EsawTypedParams, DefaultsAreTheRegisteredTable) {
  test::expect_typed_defaults_match<esaw::Params>("esaw");
}

TEST(EsmpTypedParams, DefaultsAreTheRegisteredTable) {
  test::expect_typed_defaults_match<esmp::Params>("esmp");
}

}  // namespace
}  // namespace stereo
