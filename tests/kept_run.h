#pragma once
// A small textured pair and a salap/cpu run that kept its passes: the fixture of the dump tests
// (tests/test_passes.cpp) and of salap's own inspector test, written once.

#include <memory>

#include "core/matcher.h"
#include "methods/builtin.h"
#include "tests/test_util.h"

namespace stereo::test {

constexpr int KEPT_W = 23, KEPT_H = 17;
inline const DisparityRange KEPT_RANGE{-1, 5};

struct KeptPair {
  ImageU8 left, right;
};
inline KeptPair make_kept_pair() {
  KeptPair p;
  p.left = random_texture(KEPT_W, KEPT_H, 77u, 3);
  p.right = shifted(p.left, 2);
  return p;
}

/// salap/cpu (window 9, 2 threads) over KEPT_RANGE with keep_passes(true), after one run.
inline std::unique_ptr<Matcher> kept_cpu_run(const KeptPair& pair) {
  auto m = create_matcher("salap", "cpu", Overrides{{"window", "9"}, {"threads", "2"}});
  m->keep_passes(true);
  (void)m->compute(pair.left, pair.right, KEPT_RANGE);
  return m;
}

}  // namespace stereo::test
