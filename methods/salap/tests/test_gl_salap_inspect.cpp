// The pass inspector of salap/gl and salap/glcompute (gl/kept_passes.h) against the CPU
// reference's stages (salap/cpu's inspector), on the stage tests' 37 x 29 pair at 7 levels
// (two RGBA quads, the second with an unused channel).
//
// Two measures, each with the bars of test_gl_salap_stages.cpp (not looser ones):
//  - Fed per pass: each kept 8-bit pass against the CPU model of its filter fed with the kept
//    pass before it (llvmpipe's fixed-point sampler for bilinear taps on llvmpipe, the
//    reference at quantize=8 elsewhere): the stage tests' measure, now on what the inspector
//    read back. Shares of equal 8-bit codes: tad >= 99.9 %; filters >= 99.9 % against the
//    fixed-point model, >= 90 % against the exact-tap reference; never more than one code.
//  - By name: every per-disparity GL pass against the salap/cpu stage of the same name
//    (cpu quantize=8, its own chain), one loop over names, with nearest taps (no sub-texel
//    weight, so the reference is the model on every renderer): the same shares.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "app/image_io.h"
#include "app/passes.h"
#include "core/error.h"
#include "gl/context.h"
#include "methods/builtin.h"
#include "methods/salap/gl/salap_gl.h"
#include "methods/salap/gl/salap_glcompute.h"
#include "methods/salap/reference/salap.h"
#include "methods/salap/tests/test_sampler_model.h"
#include "tests/test_gl_util.h"
#include "tests/test_util.h"

namespace stereo::gl {
namespace {

using reference::Side;
constexpr int W = 37, H = 29, LEVELS = 7;

struct Pair {
  ImageU8 left, right;
};

// The stage tests' pair: textured, disparity 2, noise, so the TAD spans [0, 1].
Pair make_pair() {
  Pair p;
  p.left = test::random_texture(W, H, 20240601u, 3);
  p.right = test::shifted(p.left, 2);
  std::mt19937 rng(7u);
  std::uniform_int_distribution<int> noise(-12, 12);
  for (auto& v : p.right.data) v = std::uint8_t(std::clamp(int(v) + noise(rng), 0, 255));
  return p;
}

// Level `level` of a pass, whichever way the backend slices it (RGBA quads or one level each).
ImageF level_of(PassInspector& inspector, const PassLayout& l, int level) {
  const int per = l.disparities_per_slice;
  const ImageF slice = inspector.read(l.name, level / per);
  return per == 1 ? slice : test::channel(slice, level % per);
}

PassLayout layout_of(PassInspector& inspector, const std::string& name) {
  for (const PassLayout& l : inspector.passes())
    if (l.name == name) return l;
  ADD_FAILURE() << "no pass " << name;
  return {};
}

struct Share {
  double identical = 1.0;
  double worst = 0.0;
  void add(const test::Difference& d) {
    identical = std::min(identical, d.identical);
    worst = std::max(worst, d.max_abs);
  }
};

template <class M>
void expect_layouts(M& matcher, const std::string& last_plane) {
  EXPECT_EQ(matcher.inspector(), nullptr);  // not asked for
  matcher.keep_passes(true);
  ASSERT_NE(matcher.inspector(), nullptr);
  EXPECT_TRUE(matcher.inspector()->passes().empty());  // before the first run
  const Pair pair = make_pair();
  const StereoResult kept = matcher.compute(pair.left, pair.right, DisparityRange{3, LEVELS});
  const std::vector<PassLayout> passes = matcher.inspector()->passes();
  std::vector<std::string> names;
  for (const PassLayout& l : passes) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"tad", "horizontal.c_left", "horizontal.c_right", "vertical.c0",
                                             "vertical.c1", "vertical.c2", "vertical.c3", "select", last_plane}));
  for (const PassLayout& l : passes) {
    EXPECT_EQ(l.width, W);
    EXPECT_EQ(l.height, H);
    EXPECT_EQ(l.first_disparity, 3);
    EXPECT_FALSE(l.what.empty());
    const bool quad = l.name != "select" && l.name != last_plane;
    EXPECT_EQ(l.slices, quad ? 2 : 1) << l.name;
    EXPECT_EQ(l.channels, quad ? 4 : 1) << l.name;
    EXPECT_EQ(l.disparities_per_slice, quad ? 4 : 0) << l.name;
    const ImageF v = matcher.inspector()->read(l.name, l.slices - 1);
    EXPECT_EQ(v.data.size(), std::size_t(W * H * l.channels)) << l.name;
  }
  EXPECT_EQ(passes[0].label(1), "tad, disparities 7..10");
  // The kept select target is the run's map, in level indices.
  const ImageF select = matcher.inspector()->read("select", 0);
  for (std::size_t i = 0; i < select.data.size(); ++i) ASSERT_EQ(select.data[i] + 3.0f, kept.disparity.data[i]);
  // Unknown pass, slice out of range: invalid_argument, naming the component.
  try {
    (void)matcher.inspector()->read("aggregate", 0);
    ADD_FAILURE() << "unknown pass read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find(matcher.component()), std::string::npos) << e.what();
  }
  for (int slice : {-1, 2}) {
    try {
      (void)matcher.inspector()->read("tad", slice);
      ADD_FAILURE() << "slice " << slice << " read";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_argument) << e.what();
    }
  }
  // Keeping changes no map; switched off, nothing is kept.
  matcher.keep_passes(false);
  EXPECT_EQ(matcher.inspector(), nullptr);
  EXPECT_EQ(matcher.compute(pair.left, pair.right, DisparityRange{3, LEVELS}).disparity.data, kept.disparity.data);
}

TEST(GlSalapInspect, FragmentPassesLaidOut) {
  STEREO_REQUIRE_GL45();
  SalapGlMatcher matcher(Overrides{});
  expect_layouts(matcher, "select.depth");
  matcher.keep_passes(true);
  const Pair pair = make_pair();
  (void)matcher.compute(pair.left, pair.right, LEVELS);
  // The depth attachment holds the winner's cost, scaled into [0, 1): below the clear value 1.
  const ImageF depth = matcher.inspector()->read("select.depth", 0);
  for (float v : depth.data) ASSERT_TRUE(v >= 0.0f && v < 1.0f) << v;
}

TEST(GlSalapInspect, ComputeImagesLaidOut) {
  STEREO_REQUIRE_GL45();
  SalapGlComputeMatcher matcher(Overrides{});
  expect_layouts(matcher, "select.cost");
}

// The stage tests' measure on the inspector's read-backs (see the top of the file).
template <class M>
Share fed_shares(const Overrides& overrides, bool fixed_point, Share& tad) {
  M matcher(overrides);
  matcher.keep_passes(true);
  const Pair pair = make_pair();
  (void)matcher.compute(pair.left, pair.right, LEVELS);
  PassInspector& in = *matcher.inspector();
  const SalapParams params;
  Share filters;
  const auto pass = [&](const char* name, int d) { return level_of(in, layout_of(in, name), d); };
  for (int d = 0; d < LEVELS; ++d) {
    const ImageF t = pass("tad", d), cl = pass("horizontal.c_left", d), cr = pass("horizontal.c_right", d);
    tad.add(test::grid_difference(t, reference::tad_cost(pair.left, pair.right, d, params, 8)));
    filters.add(test::grid_difference(cl, test::rgba8_filter_model(t, Side::left, params, fixed_point)));
    filters.add(test::grid_difference(cr, test::rgba8_filter_model(t, Side::right, params, fixed_point)));
    filters.add(test::grid_difference(pass("vertical.c0", d), test::rgba8_filter_model(cl, Side::down, params, fixed_point)));
    filters.add(test::grid_difference(pass("vertical.c1", d), test::rgba8_filter_model(cl, Side::up, params, fixed_point)));
    filters.add(test::grid_difference(pass("vertical.c2", d), test::rgba8_filter_model(cr, Side::down, params, fixed_point)));
    filters.add(test::grid_difference(pass("vertical.c3", d), test::rgba8_filter_model(cr, Side::up, params, fixed_point)));
  }
  return filters;
}

template <class M>
void expect_fed_shares(const char* backend) {
  const bool llvmpipe = shared_context()->is_llvmpipe();
  for (const char* taps : {"bilinear", "nearest"}) {
    const bool fixed_point = llvmpipe && std::string(taps) == "bilinear";
    Share tad;
    const Share filters = fed_shares<M>(Overrides{{"gl_taps", taps}}, fixed_point, tad);
    std::cout << backend << " rgba8 " << taps << " kept passes vs "
              << (fixed_point ? "llvmpipe fixed-point model" : "reference quantize=8") << ": tad "
              << 100 * tad.identical << "%, filters " << 100 * filters.identical << "% same code (max "
              << filters.worst << " codes)\n";
    EXPECT_GE(tad.identical, 0.999) << taps;
    EXPECT_LE(tad.worst, 1.0) << taps;
    EXPECT_GE(filters.identical, fixed_point ? 0.999 : 0.90) << taps;
    EXPECT_LE(filters.worst, 1.0) << taps;
  }
}

TEST(GlSalapInspect, FragmentPassesMatchTheirModel) {
  STEREO_REQUIRE_GL45();
  expect_fed_shares<SalapGlMatcher>("gl");
}

TEST(GlSalapInspect, ComputeImagesMatchTheirModel) {
  STEREO_REQUIRE_GL45();
  expect_fed_shares<SalapGlComputeMatcher>("glcompute");
}

// GL pass against CPU stage, one loop over the names (see the top of the file).
void expect_same_as_cpu_by_name(const std::string& backend) {
  const Pair pair = make_pair();
  const DisparityRange range{-1, LEVELS};
  auto gl = create_matcher("salap", backend, Overrides{{"gl_taps", "nearest"}});
  auto cpu = create_matcher("salap", "cpu", Overrides{{"quantize", "8"}});
  gl->keep_passes(true);
  cpu->keep_passes(true);
  (void)gl->compute(pair.left, pair.right, range);
  (void)cpu->compute(pair.left, pair.right, range);
  int compared = 0;
  for (const PassLayout& l : gl->inspector()->passes()) {
    if (l.disparities_per_slice == 0) continue;
    const PassLayout c = layout_of(*cpu->inspector(), l.name);
    Share s;
    for (int k = 0; k < range.count; ++k)
      s.add(test::grid_difference(level_of(*gl->inspector(), l, k), level_of(*cpu->inspector(), c, k)));
    std::cout << backend << " nearest vs salap/cpu quantize=8, " << l.name << ": " << 100 * s.identical
              << "% same code (max " << s.worst << ")\n";
    EXPECT_GE(s.identical, l.name == "tad" ? 0.999 : 0.90) << l.name;
    EXPECT_LE(s.worst, 1.0) << l.name;
    ++compared;
  }
  EXPECT_EQ(compared, 7);
}

TEST(GlSalapInspect, FragmentPassesEqualCpuStagesByName) {
  STEREO_REQUIRE_GL45();
  expect_same_as_cpu_by_name("gl");
}

TEST(GlSalapInspect, ComputeImagesEqualCpuStagesByName) {
  STEREO_REQUIRE_GL45();
  expect_same_as_cpu_by_name("glcompute");
}

// A sequence keeps its last frame's passes, and its maps are compute()'s.
TEST(GlSalapInspect, SequenceKeepsTheLastFrame) {
  STEREO_REQUIRE_GL45();
  const Pair a = make_pair();
  Pair b = a;
  b.right = test::shifted(a.left, 1);
  SalapGlMatcher plain(Overrides{});
  const ImageF map_b = plain.compute(b.left, b.right, LEVELS).disparity;
  SalapGlMatcher matcher(Overrides{});
  matcher.keep_passes(true);
  std::vector<FramePair> frames{{a.left, a.right}, {b.left, b.right}};
  std::size_t next = 0;
  std::vector<ImageF> maps;
  matcher.match_sequence(
      DisparityRange{0, LEVELS},
      [&](FramePair& p) {
        if (next == frames.size()) return false;
        p = frames[next++];
        return true;
      },
      [&](FrameResult&& r) { maps.push_back(r.disparity.to_float()); });
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[1].data, map_b.data);
  const ImageF select = matcher.inspector()->read("select", 0);
  EXPECT_EQ(select.data, map_b.data);
}

// The dump of the kept passes (app/passes.h): a PNG per quad, a PFM per disparity of the range
// (the second quad's fourth channel, past the range, left out), the raw values unchanged.
TEST(GlSalapInspect, DumpWritesEveryQuadAndDisparity) {
  STEREO_REQUIRE_GL45();
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("stereo_gl_dump_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  SalapGlMatcher matcher(Overrides{});
  matcher.keep_passes(true);
  const Pair pair = make_pair();
  const DisparityRange range{0, LEVELS};
  (void)matcher.compute(pair.left, pair.right, range);
  const PassDump dump = dump_passes(matcher, root / "dump", range);
  EXPECT_EQ(dump.passes, 9);
  for (const char* f : {"tad_d0-3.png", "tad_d4-6.png", "tad_d0.pfm", "tad_d6.pfm", "horizontal.c_left_d4-6.png",
                        "vertical.c3_d5.pfm", "select.png", "select.pfm", "select.depth.png", "select.depth.pfm",
                        "passes.json"})
    EXPECT_TRUE(fs::exists(root / "dump" / f)) << f;
  EXPECT_FALSE(fs::exists(root / "dump" / "tad_d7.pfm"));
  // 7 quad passes x (2 PNG + 7 PFM) + 2 planes x 2 + passes.json.
  EXPECT_EQ(dump.files.size(), 7u * 9u + 4u + 1u);
  EXPECT_EQ(read_pfm(root / "dump" / "vertical.c3_d5.pfm").data,
            test::channel(matcher.inspector()->read("vertical.c3", 1), 1).data);
  fs::remove_all(root);
}

}  // namespace
}  // namespace stereo::gl
