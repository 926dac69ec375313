// The GL pipeline against the CPU reference on the four Middlebury v2 scenes.
// Bars (not loosened when missed; the measured figures are printed and recorded):
//  - gl_format=rgba32f: >= 99% identical integer disparities vs the float reference;
//  - gl_format=rgba8 (default) vs the CPU model of the renderer's 8-bit path, and its
//    bad-pixel nonocc (threshold 1.0) within 1.0 percentage point of the float reference's.
//    The model is per renderer, because the renderers filter RGBA8 differently:
//      GPUs: the reference at quantize=8 (exact taps); the texture unit's 8-bit sub-texel
//        weights remain as a difference: >= 97% (NVIDIA H100: 99.6-99.8%);
//      Mesa llvmpipe: its 8-bit fixed-point sampler and the gl backend's depth-test WTA,
//        modelled in tests/test_sampler_model.h: >= 99.5%. Measured (Mesa 22.3.6, LLVM 15):
//        tsukuba 99.9991%, venus 99.997%, teddy 99.9964%, cones 99.9994%, tsukuba 4-window
//        100%; every filter output checked is exact (37x29 stage test; tsukuba d = 4..7).
//        What is left are near-ties decided by how the compiled shader orders float sums:
//        summing Ca left to right instead of pairwise alone costs 0.03-0.07%, so the bar
//        leaves room for a Mesa compiler change of that kind and still fails on anything
//        the size of the sampler's own effect. Against the
//        plain quantize=8 reference llvmpipe measures 97.4-98.7%, 0.4-1.7 points above a 97%
//        bar: too close to survive a Mesa update, and explained by the sampler, hence the
//        model.
// Each reference map is computed once per test binary (static cache).

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "gl/context.h"
#include "methods/salap/gl/salap_gl.h"
#include "app/dataset.h"
#include "app/metrics.h"
#include "methods/salap/reference/salap.h"
#include "tests/test_gl_util.h"
#include "methods/salap/tests/test_sampler_model.h"

namespace stereo::gl {
namespace {

const Scene* scene(const std::string& name) {
  static std::map<std::string, Scene> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    const auto dir = data_root() / "middlebury-v2" / name;
    if (!std::filesystem::exists(dir / "left.png")) return nullptr;
    it = cache.emplace(name, load_scene(dir)).first;
  }
  return &it->second;
}

const ImageF& reference_map(const Scene& s, const std::string& windows, int quantize) {
  static std::map<std::string, ImageF> cache;
  const std::string key = s.name + "/" + windows + "/" + std::to_string(quantize);
  auto it = cache.find(key);
  if (it == cache.end()) {
    SalapParams params;
    params.windows = windows;
    it = cache.emplace(key, reference::salap_disparity(s.left, s.right, s.levels, params, quantize)).first;
  }
  return it->second;
}

// The CPU model of this renderer's rgba8 path (see the top of the file), and the bar that goes
// with it.
struct Rgba8Model {
  ImageF map;
  const char* name;
  double bar;
};
Rgba8Model rgba8_model(const Scene& s, const std::string& windows) {
  if (!shared_context()->is_llvmpipe()) return {reference_map(s, windows, 8), "reference quantize=8", 0.97};
  SalapParams params;
  params.windows = windows;
  return {test::llvmpipe_disparity(s.left, s.right, s.levels, params), "llvmpipe fixed-point model", 0.995};
}

class GlSalapScene : public ::testing::TestWithParam<std::string> {};

TEST_P(GlSalapScene, AgreesWithReference) {
  STEREO_REQUIRE_GL45();
  const Scene* s = scene(GetParam());
  if (s == nullptr) GTEST_SKIP() << missing_data_hint("middlebury-v2/" + std::string(GetParam()));

  SalapGlMatcher gl32(Overrides{{"gl_format", "rgba32f"}});
  SalapGlMatcher gl8(Overrides{});
  const StereoResult r32 = gl32.compute(s->left, s->right, s->levels);
  const StereoResult r8 = gl8.compute(s->left, s->right, s->levels);
  const ImageF& ref_float = reference_map(*s, "9", 0);
  const Rgba8Model model = rgba8_model(*s, "9");

  const double share32 = agreement(r32.disparity, ref_float);
  const double share8 = agreement(r8.disparity, model.map);
  const double bad_ref = *evaluate(ref_float, *s, 1.0).bad_nonocc;
  const double bad_gl8 = *evaluate(r8.disparity, *s, 1.0).bad_nonocc;
  const double bad_gl32 = *evaluate(r32.disparity, *s, 1.0).bad_nonocc;
  std::cout << s->name << " (" << s->left.width << "x" << s->left.height << ", " << s->levels << " levels): "
            << "rgba32f vs reference float " << 100.0 * share32 << "% identical; rgba8 vs " << model.name << " "
            << 100.0 * share8 << "% identical; bad nonocc: reference float " << bad_ref << "%, gl rgba8 " << bad_gl8
            << "%, gl rgba32f " << bad_gl32 << "%; gl rgba8 algorithm " << r8.timing.algorithm_ms << " ms ("
            << r8.timing.clock << ")\n";
  RecordProperty("rgba32f_agreement", std::to_string(share32));
  RecordProperty("rgba8_agreement_model", std::to_string(share8));
  RecordProperty("rgba8_model", model.name);
  RecordProperty("bad_nonocc_reference", std::to_string(bad_ref));
  RecordProperty("bad_nonocc_gl_rgba8", std::to_string(bad_gl8));
  EXPECT_GE(share32, 0.99);
  EXPECT_GE(share8, model.bar) << model.name;
  EXPECT_NEAR(bad_gl8, bad_ref, 1.0);
}

INSTANTIATE_TEST_SUITE_P(MiddleburyV2, GlSalapScene, ::testing::Values("tsukuba", "venus", "teddy", "cones"),
                         [](const auto& param_info) { return param_info.param; });

TEST(GlSalapScene4Window, AgreesWithReferenceOnTsukuba) {
  STEREO_REQUIRE_GL45();
  const Scene* s = scene("tsukuba");
  if (s == nullptr) GTEST_SKIP() << missing_data_hint("middlebury-v2/tsukuba");
  SalapGlMatcher gl32(Overrides{{"gl_format", "rgba32f"}, {"windows", "4"}});
  SalapGlMatcher gl8(Overrides{{"windows", "4"}});
  const double share32 = agreement(gl32.compute(s->left, s->right, s->levels).disparity, reference_map(*s, "4", 0));
  const Rgba8Model model = rgba8_model(*s, "4");
  const double share8 = agreement(gl8.compute(s->left, s->right, s->levels).disparity, model.map);
  std::cout << "tsukuba 4-window: rgba32f vs reference float " << 100.0 * share32 << "% identical; rgba8 vs "
            << model.name << " " << 100.0 * share8 << "%\n";
  RecordProperty("rgba32f_agreement_4window", std::to_string(share32));
  RecordProperty("rgba8_agreement_model_4window", std::to_string(share8));
  EXPECT_GE(share32, 0.99);
  EXPECT_GE(share8, model.bar) << model.name;
}

}  // namespace
}  // namespace stereo::gl
