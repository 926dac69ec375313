// Each SA-LAP fragment pass against the reference stage of the same name, on a small odd-size
// synthetic pair (37 x 29, std::mt19937 seeds), one pass at a time: every GL stage is fed to
// the reference stage that follows it, so a difference is the pass's own.
//
// Tolerances (float intermediates, gl_format=rgba32f):
//  - tad: 1e-5 (float rounding of the cost only).
//  - horizontal, vertical with bilinear taps: 1/256. A pair fetch blends two taps with the
//    hardware's sub-texel weight, quantised to 8 fractional bits on GPUs (and on llvmpipe):
//    the error of pair i is at most |D_i - D_i+1| (w_i + w_i+1) / F1 / 512 with rounding, twice
//    that with truncation, and the pair weights sum to less than 1. The measured maxima are
//    printed.
//  - nearest taps: 1e-5.
// 8-bit intermediates (rgba8) are compared with the CPU model of the renderer's 8-bit filter:
// the reference at quantize=8 on GPUs, llvmpipe's fixed-point sampler on llvmpipe
// (tests/test_sampler_model.h). The share of texels holding the same 8-bit code is printed and
// must be high, the rest within one code (bilinear weights and 8-bit rounding of a value near
// a code boundary).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <string>

#include "gl/context.h"
#include "methods/salap/gl/salap_gl.h"
#include "core/error.h"
#include "methods/salap/reference/salap.h"
#include "tests/test_util.h"
#include "tests/test_gl_util.h"
#include "methods/salap/tests/test_sampler_model.h"

namespace stereo::gl {
namespace {

namespace ref = stereo::reference;
using ref::Side;

constexpr int W = 37, H = 29, LEVELS = 7;  // groups d0 = 0 and 4; channel 3 of the second is unused

struct Pair {
  ImageU8 left, right;
};

// A textured pair at disparity 2 with noise, so the TAD spans the whole [0, 1] range.
Pair make_pair(int channels = 3) {
  Pair p;
  p.left = test::random_texture(W, H, 20240601u, channels);
  p.right = test::shifted(p.left, 2);
  std::mt19937 rng(7u);
  std::uniform_int_distribution<int> noise(-12, 12);
  for (auto& v : p.right.data) v = std::uint8_t(std::clamp(int(v) + noise(rng), 0, 255));
  return p;
}

ImageF channel(const ImageF& rgba, int k) {
  ImageF out(rgba.width, rgba.height, 1);
  for (std::size_t i = 0; i < out.data.size(); ++i) out.data[i] = rgba.data[i * 4 + std::size_t(k)];
  return out;
}

double max_abs_diff(const ImageF& a, const ImageF& b) {
  double m = 0.0;
  for (std::size_t i = 0; i < a.data.size(); ++i) m = std::max(m, double(std::abs(a.data[i] - b.data[i])));
  return m;
}

// Share of texels with the same 8-bit code, and the largest difference in codes.
std::pair<double, int> code_agreement(const ImageF& a, const ImageF& b) {
  std::size_t same = 0;
  int worst = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    const int ca = int(std::lround(a.data[i] * 255.0f)), cb = int(std::lround(b.data[i] * 255.0f));
    same += ca == cb;
    worst = std::max(worst, std::abs(ca - cb));
  }
  return {double(same) / double(a.data.size()), worst};
}

struct StageErrors {
  double tad = 0, horizontal = 0, vertical = 0;
  double select_share = 1.0;
};

// Runs both groups and compares every pass with the reference stage fed by the GL input.
StageErrors float_stage_errors(const Overrides& overrides, const Pair& pair) {
  SalapGlMatcher matcher(overrides);
  SalapParams params;
  SalapGlOptions options;
  bind_params("test", overrides, params, options);
  StageErrors e;
  std::size_t agree = 0, total = 0;
  for (int d0 = 0; d0 < LEVELS; d0 += 4) {
    const SalapGroupTextures g = matcher.debug_group(pair.left, pair.right, d0, LEVELS);
    ImageF best_cost(W, H, 1, INFINITY), best_d(W, H, 1, 0.0f);
    for (int k = 0; k < 4 && d0 + k < LEVELS; ++k) {
      const int d = d0 + k;
      e.tad = std::max(e.tad, max_abs_diff(channel(g.tad, k), ref::tad_cost(pair.left, pair.right, d, params)));
      const ImageF tad = channel(g.tad, k);
      e.horizontal = std::max(e.horizontal, max_abs_diff(channel(g.c_left, k), ref::filter_horizontal(tad, Side::left, params)));
      e.horizontal = std::max(e.horizontal, max_abs_diff(channel(g.c_right, k), ref::filter_horizontal(tad, Side::right, params)));
      const ImageF cl = channel(g.c_left, k), cr = channel(g.c_right, k);
      e.vertical = std::max(e.vertical, max_abs_diff(channel(g.c0, k), ref::filter_vertical(cl, Side::down, params)));
      e.vertical = std::max(e.vertical, max_abs_diff(channel(g.c1, k), ref::filter_vertical(cl, Side::up, params)));
      e.vertical = std::max(e.vertical, max_abs_diff(channel(g.c2, k), ref::filter_vertical(cr, Side::down, params)));
      e.vertical = std::max(e.vertical, max_abs_diff(channel(g.c3, k), ref::filter_vertical(cr, Side::up, params)));
      const ImageF cost = ref::window_cost(channel(g.c0, k), channel(g.c1, k), channel(g.c2, k), channel(g.c3, k), params);
      for (std::size_t i = 0; i < cost.data.size(); ++i)
        if (cost.data[i] < best_cost.data[i]) {
          best_cost.data[i] = cost.data[i];
          best_d.data[i] = float(d);
        }
    }
    // The selection target after this group alone: the winner among its valid channels.
    for (std::size_t i = 0; i < best_d.data.size(); ++i, ++total) agree += g.disparity.data[i] == best_d.data[i];
  }
  e.select_share = double(agree) / double(total);
  return e;
}

TEST(GlSalapStages, FloatPassesMatchReference) {
  STEREO_REQUIRE_GL45();
  const StageErrors e = float_stage_errors({{"gl_format", "rgba32f"}}, make_pair());
  std::cout << "rgba32f bilinear, max |GL - reference|: tad " << e.tad << ", horizontal " << e.horizontal
            << ", vertical " << e.vertical << "; select agrees on " << 100.0 * e.select_share << "% of texels\n";
  RecordProperty("rgba32f_horizontal_max_err", std::to_string(e.horizontal));
  RecordProperty("rgba32f_vertical_max_err", std::to_string(e.vertical));
  EXPECT_LE(e.tad, 1e-5);
  EXPECT_LE(e.horizontal, 1.0 / 256.0);
  EXPECT_LE(e.vertical, 1.0 / 256.0);
  EXPECT_GE(e.select_share, 0.999);
}

TEST(GlSalapStages, NearestTapsMatchReferenceExactly) {
  STEREO_REQUIRE_GL45();
  // 16 taps per side: 8 from the varyings, 8 from gl_FragCoord (the beyond-budget path).
  const StageErrors e = float_stage_errors({{"gl_format", "rgba32f"}, {"gl_taps", "nearest"}}, make_pair());
  std::cout << "rgba32f nearest, max |GL - reference|: horizontal " << e.horizontal << ", vertical " << e.vertical << "\n";
  EXPECT_LE(e.tad, 1e-5);
  EXPECT_LE(e.horizontal, 1e-5);
  EXPECT_LE(e.vertical, 1e-5);
  EXPECT_GE(e.select_share, 0.999);
}

TEST(GlSalapStages, OtherWindowsGreyAndLuma) {
  STEREO_REQUIRE_GL45();
  // N = 9 (W = 4: two bilinear pairs a side), N = 41 (W = 20: ten pairs, two beyond the
  // eight varyings), a grey pair and the luma cost.
  for (const Overrides& o : std::vector<Overrides>{{{"gl_format", "rgba32f"}, {"window", "9"}},
                                                   {{"gl_format", "rgba32f"}, {"window", "41"}, {"gamma", "7"}},
                                                   {{"gl_format", "rgba32f"}, {"cost", "luma"}}}) {
    const StageErrors e = float_stage_errors(o, make_pair());
    EXPECT_LE(e.tad, 1e-5) << o.back().first << "=" << o.back().second;
    EXPECT_LE(e.horizontal, 1.0 / 256.0) << o.back().second;
    EXPECT_LE(e.vertical, 1.0 / 256.0) << o.back().second;
  }
  const StageErrors grey = float_stage_errors({{"gl_format", "rgba32f"}}, make_pair(1));
  EXPECT_LE(grey.tad, 1e-5);
  EXPECT_LE(grey.horizontal, 1.0 / 256.0);
}

struct CodeShares {
  double tad = 1, horizontal = 1, vertical = 1;
  int tad_worst = 0, horizontal_worst = 0, vertical_worst = 0;
};

// The CPU model of the 8-bit filters a renderer runs (tests/test_sampler_model.h).
ImageF model_filter(const ImageF& in, Side side, const SalapParams& params, bool llvmpipe) {
  return test::rgba8_filter_model(in, side, params, llvmpipe);
}

CodeShares rgba8_code_shares(const Overrides& overrides, const Pair& pair, bool llvmpipe) {
  SalapGlMatcher matcher(overrides);
  SalapParams params;
  CodeShares c;
  auto track = [](const ImageF& a, const ImageF& b, double& share, int& worst) {
    const auto [s, w] = code_agreement(a, b);
    share = std::min(share, s);
    worst = std::max(worst, w);
  };
  for (int d0 = 0; d0 < LEVELS; d0 += 4) {
    const SalapGroupTextures g = matcher.debug_group(pair.left, pair.right, d0, LEVELS);
    for (int k = 0; k < 4 && d0 + k < LEVELS; ++k) {
      const ImageF tad = channel(g.tad, k), cl = channel(g.c_left, k), cr = channel(g.c_right, k);
      track(tad, ref::tad_cost(pair.left, pair.right, d0 + k, params, 8), c.tad, c.tad_worst);
      track(cl, model_filter(tad, Side::left, params, llvmpipe), c.horizontal, c.horizontal_worst);
      track(cr, model_filter(tad, Side::right, params, llvmpipe), c.horizontal, c.horizontal_worst);
      track(channel(g.c0, k), model_filter(cl, Side::down, params, llvmpipe), c.vertical, c.vertical_worst);
      track(channel(g.c1, k), model_filter(cl, Side::up, params, llvmpipe), c.vertical, c.vertical_worst);
      track(channel(g.c2, k), model_filter(cr, Side::down, params, llvmpipe), c.vertical, c.vertical_worst);
      track(channel(g.c3, k), model_filter(cr, Side::up, params, llvmpipe), c.vertical, c.vertical_worst);
    }
  }
  return c;
}

// Bars per model: against its own fixed-point model llvmpipe must agree on >= 99.9 % of codes
// (float rounding in the shader's sum is all that is left); a GPU against the exact-tap
// reference on >= 90 % (measured on an NVIDIA H100: 97.9 % horizontal, 99.3 % vertical).
// Nearest taps have no sub-texel weight: 100 % against the reference everywhere, so they use
// the reference on every renderer. Never more than one code apart.
TEST(GlSalapStages, Rgba8PassesMatchTheirModel) {
  STEREO_REQUIRE_GL45();
  const Pair pair = make_pair();
  const bool llvmpipe = shared_context()->is_llvmpipe();
  for (const char* taps : {"bilinear", "nearest"}) {
    const bool fixed_point = llvmpipe && std::string(taps) == "bilinear";
    const CodeShares c = rgba8_code_shares(Overrides{{"gl_taps", taps}}, pair, fixed_point);
    const char* model = fixed_point ? "llvmpipe fixed-point model" : "reference quantize=8";
    std::cout << "rgba8 " << taps << " vs " << model << ", same 8-bit code (worst channel): tad " << 100 * c.tad
              << "%, horizontal " << 100 * c.horizontal << "% (max " << c.horizontal_worst << " codes), vertical "
              << 100 * c.vertical << "% (max " << c.vertical_worst << " codes)\n";
    if (fixed_point) {
      const CodeShares r = rgba8_code_shares(Overrides{{"gl_taps", taps}}, pair, false);
      std::cout << "  (the same against reference quantize=8: horizontal " << 100 * r.horizontal << "%, vertical "
                << 100 * r.vertical << "%)\n";
    }
    RecordProperty(std::string("rgba8_") + taps + "_horizontal_exact_share", std::to_string(c.horizontal));
    RecordProperty(std::string("rgba8_") + taps + "_vertical_exact_share", std::to_string(c.vertical));
    const double bar = fixed_point ? 0.999 : 0.90;
    EXPECT_GE(c.tad, 0.999) << taps;
    EXPECT_LE(c.tad_worst, 1) << taps;
    EXPECT_GE(c.horizontal, bar) << taps;
    EXPECT_LE(c.horizontal_worst, 1) << taps;
    EXPECT_GE(c.vertical, bar) << taps;
    EXPECT_LE(c.vertical_worst, 1) << taps;
  }
}

TEST(GlSalapStages, WholePipelineOnSmallPair) {
  STEREO_REQUIRE_GL45();
  const Pair pair = make_pair();
  SalapGlMatcher matcher(Overrides{{"gl_format", "rgba32f"}});
  const StereoResult r = matcher.compute(pair.left, pair.right, LEVELS);
  const ImageF expected = ref::salap_disparity(pair.left, pair.right, LEVELS, SalapParams{});
  std::size_t same = 0;
  for (std::size_t i = 0; i < expected.data.size(); ++i) same += r.disparity.data[i] == expected.data[i];
  EXPECT_GE(double(same) / double(expected.data.size()), 0.99);
  ASSERT_EQ(r.timing.stages.size(), 4u);
  EXPECT_EQ(r.timing.stages[0].first, "tad");
  EXPECT_EQ(r.timing.stages[3].first, "select");
  EXPECT_GT(r.timing.algorithm_ms, 0.0);
  EXPECT_FALSE(r.timing.clock.empty());
  // Reuse across calls and a size change reallocates cleanly.
  const StereoResult again = matcher.compute(pair.left, pair.right, LEVELS);
  EXPECT_EQ(again.disparity.data, r.disparity.data);
  const ImageU8 small = test::random_texture(19, 11, 3u);
  EXPECT_NO_THROW(matcher.compute(small, test::shifted(small, 1), 5));
  EXPECT_THROW(matcher.compute(pair.left, small, 5), Error);
}

TEST(GlSalapStages, FetchStats) {
  STEREO_REQUIRE_GL45();
  SalapGlMatcher matcher(Overrides{});
  EXPECT_EQ(matcher.fetches_per_pixel(), 5 + 17 + 34 + 4);
  const auto stats = matcher.fetch_stats(64, 48, 10);
  ASSERT_TRUE(stats);
  EXPECT_DOUBLE_EQ(stats->fetches_per_run, 3.0 * 64 * 48 * 60);
  EXPECT_GT(stats->ceiling_gtexel_s, 0.0);
  std::cout << "fetch ceiling: " << stats->ceiling_gtexel_s << " Gtexel/s, " << stats->ceiling_pass << "\n";
  SalapGlMatcher nearest(Overrides{{"gl_taps", "nearest"}});
  EXPECT_EQ(nearest.fetches_per_pixel(), 5 + 33 + 66 + 4);
}

}  // namespace
}  // namespace stereo::gl
