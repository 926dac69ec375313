#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>

#include "app/dataset.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "app/synth.h"
#include "methods/salap/reference/salap.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

namespace fs = std::filesystem;
using namespace stereo;
using reference::Side;

TEST(SalapReference, QuantizeRoundsToTheRgba8Grid) {
  EXPECT_FLOAT_EQ(reference::quantize8(0.0f), 0.0f);
  EXPECT_FLOAT_EQ(reference::quantize8(1.2f), 1.0f);
  EXPECT_FLOAT_EQ(reference::quantize8(-0.1f), 0.0f);
  EXPECT_FLOAT_EQ(reference::quantize8(0.5f / 255.0f + 1e-4f), 1.0f / 255.0f);
  EXPECT_FLOAT_EQ(reference::quantize8(100.4f / 255.0f), 100.0f / 255.0f);
}

TEST(SalapReference, TadIsTruncatedAndNormalised) {
  SalapParams p;
  ImageU8 l(3, 1, 3, 100), r(3, 1, 3, 100);
  l.at(2, 0, 0) = 130;  // |dR| = 30 -> mean 10 -> 10/20
  l.at(1, 0, 0) = 220;  // mean 40 -> truncated at tau
  const ImageF d = reference::tad_cost(l, r, 0, p);
  EXPECT_FLOAT_EQ(d.at(0, 0), 0.0f);
  EXPECT_FLOAT_EQ(d.at(1, 0), 1.0f);
  EXPECT_FLOAT_EQ(d.at(2, 0), 0.5f);
  p.cost = "luma";
  EXPECT_NEAR(reference::tad_cost(l, r, 0, p).at(2, 0), 0.299 * 30 / 20, 1e-6);
}

TEST(SalapReference, FiltersSpreadAnImpulseOverTheirOwnSide) {
  const SalapParams p;
  const auto w = salap::kernel_weights(p);
  double f1 = 0;
  for (double v : w) f1 += v;
  ImageF impulse(61, 41, 1, 0.0f);
  impulse.at(30, 20) = 1.0f;
  const ImageF cl = reference::filter_horizontal(impulse, Side::left, p);   // taps x-k: response to the right
  const ImageF cr = reference::filter_horizontal(impulse, Side::right, p);  // taps x+k: response to the left
  const ImageF down = reference::filter_vertical(impulse, Side::down, p);   // taps y+l: response above
  const ImageF up = reference::filter_vertical(impulse, Side::up, p);
  for (int k = 0; k <= 16; ++k) {
    const double tap = w[static_cast<std::size_t>(k)] / f1;
    EXPECT_NEAR(cl.at(30 + k, 20), tap, 1e-7);
    EXPECT_NEAR(cr.at(30 - k, 20), tap, 1e-7);
    EXPECT_NEAR(down.at(30, 20 - k), tap, 1e-7);
    EXPECT_NEAR(up.at(30, 20 + k), tap, 1e-7);
  }
  EXPECT_FLOAT_EQ(cl.at(29, 20), 0.0f);
  EXPECT_FLOAT_EQ(cl.at(47, 20), 0.0f);
  EXPECT_FLOAT_EQ(down.at(30, 21), 0.0f);
}

TEST(SalapReference, ConstantCostStaysConstantUpToTheBorders) {
  const SalapParams p;
  const ImageF c(23, 19, 1, 0.375f);
  for (Side s : {Side::left, Side::right}) {
    const ImageF out = reference::filter_horizontal(c, s, p);
    for (float v : out.data) ASSERT_NEAR(v, 0.375f, 1e-6);  // clamp-to-edge keeps it flat
  }
}

TEST(SalapReference, WindowCostPicksTheCheapestCategory) {
  SalapParams p;
  auto one = [](float v) { return ImageF(1, 1, 1, v); };
  // Flat: Ca = 0.5 beats Cb = 0.52 and Cc = 0.54.
  EXPECT_FLOAT_EQ(reference::window_cost(one(.5f), one(.5f), one(.5f), one(.5f), p).at(0, 0), 0.5f);
  // Edge: the left half (C0 + C1) is clean.
  EXPECT_NEAR(reference::window_cost(one(.1f), one(.1f), one(.9f), one(.9f), p).at(0, 0), 0.1 + 0.02, 1e-6);
  // Corner: one quadrant is clean.
  EXPECT_NEAR(reference::window_cost(one(.9f), one(.9f), one(.0f), one(.9f), p).at(0, 0), 0.04, 1e-6);
  p.windows = "4";
  EXPECT_NEAR(reference::window_cost(one(.5f), one(.5f), one(.5f), one(.5f), p).at(0, 0), 0.54, 1e-6);
}

TEST(SalapReference, RecoversAFrontoParallelPlaneExactly) {
  const ImageU8 left = test::random_texture(97, 61, 1234);
  const int d = 7;
  const ImageU8 right = test::shifted(left, d);
  const ImageF disp = reference::salap_disparity(left, right, 16, SalapParams{});
  for (int y = 0; y < left.height; ++y)
    for (int x = d + 16; x < left.width - 16; ++x) ASSERT_FLOAT_EQ(disp.at(x, y), float(d)) << x << "," << y;
}

TEST(SalapReference, RecoversTwoPlanesAwayFromOcclusions) {
  // Background at d = 4, a foreground rectangle at d = 12 (columns 40..79, rows 20..49).
  const int w = 131, h = 71, fg = 12, bg = 4;
  const ImageU8 back = test::random_texture(w + 20, h, 99), front = test::random_texture(w, h, 7);
  auto in_rect = [](int x, int y) { return x >= 40 && x < 80 && y >= 20 && y < 50; };
  ImageU8 left(w, h, 3), right(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        left.at(x, y, c) = in_rect(x, y) ? front.at(x, y, c) : back.at(x, y, c);
        right.at(x, y, c) = in_rect(x + fg, y) ? front.at(x + fg, y, c) : back.at(x + bg, y, c);
      }
  const ImageF disp = reference::salap_disparity(left, right, 24, SalapParams{});
  // Away from the rectangle's edges by more than the window reach (16) plus the shift.
  for (int y = 0; y < h; ++y)
    for (int x = fg + 16; x < w - 16; ++x) {
      const bool deep_inside = x >= 40 + 16 && x < 80 - 16 && y >= 20 + 16 && y < 50 - 16;
      const bool far_outside = (x < 40 - 16 - fg || x >= 80 + 16) || (y < 20 - 16 || y >= 50 + 16);
      if (deep_inside) {
        ASSERT_FLOAT_EQ(disp.at(x, y), float(fg)) << x << "," << y;
      }
      if (far_outside) {
        ASSERT_FLOAT_EQ(disp.at(x, y), float(bg)) << x << "," << y;
      }
    }
}

TEST(SalapReference, RecoversTheGeneratorsPlanesAwayFromOcclusionsAndEdges) {
  SynthOptions o;
  o.width = 240;
  o.height = 160;
  o.levels = 24;
  const Scene s = make_synthetic_scene(o);
  const SalapParams p;
  const int w = p.radius();
  const ImageF disp = reference::salap_disparity(s.left, s.right, s.levels, p);
  // A pixel counts when its whole N x N window is non-occluded, on one fronto-parallel
  // surface (one integer disparity), and its right-image support stays inside the image.
  std::size_t checked = 0;
  for (int y = w; y < s.gt.height - w; ++y)
    for (int x = w; x < s.gt.width - w; ++x) {
      const float d = s.gt.at(x, y);
      if (d != std::floor(d) || x - int(d) - w < 0) continue;
      bool uniform = true;
      for (int dy = -w; dy <= w && uniform; ++dy)
        for (int dx = -w; dx <= w && uniform; ++dx)
          uniform = s.gt.at(x + dx, y + dy) == d && s.mask_nonocc.at(x + dx, y + dy) == 255;
      if (!uniform) continue;
      ++checked;
      ASSERT_FLOAT_EQ(disp.at(x, y), d) << x << "," << y;
    }
  std::cout << "[salap/cpu synthetic planes] " << checked << " interior pixels, all exact\n";
  EXPECT_GT(checked, s.gt.pixel_count() / 10) << "too few interior pixels for the test to mean much";
}

// ---- the cpu backend: bands over a thread pool, bit-identical to the stage chain ------------

namespace {

// A textured pair at disparity 3 with noise on the right view, so the costs of neighbouring
// disparities are close and a near-tie is decided by the arithmetic, not by a clean zero.
struct NoisyPair {
  ImageU8 left, right;
};
NoisyPair noisy_pair(int width, int height, unsigned seed) {
  NoisyPair p{test::random_texture(width, height, seed), {}};
  p.right = test::shifted(p.left, 3);
  std::mt19937 rng(seed + 1);
  std::uniform_int_distribution<int> noise(-12, 12);
  for (auto& v : p.right.data) v = std::uint8_t(std::clamp(int(v) + noise(rng), 0, 255));
  return p;
}

ImageF cpu_backend(const ImageU8& l, const ImageU8& r, int levels, Overrides o, int threads) {
  o.emplace_back("threads", std::to_string(threads));
  return create_matcher("salap", "cpu", o)->compute(l, r, levels).disparity;
}

// Eq. 1-4 written out with no stage of reference/salap.cpp: the four quadrant costs as 2D
// window sums in double, C_i(x, y) = sum_{k,l = 0..W} w_k w_l D(x -/+ k, y +/- l) / F1^2, of the
// truncated TAD D of the mean |dRGB|, clamp-to-edge (clamping each coordinate of a 2D tap is
// what clamping each 1D pass gives). Returns cost[d][y * width + x].
std::vector<std::vector<double>> brute_force_costs(const ImageU8& l, const ImageU8& r, int levels,
                                                   const SalapParams& p) {
  const int w = l.width, h = l.height, reach = p.radius();
  std::vector<double> wt(std::size_t(reach) + 1);
  double f1 = 0.0;
  for (int k = 0; k <= reach; ++k) f1 += wt[std::size_t(k)] = std::exp(-k / double(p.gamma));
  auto cx = [&](int x) { return std::clamp(x, 0, w - 1); };
  auto cy = [&](int y) { return std::clamp(y, 0, h - 1); };
  std::vector<std::vector<double>> cost(std::size_t(levels), std::vector<double>(l.pixel_count()));
  std::vector<double> tad(l.pixel_count());
  for (int d = 0; d < levels; ++d) {
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double sum = 0.0;
        for (int c = 0; c < 3; ++c) sum += std::abs(double(l.at(x, y, c)) - double(r.at(cx(x - d), y, c)));
        tad[std::size_t(y * w + x)] = std::min(sum / 3.0, double(p.tau)) / double(p.tau);
      }
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        // q[0]: x-k, y+l; q[1]: x-k, y-l; q[2]: x+k, y+l; q[3]: x+k, y-l (C0..C3 of reference/salap.h).
        double q[4] = {0, 0, 0, 0};
        for (int l2 = 0; l2 <= reach; ++l2)
          for (int k = 0; k <= reach; ++k) {
            const double wkl = wt[std::size_t(k)] * wt[std::size_t(l2)];
            q[0] += wkl * tad[std::size_t(cy(y + l2) * w + cx(x - k))];
            q[1] += wkl * tad[std::size_t(cy(y - l2) * w + cx(x - k))];
            q[2] += wkl * tad[std::size_t(cy(y + l2) * w + cx(x + k))];
            q[3] += wkl * tad[std::size_t(cy(y - l2) * w + cx(x + k))];
          }
        for (double& v : q) v /= f1 * f1;
        const double ca = (q[0] + q[1] + q[2] + q[3]) / 4.0;
        const double cb = std::min({q[0] + q[1], q[2] + q[3], q[0] + q[2], q[1] + q[3]}) / 2.0 + p.alpha;
        const double cc = std::min({q[0], q[1], q[2], q[3]}) + p.beta;
        cost[std::size_t(d)][std::size_t(y * w + x)] = p.windows == "9" ? std::min({ca, cb, cc}) : cc;
      }
  }
  return cost;
}

}  // namespace

// The backend against the method written out independently: every pixel's disparity is the
// brute force's winner, or, where float intermediates may decide a near-tie differently, a
// disparity whose brute-force cost is within 1e-5 of the minimum (the float stages' error is
// ~1e-7 of the [0, 1] cost range). The share of identical pixels is printed and must be high.
TEST(SalapCpuBackend, AgreesWithABruteForceWindowSum) {
  const NoisyPair pair = noisy_pair(45, 33, 5);
  const int levels = 9;
  for (const char* windows : {"9", "4"}) {
    SalapParams p;
    p.windows = windows;
    const auto cost = brute_force_costs(pair.left, pair.right, levels, p);
    const ImageF cpu = cpu_backend(pair.left, pair.right, levels, {{"windows", windows}}, 3);
    std::size_t same = 0;
    for (std::size_t i = 0; i < cpu.data.size(); ++i) {
      int best = 0;
      for (int d = 1; d < levels; ++d)
        if (cost[std::size_t(d)][i] < cost[std::size_t(best)][i]) best = d;
      const int got = int(cpu.data[i]);
      ASSERT_EQ(float(got), cpu.data[i]);
      ASSERT_TRUE(got >= 0 && got < levels);
      same += got == best;
      ASSERT_LE(cost[std::size_t(got)][i], cost[std::size_t(best)][i] + 1e-5)
          << "pixel " << i << ": backend d " << got << ", brute force d " << best;
    }
    std::cout << "[salap/cpu vs brute force, windows=" << windows << "] " << 100.0 * double(same) / double(cpu.data.size())
              << " % identical\n";
    EXPECT_GE(double(same) / double(cpu.data.size()), 0.99) << windows;
  }
}

// Bands, threads and the order in which bands run never change a bit: 1, 2 and 7 threads give
// reference::salap_disparity exactly, float and 8-bit, at an odd size (7 threads: 28 bands of
// one or two rows, so every band boundary is exercised).
TEST(SalapCpuBackend, BitIdenticalForAnyThreadCount) {
  const NoisyPair pair = noisy_pair(45, 33, 11);
  for (int quantize : {0, 8}) {
    const ImageF direct = reference::salap_disparity(pair.left, pair.right, 9, SalapParams{}, quantize);
    for (int threads : {1, 2, 7}) {
      const ImageF r = cpu_backend(pair.left, pair.right, 9, {{"quantize", std::to_string(quantize)}}, threads);
      EXPECT_EQ(r.data, direct.data) << threads << " threads, quantize " << quantize;
    }
  }
  // Ranges that do not start at 0, negative disparities included.
  for (const DisparityRange range : {DisparityRange{3, 6}, DisparityRange{-2, 7}}) {
    const ImageF direct = reference::salap_disparity(pair.left, pair.right, range, SalapParams{});
    for (int threads : {1, 2, 7}) {
      auto m = create_matcher("salap", "cpu", {{"threads", std::to_string(threads)}});
      EXPECT_EQ(m->compute(pair.left, pair.right, range).disparity.data, direct.data)
          << threads << " threads, range " << range.min << " + " << range.count;
    }
  }
}

// Exact ties: columns repeat with period 4 and the right view is shifted by 1, so d = 1, 5 and
// 9 all give a TAD of exactly 0 over the whole window once x - 9 >= 0 (x >= 9 + W keeps every
// tap there): equal costs (0), and nothing else reaches 0. The smallest, d = 1, must win, for
// every thread count and both cost models. A flat pair ties at every d: d = 0 everywhere.
TEST(SalapCpuBackend, TiesKeepTheSmallestDisparity) {
  const int w = 53, h = 23, period = 4, levels = 12;
  const ImageU8 columns = test::random_texture(period, h, 21);
  ImageU8 left(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) left.at(x, y, c) = columns.at(x % period, y, c);
  const ImageU8 right = test::shifted(left, 1);
  const int reach = SalapParams{}.radius();
  const ImageU8 flat(29, 13, 3, 77);
  for (int quantize : {0, 8}) {
    const Overrides o = {{"quantize", std::to_string(quantize)}};
    for (int threads : {1, 2, 7}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, quantize " + std::to_string(quantize));
      const ImageF r = cpu_backend(left, right, levels, o, threads);
      std::size_t checked = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 9 + reach; x < w; ++x, ++checked) ASSERT_EQ(r.at(x, y), 1.0f) << x << "," << y;
      EXPECT_GT(checked, 0u);
      EXPECT_EQ(r.data, reference::salap_disparity(left, right, levels, SalapParams{}, quantize).data);
      for (float d : cpu_backend(flat, flat, 9, o, threads).data) ASSERT_EQ(d, 0.0f);
    }
  }
}

TEST(SalapCpuBackend, UserErrorsThrow) {
  const ImageU8 left = test::random_texture(45, 33, 5);
  auto m = create_matcher("salap", "cpu", {{"threads", "3"}});
  EXPECT_THROW(m->compute(left, left, 45), Error);  // levels >= width
  EXPECT_THROW(create_matcher("salap", "cpu", {{"quantize", "4"}}), Error);
  EXPECT_THROW(create_matcher("salap", "cpu", {{"threads", "-1"}}), Error);
}

// ---- Middlebury: Lu et al. Table 1 (bad > 1, nonocc) ---------------------------------------
// Full-size Tsukuba (384x288, 16 levels) and Venus (434x383, 20 levels), each configuration
// computed once per test binary (static cache): the cpu backend takes about a second per run
// on the 2-core CI machine, so the paper's own scenes stay affordable and no crop stands in.

class SalapMiddlebury : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(data_root() / "middlebury-v2"))
      GTEST_SKIP() << missing_data_hint("middlebury-v2");
  }
  static const Metrics& run(const std::string& scene, const std::string& windows, int quantize) {
    static std::map<std::string, Metrics> cache;
    const std::string key = scene + "/" + windows + "/" + std::to_string(quantize);
    auto it = cache.find(key);
    if (it == cache.end()) {
      const Scene s = load_scene(data_root() / "middlebury-v2" / scene);
      auto m = create_matcher("salap", "cpu", {{"windows", windows}, {"quantize", std::to_string(quantize)}});
      it = cache.emplace(key, evaluate(m->compute(s.left, s.right, s.levels).disparity, s, 1.0)).first;
    }
    return it->second;
  }
};

// The bar of docs/methods/salap.md: the CPU reference's 9-window nonocc at most 1.0 point above Table 1.
TEST_F(SalapMiddlebury, NineWindowWithinOnePointOfTable1) {
  struct Row {
    const char* scene;
    double paper_nonocc, paper_disc;
  };
  for (const Row& r : {Row{"tsukuba", 3.95, 14.42}, Row{"venus", 5.04, 10.12}}) {
    const Metrics& m = run(r.scene, "9", 0);
    std::cout << "[salap/cpu 9-window] " << r.scene << " nonocc " << *m.bad_nonocc << " (paper " << r.paper_nonocc
              << ", bar " << r.paper_nonocc + 1.0 << "), all " << *m.bad_all << ", disc " << *m.bad_disc
              << " (paper " << r.paper_disc << ")\n";
    RecordProperty(std::string(r.scene) + "_nonocc", std::to_string(*m.bad_nonocc));
    EXPECT_LE(*m.bad_nonocc, r.paper_nonocc + 1.0) << r.scene;
  }
}

TEST_F(SalapMiddlebury, EightBitModelStaysCloseToFloat) {
  for (const char* scene : {"tsukuba", "venus"}) {
    const Metrics& f = run(scene, "9", 0);
    const Metrics& q = run(scene, "9", 8);
    std::cout << "[salap/cpu quantize=8] " << scene << " nonocc " << *q.bad_nonocc << " (float " << *f.bad_nonocc << ")\n";
    EXPECT_NEAR(*q.bad_nonocc, *f.bad_nonocc, 1.0) << scene;
  }
}

// Table 1's 4-window rows (Tsukuba 7.63, Venus 9.04) are reported beside the measured figures,
// float and 8-bit, and not gated: docs/methods/salap.md sets no bar for them (Venus float lands 1.07
// points above the paper). What is gated is what Table 1 shows of the variant: one quadrant
// per window is worse than the 9-window method on both scenes, by more than a point.
TEST_F(SalapMiddlebury, FourWindowVariantAgainstTable1) {
  for (const auto& [scene, paper] : {std::pair{"tsukuba", 7.63}, std::pair{"venus", 9.04}}) {
    const Metrics& nine = run(scene, "9", 0);
    const Metrics& four = run(scene, "4", 0);
    const Metrics& four8 = run(scene, "4", 8);
    std::cout << "[salap/cpu 4-window] " << scene << " nonocc " << *four.bad_nonocc << ", quantize=8 "
              << *four8.bad_nonocc << " (paper " << paper << "); 9-window " << *nine.bad_nonocc << "\n";
    RecordProperty(std::string(scene) + "_4window_nonocc", std::to_string(*four.bad_nonocc));
    RecordProperty(std::string(scene) + "_4window_q8_nonocc", std::to_string(*four8.bad_nonocc));
    EXPECT_GT(*four.bad_nonocc, *nine.bad_nonocc + 1.0) << scene;
    EXPECT_GT(*four8.bad_nonocc, *nine.bad_nonocc + 1.0) << scene;
  }
}
