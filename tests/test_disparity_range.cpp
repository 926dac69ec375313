// Disparity ranges (min, count) on every method x backend this build has and this machine
// runs: a fronto-parallel textured plane at a known disparity, searched over a range that
// starts above 0 or below 0, must come out at that disparity (not at its level index), and
// every backend must agree with the CPU reference run over the same range. Backends that are
// unavailable here (no GL context, no CUDA device) are skipped with the reason.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "app/dataset.h"
#include "core/matcher.h"
#include "tests/test_util.h"
#include "methods/builtin.h"
#include "tests/method_cases.h"

namespace stereo {
namespace {

struct RangeCase {
  int true_disparity;
  DisparityRange range;
};

// What the method declares it needs on this backend for its output to hold every integer
// disparity as its float CPU reference does (methods/<folder>/tests/cases.cpp).
Overrides range_options(const std::string& method, const std::string& backend) {
  return test::method_cases().range_overrides(method, backend);
}

// Share of the pixels whose true match lies inside both images, away from the window's reach
// of the border, that got `d` (to the nearest level: a sub-pixel step leaves d plus an offset
// under half a level; integer maps must hold d exactly).
double share_at(const ImageF& map, int d, int margin) {
  int hits = 0, total = 0;
  for (int y = margin; y < map.height - margin; ++y)
    for (int x = margin; x < map.width - margin; ++x) {
      if (x - d < margin || x - d >= map.width - margin) continue;
      ++total;
      hits += std::isfinite(map.at(x, y)) && std::lround(map.at(x, y)) == d;
    }
  return total > 0 ? double(hits) / total : 0.0;
}

// Share of pixels on which two maps agree: identical integer disparities, or for sub-pixel
// maps (a sub-pixel step on fp16 GPU volumes against float CPU ones) within half a pixel.
double agreement(const ImageF& a, const ImageF& b) {
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i)
    same += a.data[i] == b.data[i] || std::abs(a.data[i] - b.data[i]) <= 0.5f;
  return double(same) / double(a.data.size());
}

TEST(DisparityRange, EveryBackendFindsThePlaneAboveAndBelowZero) {
  const std::vector<RangeCase> cases = {
      {9, {6, 8}},     // min > 0: the plane at 9 is level index 3
      {-5, {-10, 8}},  // min < 0: the plane at -5 is level index 5
      {2, {-3, 9}},    // a range across 0
  };
  const ImageU8 left = test::random_texture(71, 37, 11);
  int backends_run = 0;
  for (const BackendEntry& entry : builtin_registry().entries()) {
    if (const auto reason = entry.unavailable ? entry.unavailable() : std::nullopt) {
      std::cout << "[range] skipping " << entry.method << "/" << entry.backend << ": " << *reason << "\n";
      continue;
    }
    auto matcher = entry.create(range_options(entry.method, entry.backend));
    // A peer (on OpenCV) has no CPU reference of its own: its range is checked, not agreement.
    const auto backends = builtin_registry().backends(entry.method);
    auto reference = std::find(backends.begin(), backends.end(), "cpu") != backends.end()
                         ? create_matcher(entry.method, "cpu", range_options(entry.method, "cpu"))
                         : nullptr;
    ++backends_run;
    for (const RangeCase& c : cases) {
      const ImageU8 right = test::shifted(left, c.true_disparity);
      const StereoResult r = matcher->compute(left, right, c.range);
      const std::optional<StereoResult> ref =
          reference ? std::optional(reference->compute(left, right, c.range)) : std::nullopt;
      for (float v : r.disparity.data)
        if (std::isfinite(v)) {
          ASSERT_GE(v, float(c.range.min)) << entry.method << "/" << entry.backend;
          ASSERT_LE(v, float(c.range.max())) << entry.method << "/" << entry.backend;
        }
      const double found = share_at(r.disparity, c.true_disparity, 4);
      const double same = ref ? agreement(r.disparity, ref->disparity) : 1.0;
      std::cout << "[range] " << entry.method << "/" << entry.backend << " plane " << c.true_disparity << " in "
                << c.range.min << ".." << c.range.max() << ": " << 100.0 * found << " % found, "
                << (ref ? std::to_string(100.0 * same) + " % agree with cpu\n" : "no cpu reference\n");
      EXPECT_GE(found, 0.95) << entry.method << "/" << entry.backend << " plane " << c.true_disparity;
      EXPECT_GE(same, 0.99) << entry.method << "/" << entry.backend << " vs cpu, plane " << c.true_disparity;
    }
  }
  EXPECT_GE(backends_run, 1);
}

// Every CPU backend refuses a range the image cannot hold, naming itself; the core's check
// (core/validate.h) is the same for all, so each must agree on the edges.
TEST(DisparityRange, ImpossibleRangesAreClearErrors) {
  const ImageU8 img = test::random_texture(32, 8, 3);
  int checked = 0;
  for (const BackendEntry& entry : builtin_registry().entries()) {
    if (entry.backend != "cpu") continue;
    if (const auto reason = entry.unavailable ? entry.unavailable() : std::nullopt) continue;
    const std::string component = entry.method + "/cpu";
    auto matcher = entry.create(range_options(entry.method, "cpu"));
    ++checked;
    for (const DisparityRange r : {DisparityRange{0, 0}, DisparityRange{0, 32}, DisparityRange{32, 4},
                                   DisparityRange{-40, 4}, DisparityRange{-31, -1}}) {
      try {
        (void)matcher->compute(img, img, r);
        ADD_FAILURE() << component << ": range " << r.min << " + " << r.count << " accepted on a 32-wide image";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(component), std::string::npos) << e.what();
      }
    }
    EXPECT_NO_THROW((void)matcher->compute(img, img, DisparityRange{-31, 4})) << component;
    EXPECT_NO_THROW((void)matcher->compute(img, img, DisparityRange{28, 3})) << component;
  }
  EXPECT_GE(checked, 1) << "no cpu backend in the registry";
}

}  // namespace
}  // namespace stereo
