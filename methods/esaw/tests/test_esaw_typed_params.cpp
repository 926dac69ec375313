// ESAW and ESMP's typed parameters (stereo/esaw.h): create(Params{}, backend) reports the
// registered table's defaults (tests/typed_params_check.h).

#include <gtest/gtest.h>

#include <stereo/esaw.h>
#include <stereo/stereo.h>

#include "tests/typed_params_check.h"

namespace stereo {
namespace {

TEST(EsawTypedParams, DefaultsAreTheRegisteredTable) {
  test::expect_typed_defaults_match(
      "esaw", [](const std::string& backend) { return create(esaw::Params{}, backend); });
}

TEST(EsmpTypedParams, DefaultsAreTheRegisteredTable) {
  test::expect_typed_defaults_match(
      "esmp", [](const std::string& backend) { return create(esmp::Params{}, backend); });
}

}  // namespace
}  // namespace stereo
