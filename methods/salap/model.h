#pragma once
/// \file methods/salap/model.h
/// What SA-LAP (Lu, Lafruit, Catthoor, ICIP 2007) specifies and both the CPU reference and the
/// CUDA stages use: the four one-sided halves of the separable kernel and their weights (eq. 1,
/// split by eq. 2 and 5). Both backends include this header and neither includes the other;
/// only the tests see both (tests/test_salap_model.cpp checks it against the paper).

#include <cmath>
#include <cstddef>
#include <vector>

#include "methods/salap/params.h"

namespace stereo::salap {

/// Which one-sided half of the kernel: left = x-k, right = x+k, up = y-l, down = y+l.
enum class Side { left, right, up, down };

/// The one-sided weights w[k] = exp(-k / gamma), k = 0..W (W = params.radius()), in double: the
/// Laplacian kernel of eq. 1 is exp(-(|dx| + |dy|) / gamma), so each quadrant's kernel is the
/// product of two of these.
inline std::vector<double> kernel_weights(const SalapParams& params) {
  std::vector<double> w(static_cast<std::size_t>(params.radius()) + 1);
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = std::exp(-double(k) / double(params.gamma));
  return w;
}

}  // namespace stereo::salap
