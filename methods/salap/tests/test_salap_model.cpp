// What SA-LAP's model header (methods/salap/model.h) holds for both backends, against Lu et al.
// (ICIP 2007): the one-sided weights of the truncated Laplacian kernel (eq. 1, 2, 5).

#include <gtest/gtest.h>

#include <cmath>

#include "methods/salap/model.h"

namespace stereo {
namespace {

TEST(SalapModel, WeightsAreTheOneSidedLaplacian) {
  const SalapParams p;  // Sec. 4: N = 33, gamma = 5
  const auto w = salap::kernel_weights(p);
  ASSERT_EQ(w.size(), 17u);  // W + 1 taps, W = (N - 1) / 2 = 16
  EXPECT_DOUBLE_EQ(w[0], 1.0);
  EXPECT_NEAR(w[5], std::exp(-1.0), 1e-15);
  EXPECT_NEAR(w[16], std::exp(-16.0 / 5.0), 1e-15);
}

TEST(SalapModel, QuadrantKernelIsTheProductOfTwoOneSidedHalves) {
  // Eq. 1: exp(-(|dx| + |dy|) / gamma) = w[|dx|] w[|dy|], what makes the kernel separable (eq. 5).
  SalapParams p;
  p.gamma = 3.5f;
  p.window = 17;
  const auto w = salap::kernel_weights(p);
  ASSERT_EQ(w.size(), 9u);
  for (int dy = 0; dy < 9; ++dy)
    for (int dx = 0; dx < 9; ++dx)
      EXPECT_NEAR(w[std::size_t(dx)] * w[std::size_t(dy)], std::exp(-double(dx + dy) / 3.5), 1e-15) << dx << " " << dy;
}

}  // namespace
}  // namespace stereo
