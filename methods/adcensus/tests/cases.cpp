// adcensus's cases for the generic tests under tests/ (tests/method_cases.h).

#include "tests/method_cases.h"

namespace stereo::test {

void declare_adcensus_cases(MethodCases& cases) {
  using F = DisparityMap::Form;
  cases.sequences.push_back({"adcensus", "adcensus", {}, {0, 48}, 203, 71, 3, F::pixels_f32});
  cases.sequences.push_back({"adcensus_no_graph", "adcensus", {{"graph", "off"}}, {-4, 40}, 121, 47, 3, F::pixels_f32});
  // Without the sub-pixel step the map is whole levels: the compact read-back's indices.
  cases.sequences.push_back(
      {"adcensus_wta_indices", "adcensus", {{"refine", "none"}}, {0, 64}, 160, 50, 3, F::index_u8});
}

}  // namespace stereo::test
