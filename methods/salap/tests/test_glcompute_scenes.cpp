// The glcompute SA-LAP backend on the four Middlebury v2 scenes, against the gl (fragment)
// backend and the CPU reference, at rgba32f and rgba8. Each (scene, format) computes its
// three maps once per process (statics), so running the executable as a whole costs one
// reference run per scene and format.
//
// Bars: rgba32f >= 99% identical integer disparities against the gl backend and the float
// reference; rgba8 >= 97% against the gl backend and the 8-bit reference (quantize 8).

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <tuple>

#include "methods/salap/gl/salap_gl.h"
#include "methods/salap/gl/salap_glcompute.h"
#include "app/dataset.h"
#include "app/metrics.h"
#include "methods/salap/reference/salap.h"
#include "tests/test_gl_util.h"

using namespace stereo;

namespace {

struct Maps {
  ImageF compute, fragment, reference;
};

const Maps& maps(const std::string& scene_name, const std::string& format) {
  static std::map<std::pair<std::string, std::string>, Maps> cache;
  const auto key = std::make_pair(scene_name, format);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  const Scene scene = load_scene(data_root() / "middlebury-v2" / scene_name);
  const Overrides o = {{"gl_format", format}};
  Maps m;
  m.compute = gl::SalapGlComputeMatcher(o).compute(scene.left, scene.right, scene.levels).disparity;
  m.fragment = gl::SalapGlMatcher(o).compute(scene.left, scene.right, scene.levels).disparity;
  m.reference = reference::salap_disparity(scene.left, scene.right, scene.levels, SalapParams{},
                                           format == "rgba8" ? 8 : 0);
  return cache.emplace(key, std::move(m)).first->second;
}

class GlComputeScenes : public testing::TestWithParam<std::tuple<std::string, std::string>> {};

}  // namespace

TEST_P(GlComputeScenes, AgreesWithTheFragmentBackendAndTheReference) {
  STEREO_REQUIRE_GL45();
  const auto& [scene, format] = GetParam();
  if (!std::filesystem::exists(data_root() / "middlebury-v2" / scene))
    GTEST_SKIP() << missing_data_hint("middlebury-v2/" + std::string(scene));
  const Maps& m = maps(scene, format);
  const double bar = format == "rgba8" ? 0.97 : 0.99;
  const double vs_gl = agreement(m.compute, m.fragment);
  const double vs_ref = agreement(m.compute, m.reference);
  const double gl_vs_ref = agreement(m.fragment, m.reference);
  std::cout << "[ " << scene << " " << format << " ] glcompute vs gl " << vs_gl * 100 << " %, glcompute vs reference"
            << (format == "rgba8" ? " (quantize 8) " : " (float) ") << vs_ref * 100 << " % (gl vs reference "
            << gl_vs_ref * 100 << " %)\n";
  EXPECT_GE(vs_gl, bar);
  EXPECT_GE(vs_ref, bar);
}

INSTANTIATE_TEST_SUITE_P(MiddleburyV2, GlComputeScenes,
                         testing::Combine(testing::Values("tsukuba", "venus", "teddy", "cones"),
                                          testing::Values("rgba32f", "rgba8")),
                         [](const testing::TestParamInfo<GlComputeScenes::ParamType>& param_info) {
                           return std::get<0>(param_info.param) + "_" + std::get<1>(param_info.param);
                         });
