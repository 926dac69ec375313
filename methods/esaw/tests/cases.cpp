// esaw's and esmp's cases for the generic tests under tests/ (tests/method_cases.h).

#include "tests/method_cases.h"

namespace stereo::test {

void declare_esaw_cases(MethodCases& cases) {
  using F = DisparityMap::Form;
  cases.sequences.push_back({"esaw", "esaw", {}, {0, 32}, 177, 64, 3, F::index_u8});
  cases.sequences.push_back(
      {"esaw_l2_slabs", "esaw", {{"slab_planes", "5"}, {"cuda_graph", "false"}}, {2, 29}, 97, 45, 3, F::index_u8});
  cases.sequences.push_back({"esmp", "esmp", {}, {0, 32}, 141, 52, 3, F::index_u8});
}

}  // namespace stereo::test
