// `eval`'s figures on the GPU (app/view/gl_figures.h) against their host twins: evaluate() and
// error_map() of app/metrics.cpp on the map as_submitted() gives (app/protocol.cpp). Counts and
// so every percentage exactly, the average error within the rounding of another summation
// order, the error picture byte for byte, for each submission rule (Middlebury v2's bytes at two
// scales, KITTI's 16-bit PNG, maps as they are) on random maps full of the values where rounding
// and masking decide: half steps, negatives, no disparity, NaN, values past the format's top.
// Needs only a GL 4.5 context (EGL: Mesa's llvmpipe in CI, the NVIDIA driver on the GPU).

#include <gtest/gtest.h>

#include <GL/glew.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include "app/metrics.h"
#include "app/protocol.h"
#include "app/view/gl_figures.h"
#include "gl/context.h"

namespace stereo::view {
namespace {

constexpr float INF = std::numeric_limits<float>::infinity();

std::shared_ptr<gl::Context> context_or_skip(std::string& why) {
  try {
    return gl::Context::create(gl::ContextOptions::from_environment());
  } catch (const std::exception& e) {
    why = e.what();
    return nullptr;
  }
}

// A scene of `kind` with random images, ground truth (some unknown) and masks: 255 in, 0 out,
// and some 128, which is not "in" (app/metrics.cpp counts only 255).
Scene random_scene(SceneKind kind, const std::string& name, int w, int h, unsigned seed, bool nonocc, bool disc) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255), pct(0, 99);
  std::uniform_real_distribution<float> disparity(0.0f, 40.0f);
  Scene s;
  s.kind = kind;
  s.name = name;
  s.left = ImageU8(w, h, 3);
  s.right = ImageU8(w, h, 3);
  for (auto& v : s.left.data) v = std::uint8_t(byte(rng));
  s.gt = ImageF(w, h, 1);
  for (auto& g : s.gt.data) g = pct(rng) < 8 ? INF : disparity(rng);
  const auto mask = [&](int in_percent) {
    ImageU8 m(w, h, 1);
    for (auto& v : m.data) {
      const int p = pct(rng);
      v = p < in_percent ? 255 : (p < in_percent + 5 ? 128 : 0);
    }
    return m;
  };
  s.mask_all = mask(90);
  if (nonocc) s.mask_nonocc = mask(70);
  if (disc) s.mask_disc = mask(20);
  return s;
}

// A map near the scene's ground truth, salted with the values where the rules differ.
ImageF random_map(const Scene& s, float step, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pct(0, 99), whole(-8, 300);
  std::normal_distribution<float> noise(0.0f, 1.2f);
  ImageF d(s.gt.width, s.gt.height, 1);
  for (std::size_t i = 0; i < d.data.size(); ++i) {
    const int p = pct(rng);
    const float g = std::isfinite(s.gt.data[i]) ? s.gt.data[i] : 10.0f;
    if (p < 5) d.data[i] = INF;
    else if (p < 7) d.data[i] = std::numeric_limits<float>::quiet_NaN();
    else if (p < 9) d.data[i] = -1.25f;
    else if (p < 20) d.data[i] = (float(whole(rng)) + 0.5f) / step;  // a half step: rounding decides
    else if (p < 22) d.data[i] = 1.0e6f;                          // past every format's top
    else if (p < 24) d.data[i] = g + 1.0f;                        // on the threshold of 1 px
    else d.data[i] = g + noise(rng);
  }
  return d;
}

struct Case {
  const char* label;
  SceneKind kind;
  const char* name;
  bool nonocc, disc;
  float step;  // the submission rule's scale, for the map's half steps
  double threshold;
};

TEST(GlFigures, EqualEvaluateAndErrorMapOnTheSubmittedMapForEveryRule) {
  std::string why;
  const auto context = context_or_skip(why);
  if (!context) GTEST_SKIP() << "no OpenGL 4.5 context here: " << why;
  GlFigures figures;
  const Case cases[] = {
      {"Middlebury v2, x16 (tsukuba)", SceneKind::middlebury_v2, "tsukuba", true, true, 16.0f, 1.0},
      {"Middlebury v2, x8 (venus), threshold 0.5", SceneKind::middlebury_v2, "venus", true, true, 8.0f, 0.5},
      {"KITTI, 16-bit PNG", SceneKind::kitti, "000000_10", false, false, 256.0f, 3.0},
      {"MiddEval3, float", SceneKind::middlebury_v3, "Adirondack", true, false, 1.0f, 2.0},
      {"a plain pair with ground truth only", SceneKind::plain, "pair", false, false, 1.0f, 1.0},
  };
  std::uint64_t key = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    Scene s = random_scene(c.kind, c.name, 157, 93, unsigned(key + 1), c.nonocc, c.disc);
    if (c.kind == SceneKind::plain) s.mask_all = {};
    const ImageF map = random_map(s, c.step, unsigned(key + 100));
    const ImageF scored = as_submitted(map, s);
    const Metrics want = evaluate(scored, s, c.threshold);
    const ImageU8 picture = error_map(scored, s, c.threshold);

    gl::Texture texture = gl::Texture::create(GL_TEXTURE_2D, GL_R32F, map.width, map.height, GL_NEAREST, "test map");
    texture.upload(GL_RED, GL_FLOAT, map.data.data());
    const Metrics got = figures.evaluate(texture, s, c.threshold, ++key);
    EXPECT_EQ(got.bad_nonocc, want.bad_nonocc);
    EXPECT_EQ(got.bad_all, want.bad_all);
    EXPECT_EQ(got.bad_disc, want.bad_disc);
    EXPECT_EQ(got.d1_all, want.d1_all);
    EXPECT_EQ(got.density, want.density);
    ASSERT_EQ(got.avg_error.has_value(), want.avg_error.has_value());
    if (want.avg_error) {
      EXPECT_NEAR(*got.avg_error, *want.avg_error, 1e-12 * *want.avg_error);
    }
    if (c.kind != SceneKind::plain) {
      EXPECT_TRUE(want.bad_all.has_value()) << "the case must score something";
    }

    ImageU8 rgba(map.width, map.height, 4);
    figures.error_map().download(GL_RGBA, GL_UNSIGNED_BYTE, rgba.data.data(), rgba.data.size());
    std::size_t differ = 0, first = 0;
    for (std::size_t p = 0; p < map.pixel_count(); ++p)
      for (int k = 0; k < 3; ++k)
        if (rgba.data[p * 4 + std::size_t(k)] != picture.data[p * 3 + std::size_t(k)] && differ++ == 0) first = p;
    EXPECT_EQ(differ, 0u) << "first at pixel " << first % std::size_t(map.width) << ", "
                          << first / std::size_t(map.width);
  }
}

TEST(GlFigures, ANewSceneKeyUploadsTheNewGroundTruthAndTheSameKeyKeepsIt) {
  std::string why;
  const auto context = context_or_skip(why);
  if (!context) GTEST_SKIP() << "no OpenGL 4.5 context here: " << why;
  GlFigures figures;
  const Scene a = random_scene(SceneKind::middlebury_v3, "a", 64, 48, 7, true, false);
  const Scene b = random_scene(SceneKind::middlebury_v3, "b", 64, 48, 8, true, false);
  const ImageF map = random_map(a, 1.0f, 9);
  gl::Texture texture = gl::Texture::create(GL_TEXTURE_2D, GL_R32F, map.width, map.height, GL_NEAREST, "test map");
  texture.upload(GL_RED, GL_FLOAT, map.data.data());
  const Metrics on_a = figures.evaluate(texture, a, 1.0, 1);
  EXPECT_EQ(on_a.bad_nonocc, evaluate(map, a, 1.0).bad_nonocc);
  const Metrics on_b = figures.evaluate(texture, b, 1.0, 2);
  EXPECT_EQ(on_b.bad_nonocc, evaluate(map, b, 1.0).bad_nonocc);
  EXPECT_NE(on_a.bad_nonocc, on_b.bad_nonocc) << "two random scenes should score the map differently";
  // The key is the caller's promise: under key 2 the figures stay b's whatever scene comes.
  EXPECT_EQ(figures.evaluate(texture, a, 1.0, 2).bad_nonocc, on_b.bad_nonocc);
}

TEST(GlFigures, RefusesWhatItCannotScoreByName) {
  Scene s = random_scene(SceneKind::middlebury_v2, "nowhere", 8, 8, 1, true, true);
  ASSERT_TRUE(GlFigures::unsupported(s).has_value());
  EXPECT_NE(GlFigures::unsupported(s)->find("nowhere"), std::string::npos);
  s.gt = {};
  EXPECT_EQ(GlFigures::unsupported(s).value_or(""), "no ground truth");
  EXPECT_FALSE(GlFigures::unsupported(random_scene(SceneKind::kitti, "k", 8, 8, 1, false, false)).has_value());
}

}  // namespace
}  // namespace stereo::view
