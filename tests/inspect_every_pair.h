#pragma once
// The pass inspector of every registered (method, backend) pair, whatever the method: the
// check the CPU, GL and CUDA test executables each run over the pairs of their backends
// (test_inspect_every_pair.cpp, test_gl_inspect_every_pair.cpp,
// test_cuda_inspect_every_pair.cpp). No method is named here: a method registered tomorrow is
// checked by the same loop.

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/inspect.h"
#include "core/registry.h"
#include "methods/builtin.h"
#include "tests/test_util.h"

namespace stereo::test {

/// The backend of the OpenCV peer: a comparison, not one of the suite's methods; it shows no stages.
inline const std::string PEER_BACKEND = "opencv";

/// "method/backend" of every registered pair whose backend `kind` accepts, the peer left out.
template <class Kind>
std::vector<std::string> registered_pairs(Kind&& kind) {
  std::vector<std::string> out;
  for (const BackendEntry& e : builtin_registry().entries())
    if (e.backend != PEER_BACKEND && kind(e.backend)) out.push_back(e.method + "/" + e.backend);
  return out;
}

/// A test name of a pair: "esaw_cuda".
inline std::string pair_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

/// keep_passes(true) and a small run of `pair` with its defaults give a non-empty list of
/// passes, each named once, each slice read at its layout's size; a second run over another
/// range replaces the first run's passes; without keep_passes there is no inspector.
inline void check_every_stage_inspectable(const std::string& pair) {
  const std::string method = pair.substr(0, pair.find('/')), backend = pair.substr(pair.find('/') + 1);
  const BackendEntry& entry = builtin_registry().find(method, backend);
  if (const auto why = entry.unavailable()) GTEST_SKIP() << pair << " is not available here: " << *why;
  const ImageU8 left = random_texture(48, 32, 11u, 3);
  const ImageU8 right = shifted(left, 3);

  auto plain = create_matcher(method, backend, Overrides{});
  (void)plain->compute(left, right, DisparityRange{0, 8});
  EXPECT_EQ(plain->inspector(), nullptr) << pair << ": an inspector without keep_passes(true)";

  auto m = create_matcher(method, backend, Overrides{});
  m->keep_passes(true);
  ASSERT_NE(m->inspector(), nullptr) << pair;
  EXPECT_TRUE(m->inspector()->passes().empty()) << pair << ": passes before the first run";
  for (const DisparityRange range : {DisparityRange{0, 8}, DisparityRange{2, 6}}) {
    (void)m->compute(left, right, range);
    PassInspector& in = *m->inspector();
    const std::vector<PassLayout> layouts = in.passes();
    ASSERT_FALSE(layouts.empty()) << pair << " showed no stage";
    std::set<std::string> names;
    for (const PassLayout& l : layouts) {
      SCOPED_TRACE(pair + " pass " + l.name);
      EXPECT_TRUE(names.insert(l.name).second) << "named twice";
      EXPECT_FALSE(l.what.empty());
      EXPECT_FALSE(l.storage.empty());
      EXPECT_GT(l.width, 0);
      EXPECT_GT(l.height, 0);
      ASSERT_GE(l.slices, 1);
      if (l.disparities_per_slice > 0) {
        // This run's range (a backend that scales the image halves it: crossrt's min / 2).
        EXPECT_GE(l.first_disparity, range.min / 2);
        EXPECT_LE(l.first_disparity, range.min);
      }
      for (int s = 0; s < l.slices; ++s) {
        const ImageF v = in.read(l.name, s);
        EXPECT_EQ(v.width, l.width) << "slice " << s;
        EXPECT_EQ(v.height, l.height) << "slice " << s;
        EXPECT_EQ(v.channels, l.channels) << "slice " << s;
        EXPECT_EQ(v.data.size(), std::size_t(l.width) * std::size_t(l.height) * std::size_t(l.channels));
      }
      EXPECT_THROW((void)in.read(l.name, l.slices), Error);
    }
    EXPECT_THROW((void)in.read("no such pass", 0), Error);
  }
}

}  // namespace stereo::test
