// The glcompute SA-LAP backend on small synthetic pairs: every stage against the CPU
// reference and against the gl (fragment) backend, the options, the winner-takes-all's
// edge cases, timing and fetch accounting, and user errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gl/check.h"
#include "gl/context.h"
#include "methods/salap/gl/salap_gl.h"
#include "methods/salap/gl/salap_glcompute.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "methods/salap/reference/salap.h"
#include "tests/test_gl_util.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

using namespace stereo;
using reference::Side;

namespace {

// The odd-size pair of these tests: 37 x 29 (no multiple of any work-group size), a plane
// at disparity 3, fixed seed.
struct OddPair {
  ImageU8 left = test::random_texture(37, 29, 1234);
  ImageU8 right = test::shifted(left, 3);
};

ImageF run(const Overrides& overrides, const ImageU8& l, const ImageU8& r, int levels) {
  gl::SalapGlComputeMatcher m(overrides);
  return m.compute(l, r, levels).disparity;
}

SalapParams params_of(const Overrides& overrides) {
  SalapParams p;
  gl::SalapGlComputeOptions o;
  bind_params("test", overrides, p, o);
  return p;
}

// The reference's intermediates of group d0, four disparities in RGBA channel order.
struct ReferenceGroup {
  ImageF tad[4], c_left[4], c_right[4], c[4][4];
};

ReferenceGroup reference_group(const ImageU8& l, const ImageU8& r, int d0, const SalapParams& p, int quantize) {
  ReferenceGroup g;
  for (int k = 0; k < 4; ++k) {
    g.tad[k] = reference::tad_cost(l, r, d0 + k, p, quantize);
    g.c_left[k] = reference::filter_horizontal(g.tad[k], Side::left, p, quantize);
    g.c_right[k] = reference::filter_horizontal(g.tad[k], Side::right, p, quantize);
    g.c[0][k] = reference::filter_vertical(g.c_left[k], Side::down, p, quantize);
    g.c[1][k] = reference::filter_vertical(g.c_left[k], Side::up, p, quantize);
    g.c[2][k] = reference::filter_vertical(g.c_right[k], Side::down, p, quantize);
    g.c[3][k] = reference::filter_vertical(g.c_right[k], Side::up, p, quantize);
  }
  return g;
}

}  // namespace

// ---- every stage of one group against the reference -------------------------------------

// Float intermediates: the only departure from the reference is the sampler's sub-texel
// weight precision on the bilinear pairs (8 fractional bits on most GPUs, llvmpipe included):
// a pair's weight split is off by < 2^-9 of the pair weight, and the pair weights sum to
// < 1 - w_0 / F1 of the cost range. Tolerance 2e-3 of the [0, 1] cost range for the filters;
// the TAD is exact arithmetic on integer levels (tolerance 1e-6).
TEST(GlComputeSalapStages, FloatStagesMatchTheReference) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  const Overrides o = {{"gl_format", "rgba32f"}};
  gl::SalapGlComputeMatcher m(o);
  const SalapParams p = params_of(o);
  for (int d0 : {0, 4}) {
    const gl::SalapGroupTextures gpu = m.debug_group(pair.left, pair.right, d0, 8);
    const ReferenceGroup ref = reference_group(pair.left, pair.right, d0, p, 0);
    for (int k = 0; k < 4; ++k) {
      SCOPED_TRACE("d = " + std::to_string(d0 + k));
      EXPECT_LE(test::difference(test::channel(gpu.tad, k), ref.tad[k]).max_abs, 1e-6);
      EXPECT_LE(test::difference(test::channel(gpu.c_left, k), ref.c_left[k]).max_abs, 2e-3);
      EXPECT_LE(test::difference(test::channel(gpu.c_right, k), ref.c_right[k]).max_abs, 2e-3);
      const ImageF* c[4] = {&gpu.c0, &gpu.c1, &gpu.c2, &gpu.c3};
      for (int i = 0; i < 4; ++i)
        EXPECT_LE(test::difference(test::channel(*c[i], k), ref.c[i][k]).max_abs, 2e-3) << "C" << i;
    }
  }
}

// With nearest taps there is no sub-texel weight: the filters are the reference's sums in
// float (tolerance 1e-5).
TEST(GlComputeSalapStages, NearestTapsMatchTheReferenceClosely) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  const Overrides o = {{"gl_format", "rgba32f"}, {"gl_taps", "nearest"}};
  gl::SalapGlComputeMatcher m(o);
  const gl::SalapGroupTextures gpu = m.debug_group(pair.left, pair.right, 0, 4);
  const ReferenceGroup ref = reference_group(pair.left, pair.right, 0, params_of(o), 0);
  for (int k = 0; k < 4; ++k) {
    EXPECT_LE(test::difference(test::channel(gpu.c_left, k), ref.c_left[k]).max_abs, 1e-5);
    EXPECT_LE(test::difference(test::channel(gpu.c_right, k), ref.c_right[k]).max_abs, 1e-5);
    const ImageF* c[4] = {&gpu.c0, &gpu.c1, &gpu.c2, &gpu.c3};
    for (int i = 0; i < 4; ++i) EXPECT_LE(test::difference(test::channel(*c[i], k), ref.c[i][k]).max_abs, 1e-5);
  }
}

// rgba8: the TAD is exactly the reference's 8-bit TAD (integer levels, the same half-up
// rounding: gl/shaders/salap_tad.comp). Each filter stage may land one grid step away where the
// bilinear weight precision moves a value across a rounding boundary; such steps can
// compound over the two filter stages. The shares of identical values are printed.
TEST(GlComputeSalapStages, Rgba8StagesSitOnTheReferenceGrid) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  gl::SalapGlComputeMatcher m(Overrides{{"gl_format", "rgba8"}});
  for (int d0 : {0, 4}) {
    const gl::SalapGroupTextures gpu = m.debug_group(pair.left, pair.right, d0, 8);
    const ReferenceGroup ref = reference_group(pair.left, pair.right, d0, params_of({}), 8);
    for (int k = 0; k < 4; ++k) {
      SCOPED_TRACE("d = " + std::to_string(d0 + k));
      EXPECT_EQ(test::grid_difference(test::channel(gpu.tad, k), ref.tad[k]).identical, 1.0);
      const test::Difference h = test::grid_difference(test::channel(gpu.c_left, k), ref.c_left[k]);
      const test::Difference hr = test::grid_difference(test::channel(gpu.c_right, k), ref.c_right[k]);
      EXPECT_LE(h.max_abs, 1.0);
      EXPECT_LE(hr.max_abs, 1.0);
      const ImageF* c[4] = {&gpu.c0, &gpu.c1, &gpu.c2, &gpu.c3};
      for (int i = 0; i < 4; ++i)
        EXPECT_LE(test::grid_difference(test::channel(*c[i], k), ref.c[i][k]).max_abs, 2.0) << "C" << i;
      if (d0 + k == 0)
        std::cout << "[ rgba8 d=0 ] identical to the 8-bit reference: C_L " << h.identical * 100 << " %, C0 "
                  << test::grid_difference(test::channel(gpu.c0, k), ref.c[0][k]).identical * 100 << " %\n";
    }
  }
}

// ---- stage by stage against the gl (fragment) backend ------------------------------------

// Same taps, same formats, same arithmetic: what differs is the tap coordinates' origin
// (interpolated varyings there, x + 0.5 + offset here) and the shader compiler's float
// code (last-bit differences, e.g. a division against a multiply by the reciprocal).
// rgba8: equal on the 8-bit grid on >= 99.9% of samples, never more than one step apart.
// rgba16f: within one binary16 step (a last-bit float difference can cross a half-float
// rounding boundary); rgba32f: within 1e-6. The selected disparities of the group are
// equal on >= 99.9% of pixels in every format.
class GlComputeVersusFragment : public testing::TestWithParam<std::string> {};

TEST_P(GlComputeVersusFragment, IntermediatesAgree) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  const Overrides o = {{"gl_format", GetParam()}};
  const bool unorm8 = GetParam() == "rgba8";
  gl::SalapGlComputeMatcher compute(o);
  gl::SalapGlMatcher fragment(o);
  for (int d0 : {0, 4}) {
    const gl::SalapGroupTextures a = compute.debug_group(pair.left, pair.right, d0, 8);
    const gl::SalapGroupTextures b = fragment.debug_group(pair.left, pair.right, d0, 8);
    const std::pair<const char*, std::pair<const ImageF*, const ImageF*>> stages[] = {
        {"tad", {&a.tad, &b.tad}}, {"C_L", {&a.c_left, &b.c_left}}, {"C_R", {&a.c_right, &b.c_right}},
        {"C0", {&a.c0, &b.c0}},    {"C1", {&a.c1, &b.c1}},          {"C2", {&a.c2, &b.c2}},
        {"C3", {&a.c3, &b.c3}}};
    for (const auto& [name, images] : stages) {
      SCOPED_TRACE(std::string(name) + ", d0 = " + std::to_string(d0));
      if (unorm8) {
        const test::Difference d = test::grid_difference(*images.first, *images.second);
        std::cout << "[ rgba8 d0=" << d0 << " ] " << name << ": " << d.identical * 100 << " % identical\n";
        EXPECT_GE(d.identical, 0.999);
        EXPECT_LE(d.max_abs, 1.0);
      } else {
        // One binary16 step at values in [0.5, 1] (2^-11) for rgba16f; float rounding for rgba32f.
        const double tolerance = GetParam() == "rgba16f" ? 1.0 / 2048.0 : 1e-6;
        EXPECT_LE(test::difference(*images.first, *images.second).max_abs, tolerance);
      }
    }
    const double same = agreement(a.disparity, b.disparity);
    std::cout << "[ " << GetParam() << " d0=" << d0 << " ] group disparity: " << same * 100 << " % identical\n";
    EXPECT_GE(same, 0.999);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, GlComputeVersusFragment, testing::Values("rgba8", "rgba16f", "rgba32f"));

// ---- whole method on the odd-size pair ---------------------------------------------------

TEST(GlComputeSalap, OddSizeAgreesWithTheReference) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  const int levels = 8;
  const ImageF ref = reference::salap_disparity(pair.left, pair.right, levels, SalapParams{}, 0);
  const ImageF ref8 = reference::salap_disparity(pair.left, pair.right, levels, SalapParams{}, 8);
  const double a32 = agreement(run({{"gl_format", "rgba32f"}}, pair.left, pair.right, levels), ref);
  const double a16 = agreement(run({{"gl_format", "rgba16f"}}, pair.left, pair.right, levels), ref);
  const double a8 = agreement(run({{"gl_format", "rgba8"}}, pair.left, pair.right, levels), ref8);
  std::cout << "37x29: rgba32f " << a32 * 100 << " %, rgba16f " << a16 * 100 << " % (vs float reference), rgba8 "
            << a8 * 100 << " % (vs 8-bit reference)\n";
  EXPECT_GE(a32, 0.99);
  EXPECT_GE(a16, 0.97);
  EXPECT_GE(a8, 0.97);
}

TEST(GlComputeSalap, NearestTapsAgreeWithTheReference) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  const ImageF ref = reference::salap_disparity(pair.left, pair.right, 8, SalapParams{}, 0);
  const double a = agreement(run({{"gl_format", "rgba32f"}, {"gl_taps", "nearest"}}, pair.left, pair.right, 8), ref);
  std::cout << "gl_taps=nearest, rgba32f: " << a * 100 << " %\n";
  EXPECT_GE(a, 0.99);
}

TEST(GlComputeSalap, FourWindowVariantAgreesWithTheReference) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  SalapParams p;
  p.windows = "4";
  const ImageF ref = reference::salap_disparity(pair.left, pair.right, 8, p, 0);
  const double a = agreement(run({{"gl_format", "rgba32f"}, {"windows", "4"}}, pair.left, pair.right, 8), ref);
  std::cout << "windows=4, rgba32f: " << a * 100 << " %\n";
  EXPECT_GE(a, 0.99);
}

TEST(GlComputeSalap, GreyAndLumaInputsAgreeWithTheReference) {
  STEREO_REQUIRE_GL45();
  const ImageU8 grey = test::random_texture(41, 23, 99, 1);
  const ImageU8 grey_right = test::shifted(grey, 2);
  const ImageF ref = reference::salap_disparity(grey, grey_right, 6, SalapParams{}, 0);
  EXPECT_GE(agreement(run({{"gl_format", "rgba32f"}}, grey, grey_right, 6), ref), 0.99);
  const OddPair pair;
  SalapParams p;
  p.cost = "luma";
  const ImageF ref_luma = reference::salap_disparity(pair.left, pair.right, 8, p, 0);
  EXPECT_GE(agreement(run({{"gl_format", "rgba32f"}, {"cost", "luma"}}, pair.left, pair.right, 8), ref_luma), 0.99);
}

// levels = 17: the last group is 16..19 with three unused channels. The true shift is 18, so
// the unused channels d = 17, 18 would hold the cheapest costs of the whole search: they must
// never win.
TEST(GlComputeSalap, UnusedChannelsOfTheLastGroupNeverWin) {
  STEREO_REQUIRE_GL45();
  const ImageU8 left = test::random_texture(53, 31, 77);
  const ImageU8 right = test::shifted(left, 18);
  const ImageF gpu = run({{"gl_format", "rgba32f"}}, left, right, 17);
  for (float d : gpu.data) ASSERT_LE(d, 16.0f);
  const ImageF ref = reference::salap_disparity(left, right, 17, SalapParams{}, 0);
  const double a = agreement(gpu, ref);
  std::cout << "levels 17, shift 18: " << a * 100 << " % vs reference\n";
  EXPECT_GE(a, 0.99);
}

// Ties keep the smaller disparity: identical images of one flat colour cost the same at every d.
TEST(GlComputeSalap, TiesKeepTheSmallestDisparity) {
  STEREO_REQUIRE_GL45();
  const ImageU8 flat(19, 11, 3, 128);
  for (float d : run({}, flat, flat, 9).data) ASSERT_EQ(d, 0.0f);
}

// Every invocation owns its pixel, so the work-group shape must not change a single value.
TEST(GlComputeSalap, WorkGroupSizeDoesNotChangeTheResult) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  const ImageF base = run({{"gl_local_size", "16x16"}}, pair.left, pair.right, 8);
  for (const char* size : {"8x8", "32x8", "64x4", "256x1"}) {
    const ImageF other = run({{"gl_local_size", size}}, pair.left, pair.right, 8);
    EXPECT_EQ(test::difference(base, other).identical, 1.0) << size;
  }
}

// gl_upload=rgb hands the RGB bytes to the driver, which expands them while unpacking; the
// texture must hold what the host's expansion writes (alpha 255), so every map is the same.
// Both backends share the upload (gl/pixel_transfer.cpp); 37x29 takes the one-thread path,
// 520x512 (at least 2^18 pixels) the banded one, in the single-run and the sequence paths.
TEST(GlComputeSalap, RgbUploadGivesTheSameMaps) {
  STEREO_REQUIRE_GL45();
  const OddPair odd;
  const ImageU8 big_left = test::random_texture(520, 512, 77);
  const ImageU8 big_right = test::shifted(big_left, 2);
  for (const char* backend : {"gl", "glcompute"}) {
    std::unique_ptr<Matcher> host_expand, driver_expand;
    if (std::string(backend) == "gl") {
      host_expand = std::make_unique<gl::SalapGlMatcher>(Overrides{{"gl_upload", "rgba"}});
      driver_expand = std::make_unique<gl::SalapGlMatcher>(Overrides{{"gl_upload", "rgb"}});
    } else {
      host_expand = std::make_unique<gl::SalapGlComputeMatcher>(Overrides{{"gl_upload", "rgba"}});
      driver_expand = std::make_unique<gl::SalapGlComputeMatcher>(Overrides{{"gl_upload", "rgb"}});
    }
    EXPECT_EQ(driver_expand->params().at("gl_upload"), "rgb");
    EXPECT_EQ(host_expand->compute(odd.left, odd.right, 8).disparity.data,
              driver_expand->compute(odd.left, odd.right, 8).disparity.data)
        << backend;
    const ImageF big = host_expand->compute(big_left, big_right, 4).disparity;
    // Over 1 MiB of floats: read back in bands on the pool (PixelTransfer::copy_out). A band
    // in the wrong place would break the agreement with the 8-bit reference.
    if (std::string(backend) == "gl") {
      const double same = agreement(big, reference::salap_disparity(big_left, big_right, 4, SalapParams{}, 8));
      std::cout << "[ gl 520x512 ] " << same * 100 << " % identical to the 8-bit reference\n";
      EXPECT_GE(same, 0.999);
    }
    EXPECT_EQ(big.data, driver_expand->compute(big_left, big_right, 4).disparity.data) << backend;
    std::vector<ImageF> streamed;
    int given = 0;
    driver_expand->match_sequence(
        DisparityRange{0, 4},
        [&](FramePair& pair) {
          if (given++ == 2) return false;
          pair.left = big_left;
          pair.right = big_right;
          return true;
        },
        [&](FrameResult&& r) { streamed.push_back(r.disparity.to_float()); });
    ASSERT_EQ(streamed.size(), 2u) << backend;
    for (const ImageF& f : streamed) EXPECT_EQ(f.data, big.data) << backend;
  }
}

TEST(GlComputeSalap, RepeatedRunsReuseTheImages) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  gl::SalapGlComputeMatcher m(Overrides{});
  const ImageF first = m.compute(pair.left, pair.right, 8).disparity;
  const ImageU8 other = test::random_texture(20, 12, 5);
  (void)m.compute(other, test::shifted(other, 1), 4);  // reallocates
  const ImageF again = m.compute(pair.left, pair.right, 8).disparity;
  EXPECT_EQ(test::difference(first, again).identical, 1.0);
}

// ---- registry, parameters, timing, fetch accounting --------------------------------------

// What the registry says is what happens: where it reports the backend available, a matcher
// made through it runs on this context's renderer and gives the class's own result with the
// options it was given; where it reports a reason, create_matcher refuses with that reason.
TEST(GlComputeSalap, RegistryEntryCreatesAWorkingMatcherOrSaysWhyNot) {
  const BackendEntry& e = builtin_registry().find("salap", "glcompute");
  if (const auto why = e.unavailable()) {
    EXPECT_FALSE(why->empty());
    try {
      (void)create_matcher("salap", "glcompute", {});
      ADD_FAILURE() << "create_matcher made an unavailable backend";
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find(*why), std::string::npos) << err.what();
    }
    GTEST_SKIP() << *why;
  }
  const OddPair pair;
  const auto m = create_matcher("salap", "glcompute", {{"gl_local_size", "32x8"}});
  EXPECT_EQ(m->device(), gl::shared_context()->renderer());
  EXPECT_EQ(m->compute(pair.left, pair.right, 8).disparity.data, run({}, pair.left, pair.right, 8).data);
  const nlohmann::json p = m->params();
  EXPECT_EQ(p.at("gl_local_size"), "32x8");
  EXPECT_EQ(p.at("gl_format"), "rgba8");
  EXPECT_EQ(p.at("gl_taps"), "bilinear");
  EXPECT_EQ(p.at("window"), 33);
}

// The four pass kinds, in the order the passes run, each with time of its own (two groups ran:
// every kind did work), and all of it inside the wall time of the call that ran them: stage
// times in the wrong unit, double-counted or taken from another call could not fit there.
TEST(GlComputeSalap, TimingIsSplitByPassKind) {
  STEREO_REQUIRE_GL45();
  const OddPair pair;
  gl::SalapGlComputeMatcher m(Overrides{});
  (void)m.compute(pair.left, pair.right, 8);  // allocation and shader warm-up outside the clock
  const auto start = std::chrono::steady_clock::now();
  const Timing t = m.compute(pair.left, pair.right, 8).timing;
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(t.stages.size(), 4u);
  const char* order[] = {"tad", "horizontal", "vertical", "select"};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t.stages[i].first, order[i]);
    EXPECT_GT(t.stages[i].second, 0.0) << order[i];
  }
  EXPECT_GT(t.upload_ms, 0.0);
  EXPECT_GT(t.readback_ms, 0.0);
  EXPECT_LE(t.total_ms(), wall_ms) << t.clock;
  EXPECT_FALSE(t.clock.empty());
  std::cout << "37x29, 8 levels: tad " << t.stages[0].second << ", horizontal " << t.stages[1].second << ", vertical "
            << t.stages[2].second << ", select " << t.stages[3].second << " ms; call " << wall_ms << " ms (" << t.clock
            << ")\n";
}

// Per group and pixel: tad 1 + 4, horizontal 1 + 2 S, vertical 2 (1 + 2 S), select 4, with
// S = W/2 = 8 bilinear taps per side by default (60), S = W = 16 nearest (108).
TEST(GlComputeSalap, FetchStatsCountTheShadersFetches) {
  STEREO_REQUIRE_GL45();
  gl::SalapGlComputeMatcher bilinear(Overrides{});
  EXPECT_EQ(bilinear.fetches_per_pixel(), 60);
  EXPECT_EQ(gl::SalapGlComputeMatcher(Overrides{{"gl_taps", "nearest"}}).fetches_per_pixel(), 108);
  EXPECT_EQ(gl::SalapGlComputeMatcher(Overrides{{"window", "17"}}).fetches_per_pixel(), 5 + 9 + 18 + 4);
  const auto stats = bilinear.fetch_stats(64, 48, 17);
  ASSERT_TRUE(stats.has_value());
  EXPECT_DOUBLE_EQ(stats->fetches_per_run, 5.0 * 64 * 48 * 60);  // ceil(17 / 4) = 5 groups
  EXPECT_GT(stats->ceiling_gtexel_s, 0.0);
  EXPECT_NE(stats->ceiling_pass.find("compute"), std::string::npos);
  std::cout << "fetch ceiling: " << stats->ceiling_gtexel_s << " Gtexel/s, " << stats->ceiling_pass << "\n";
}

namespace {

// The shapes gl_local_size offers, read from the options' own describe().
struct LocalSizeChoices {
  std::vector<std::string> shapes;
  template <class T>
  void field(const std::string&, T&, const std::string&) {}
  void choice(const std::string& key, std::string&, std::vector<std::string> allowed, const std::string&) {
    if (key == "gl_local_size") shapes = std::move(allowed);
  }
};

}  // namespace

// gl_local_size is a list of shapes, and the list is its limit: every listed shape fits the
// driver's compute limits (so the driver check in gl/salap_glcompute.cpp is a backstop the
// option cannot reach), the largest, 32x32, is exactly GL 4.3's guaranteed minimum of 1024
// invocations and runs with the default's result, and an unlisted shape is refused by the
// list, naming the component, the option and the value.
TEST(GlComputeSalap, LocalSizeListIsTheLimit) {
  STEREO_REQUIRE_GL45();
  gl::SalapGlComputeOptions options;
  LocalSizeChoices choices;
  options.describe(choices);
  ASSERT_FALSE(choices.shapes.empty());
  gl::shared_context()->make_current();
  GLint max_x = 0, max_y = 0, max_invocations = 0;
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 0, &max_x);
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 1, &max_y);
  glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &max_invocations);
  ASSERT_GE(max_invocations, 1024) << "below the GL 4.3 minimum";
  int largest = 0;
  for (const std::string& shape : choices.shapes) {
    const int x = std::stoi(shape.substr(0, shape.find('x'))), y = std::stoi(shape.substr(shape.find('x') + 1));
    EXPECT_TRUE(x <= max_x && y <= max_y && x * y <= max_invocations) << shape;
    largest = std::max(largest, x * y);
  }
  EXPECT_EQ(largest, 1024);
  const OddPair pair;
  EXPECT_EQ(run({{"gl_local_size", "32x32"}}, pair.left, pair.right, 8).data, run({}, pair.left, pair.right, 8).data);
  for (const char* shape : {"17x3", "7x7", "64x32"}) {
    try {
      gl::SalapGlComputeMatcher(Overrides{{"gl_local_size", shape}});
      ADD_FAILURE() << shape << ": no exception";
    } catch (const Error& e) {
      const std::string what = e.what();
      for (const std::string& needle : {std::string("salap/glcompute"), std::string("gl_local_size"), std::string(shape),
                                        std::string("must be one of")})
        EXPECT_NE(what.find(needle), std::string::npos) << needle << " missing from: " << what;
    }
  }
}

TEST(GlComputeSalap, UserErrorsThrow) {
  STEREO_REQUIRE_GL45();
  EXPECT_THROW(gl::SalapGlComputeMatcher(Overrides{{"gl_format", "rgb565"}}), Error);
  EXPECT_THROW(gl::SalapGlComputeMatcher(Overrides{{"gl_taps", "cubic"}}), Error);
  EXPECT_THROW(gl::SalapGlComputeMatcher(Overrides{{"gl_depth", "depth24"}}), Error);  // a gl-only option
  EXPECT_THROW(gl::SalapGlComputeMatcher(Overrides{{"window", "32"}}), Error);
  EXPECT_THROW(gl::SalapGlComputeMatcher(Overrides{{"window", "31"}}), Error);  // W = 15 is odd
  EXPECT_THROW(gl::SalapGlComputeMatcher(Overrides{{"tau", "0"}}), Error);
  gl::SalapGlComputeMatcher m(Overrides{});
  const OddPair pair;
  EXPECT_THROW(m.compute(pair.left, pair.right, 0), Error);
  EXPECT_THROW(m.compute(pair.left, pair.right, 37), Error);  // levels >= width
  const ImageU8 small = test::random_texture(36, 29, 1);
  EXPECT_THROW(m.compute(pair.left, small, 8), Error);
  const ImageU8 grey = test::random_texture(37, 29, 1, 1);
  EXPECT_THROW(m.compute(pair.left, grey, 8), Error);
  EXPECT_THROW(m.debug_group(pair.left, pair.right, 8, 8), Error);
  EXPECT_THROW(m.fetch_stats(0, 10, 4), Error);
}
