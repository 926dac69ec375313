// crossrt's cases for the generic tests under tests/ (tests/method_cases.h).

#include "tests/method_cases.h"

namespace stereo::test {

void declare_crossrt_cases(MethodCases& cases) {
  using F = DisparityMap::Form;
  cases.sequences.push_back({"crossrt", "crossrt", {}, {0, 48}, 203, 71, 3, F::pixels_f32});
  cases.sequences.push_back(
      {"crossrt_full_scale_grey", "crossrt", {{"scale", "1"}, {"subpixel", "0"}}, {-3, 24}, 131, 57, 1, F::pixels_f32});
  // The default K = 2 returns twice a half-size level, so an odd plane is not representable;
  // the scale-2 ranges are tested with even planes in test_crossrt_reference.cpp.
  cases.range_options.push_back({"crossrt", "", {{"scale", "1"}}, "K = 2 holds even disparities only"});
}

}  // namespace stereo::test
