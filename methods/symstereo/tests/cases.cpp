// symstereo's cases for the generic tests under tests/ (tests/method_cases.h).

#include "tests/method_cases.h"

namespace stereo::test {

void declare_symstereo_cases(MethodCases& cases) {
  using F = DisparityMap::Form;
  cases.sequences.push_back({"symstereo", "symstereo", {}, {0, 40}, 150, 61, 3, F::index_u8});
  // Over 256 levels: the compact read-back's 16-bit indices.
  cases.sequences.push_back(
      {"symstereo_16bit_indices", "symstereo", {{"wavelets", "8"}}, {-5, 300}, 330, 23, 3, F::index_u16});
}

}  // namespace stereo::test
