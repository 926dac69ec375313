// Each AD-Census stage on the GPU (methods/adcensus/cuda/stages.h) against the reference stage of the
// same name (reference/adcensus.h, reference/adcensus_refine.h) on odd sizes, every output
// poisoned before its launch.
//
// Integer stages (grey, census, arms, WTA, LR check, voting, interpolation, adjustment,
// sub-pixel, median) must match bit for bit. The GPU volumes hold fp16, so each float stage
// is fed the reference's input rounded to fp16 (what the GPU holds) and compared by relative
// L2 error and by the largest per-cell error relative to the cell's magnitude:
//   cost       max |error| <= 1e-3            (one fp16 rounding of a value in [0, 2]: 2^-11 x 2)
//   aggregate  relative L2 <= 1e-3, cell <= 2e-3   (the first pass's sums and the result are
//              each rounded once: <= 2 x 2^-11 relative)
//   scanline   relative L2 <= 1e-3, cell <= 2e-3   (four rounded paths, their rounded mean)
// Refinement steps that read C2 are fed the same fp16-rounded C2 on both sides, so they too
// must match exactly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "methods/adcensus/cuda/stages.h"
#include "cuda/shared/median.h"
#include "methods/adcensus/params.h"
#include "app/metrics.h"
#include "methods/adcensus/model.h"
#include "methods/adcensus/reference/adcensus.h"
#include "methods/adcensus/reference/adcensus_refine.h"
#include "methods/adcensus/tests/cuda_stage_util.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

namespace ca = cu::adcensus;
namespace ref = reference;
using cuda_test::adcensus::download_volume;
using cuda_test::adcensus::round_to_half;
using cuda_test::adcensus::upload_volume;

constexpr double COST_MAX_ERROR = 1e-3;
constexpr double VOLUME_L2_TOLERANCE = 1e-3;
constexpr double VOLUME_CELL_TOLERANCE = 2e-3;
constexpr int WIDTH = 67;
constexpr int HEIGHT = 43;

// Two depth layers (a foreground rectangle at disparity 9 over a background at 3) and a
// little noise, so the LR check finds both occlusions and mismatches for the refinement.
struct Pair {
  ImageU8 left, right;
};
Pair layered_pair(int width, int height, unsigned seed) {
  const ImageU8 right = test::random_texture(width, height, seed);
  ImageU8 left(width, height, 3);
  std::mt19937 rng(seed + 1);
  std::uniform_int_distribution<int> noise(-6, 6);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const bool front = x >= width / 3 && x < 2 * width / 3 && y >= height / 4 && y < 3 * height / 4;
      const int d = front ? 9 : 3;
      for (int c = 0; c < 3; ++c)
        left.at(x, y, c) = std::uint8_t(std::clamp(int(at_clamped(right, x - d, y, c)) + noise(rng), 0, 255));
    }
  return {left, right};
}

// A pair's census images and its uploads (images and census), as most stage tests start.
struct PairInputs {
  ref::CensusImage lc, rc;
  cu::DeviceImage<uchar4> d_left, d_right;
  cu::DeviceImage<std::uint64_t> d_lc, d_rc;
};
PairInputs pair_inputs(const Pair& p) {
  PairInputs in{ref::census_transform(ref::grey_image(p.left)), ref::census_transform(ref::grey_image(p.right)), {},
                {}, {}, {}};
  in.d_left = ca::upload_rgb(p.left);
  in.d_right = ca::upload_rgb(p.right);
  in.d_lc = ca::upload_census(in.lc);
  in.d_rc = ca::upload_census(in.rc);
  return in;
}


// Relative L2 error and the largest |got - want| / max(|want|, 1e-3) over the cells.
struct VolumeError {
  double l2 = 0.0;
  double cell = 0.0;
  double max_abs = 0.0;
};
VolumeError compare(const ref::CostVolume& got, const ref::CostVolume& want) {
  EXPECT_EQ(got.data.size(), want.data.size());
  VolumeError e;
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < got.data.size() && i < want.data.size(); ++i) {
    const double g = got.data[i], w = want.data[i];
    if (!std::isfinite(g)) {
      e.l2 = e.cell = e.max_abs = std::numeric_limits<double>::infinity();
      return e;
    }
    num += (g - w) * (g - w);
    den += w * w;
    e.max_abs = std::max(e.max_abs, std::abs(g - w));
    e.cell = std::max(e.cell, std::abs(g - w) / std::max(std::abs(w), 1e-3));
  }
  e.l2 = den > 0.0 ? std::sqrt(num / den) : std::sqrt(num);
  return e;
}

// Bit-for-bit equality of float maps (+inf equal to +inf).
void expect_same_map(const ImageF& got, const ImageF& want, const std::string& what) {
  ASSERT_EQ(got.width, want.width) << what;
  ASSERT_EQ(got.height, want.height) << what;
  const std::size_t width = static_cast<std::size_t>(got.width);
  int differ = 0;
  for (std::size_t i = 0; i < got.data.size(); ++i)
    if (!(got.data[i] == want.data[i])) {
      if (differ++ < 5)
        ADD_FAILURE() << what << ": pixel (" << i % width << ", " << i / width << ") got " << got.data[i]
                      << ", reference " << want.data[i];
    }
  EXPECT_EQ(differ, 0) << what << ": " << differ << " pixels differ";
}

template <class T>
void expect_same_bytes(const Image<T>& got, const Image<T>& want, const std::string& what) {
  ASSERT_EQ(got.width, want.width) << what;
  ASSERT_EQ(got.height, want.height) << what;
  ASSERT_EQ(got.channels, want.channels) << what;
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.data.size(); ++i) differ += got.data[i] != want.data[i];
  EXPECT_EQ(differ, 0u) << what << ": " << differ << " of " << got.data.size() << " values differ";
}

cu::DeviceImage<float> upload_map(const ImageF& map) { return cu::upload(map); }

cu::DeviceImage<std::uint8_t> poisoned_u8(int w, int h) {
  cu::DeviceImage<std::uint8_t> out(w, h, "test", "an 8-bit map");
  cu::poison(out);
  return out;
}

cu::DeviceImage<float> poisoned_f(int w, int h) {
  cu::DeviceImage<float> out(w, h, "test", "a float map");
  cu::poison(out);
  return out;
}

ca::DeviceVolume poisoned_volume(int w, int h, DisparityRange r) {
  ca::DeviceVolume v(w, h, r, "test", "a volume");
  ca::poison(v);
  return v;
}

// The reference chain up to C1 (aggregated), for one view.
ref::CostVolume reference_c1(const Pair& p, DisparityRange range, const AdCensusParams& params, bool right_view) {
  const auto lc = ref::census_transform(ref::grey_image(p.left));
  const auto rc = ref::census_transform(ref::grey_image(p.right));
  ref::CostVolume c = ref::ad_census_cost({p.left, p.right, lc, rc}, range, params, right_view);
  const ref::CrossArms arms = ref::cross_arms(right_view ? p.right : p.left, params);
  const ref::CrossArms other_arms = ref::cross_arms(right_view ? p.left : p.right, params);
  for (int i = 1; i <= params.aggregation_iterations; ++i) c = ref::aggregate_cost(c, arms, other_arms, i, right_view);
  return c;
}

// ---- census ------------------------------------------------------------------------------

TEST(CudaAdCensusStages, GreyAndCensusMatchBitForBit) {
  STEREO_REQUIRE_CUDA();
  for (const int w : {WIDTH, 5}) {
    const ImageU8 rgb = cuda_test::random_u8(w, HEIGHT, 3, 1);
    const auto d_rgb = ca::upload_rgb(rgb);
    auto grey = poisoned_u8(w, HEIGHT);
    ca::grey_image(d_rgb, grey);
    const ImageU8 want_grey = ref::grey_image(rgb);
    expect_same_bytes(ca::download_u8(grey), want_grey, "grey " + std::to_string(w));

    cu::DeviceImage<std::uint64_t> census(w, HEIGHT, "test", "census");
    CUDA_CHECK(cudaMemset(census.get(), 0xFF, census.count() * sizeof(std::uint64_t)));
    ca::census_transform(grey, census);
    expect_same_bytes(ca::download_census(census), ref::census_transform(want_grey), "census " + std::to_string(w));
  }
  // A grey input is replicated to RGB; grey_image must return it unchanged, as the reference does.
  const ImageU8 grey_in = cuda_test::random_u8(WIDTH, HEIGHT, 1, 2);
  auto grey = poisoned_u8(WIDTH, HEIGHT);
  ca::grey_image(ca::upload_rgb(grey_in), grey);
  expect_same_bytes(ca::download_u8(grey), ref::grey_image(grey_in), "grey of a grey input");
}

// ---- cost --------------------------------------------------------------------------------

TEST(CudaAdCensusStages, CostMatchesReference) {
  STEREO_REQUIRE_CUDA();
  const Pair p = layered_pair(WIDTH, HEIGHT, 3);
  const AdCensusParams params;
  const auto& [lc, rc, d_left, d_right, d_lc, d_rc] = pair_inputs(p);
  for (const DisparityRange range : {DisparityRange{0, 16}, DisparityRange{-3, 37}})
    for (const bool right_view : {false, true}) {
      auto out = poisoned_volume(WIDTH, HEIGHT, range);
      ca::ad_census_cost({d_left, d_right, d_lc, d_rc}, params, right_view, out);
      const VolumeError e =
          compare(download_volume(out), ref::ad_census_cost({p.left, p.right, lc, rc}, range, params, right_view));
      std::printf("  cost min %d count %d %s view: max error %.2e\n", range.min, range.count,
                  right_view ? "right" : "left", e.max_abs);
      EXPECT_LE(e.max_abs, COST_MAX_ERROR) << "min " << range.min << " right_view " << right_view;
    }
}

// ---- cross arms --------------------------------------------------------------------------

TEST(CudaAdCensusStages, CrossArmsMatchBitForBit) {
  STEREO_REQUIRE_CUDA();
  const Pair p = layered_pair(WIDTH, HEIGHT, 4);
  AdCensusParams tight;
  tight.arm_l1 = 10;
  tight.arm_l2 = 4;
  tight.tau1 = 30;
  tight.tau2 = 12;
  const ImageU8 flat(WIDTH, HEIGHT, 3, 100);  // arms limited by L1 and the border only
  for (const ImageU8* image : {&p.left, &flat})
    for (const AdCensusParams& params : {AdCensusParams{}, tight}) {
      cu::DeviceImage<uchar4> arms(WIDTH, HEIGHT, "test", "arms");
      CUDA_CHECK(cudaMemset(arms.get(), 0xFF, arms.count() * sizeof(uchar4)));
      ca::cross_arms(ca::upload_rgb(*image), params, arms);
      expect_same_bytes(ca::download_arms(arms), ref::cross_arms(*image, params),
                        "arms L1 " + std::to_string(params.arm_l1));
    }
}

TEST(CudaAdCensusStages, RegionSizesCountTheRegion) {
  STEREO_REQUIRE_CUDA();
  const Pair p = layered_pair(WIDTH, HEIGHT, 5);
  const ref::CrossArms arms = ref::cross_arms(p.left, AdCensusParams{});
  auto hv = poisoned_f(WIDTH, HEIGHT), vh = poisoned_f(WIDTH, HEIGHT);
  ca::region_sizes(ca::upload_arms(arms), hv, vh);
  const ImageF got_hv = cu::download(hv), got_vh = cu::download(vh);
  // Aggregating a volume of ones without normalising counts the region: compare with the
  // reference's own count through aggregate_cost, which divides the sum of ones by it (= 1),
  // and directly with the definition for a few pixels.
  for (const auto& [x, y] : {std::pair{0, 0}, std::pair{33, 21}, std::pair{66, 42}, std::pair{10, 40}}) {
    int hv_count = 0, vh_count = 0;
    for (int yy = y - arms.at(x, y, 2); yy <= y + arms.at(x, y, 3); ++yy)
      hv_count += arms.at(x, yy, 0) + arms.at(x, yy, 1) + 1;
    for (int xx = x - arms.at(x, y, 0); xx <= x + arms.at(x, y, 1); ++xx)
      vh_count += arms.at(xx, y, 2) + arms.at(xx, y, 3) + 1;
    EXPECT_EQ(got_hv.at(x, y), float(hv_count)) << x << "," << y;
    EXPECT_EQ(got_vh.at(x, y), float(vh_count)) << x << "," << y;
  }
  ASSERT_TRUE(cuda_test::all_finite(got_hv));
  ASSERT_TRUE(cuda_test::all_finite(got_vh));
}

// ---- aggregation -------------------------------------------------------------------------

TEST(CudaAdCensusStages, AggregationMatchesReference) {
  STEREO_REQUIRE_CUDA();
  const Pair p = layered_pair(WIDTH, HEIGHT, 6);
  for (const int l1 : {34, 9}) {
    AdCensusParams params;
    params.arm_l1 = l1;
    params.arm_l2 = std::min(params.arm_l2, l1 - 1);
    const DisparityRange range{-2, 19};
    const auto lc = ref::census_transform(ref::grey_image(p.left));
    const auto rc = ref::census_transform(ref::grey_image(p.right));
    const ref::CostVolume c = round_to_half(ref::ad_census_cost({p.left, p.right, lc, rc}, range, params, false));
    const ref::CrossArms arms = ref::cross_arms(p.left, params);
    const auto d_arms = ca::upload_arms(arms);
    auto hv = poisoned_f(WIDTH, HEIGHT), vh = poisoned_f(WIDTH, HEIGHT);
    ca::region_sizes(d_arms, hv, vh);
    // One iteration of each order from the same input, then the chained four.
    for (const int iteration : {1, 2}) {
      const ca::DeviceVolume in = upload_volume(c);
      auto scratch = poisoned_volume(WIDTH, HEIGHT, range);
      auto out = poisoned_volume(WIDTH, HEIGHT, range);
      ca::aggregate_cost(in, {d_arms, hv, vh, l1 - 1}, iteration, {scratch, out});
      const VolumeError e = compare(download_volume(out), ref::aggregate_cost(c, arms, iteration));
      std::printf("  aggregate L1 %d iteration %d: relative L2 %.2e, worst cell %.2e\n", l1, iteration, e.l2, e.cell);
      EXPECT_LE(e.l2, VOLUME_L2_TOLERANCE) << "iteration " << iteration;
      EXPECT_LE(e.cell, VOLUME_CELL_TOLERANCE) << "iteration " << iteration;
    }
    ca::DeviceVolume chain = upload_volume(c);
    auto scratch = poisoned_volume(WIDTH, HEIGHT, range);
    ref::CostVolume want = c;
    for (int i = 1; i <= 4; ++i) {
      ca::aggregate_cost(chain, {d_arms, hv, vh, l1 - 1}, i, {scratch, chain});  // in place, as the matcher runs it
      want = ref::aggregate_cost(want, arms, i);
      const VolumeError e = compare(download_volume(chain), want);
      std::printf("  aggregate L1 %d chained to iteration %d: relative L2 %.2e\n", l1, i, e.l2);
      EXPECT_LE(e.l2, double(i) * VOLUME_L2_TOLERANCE) << "chained iteration " << i;  // one rounding per pass
    }
  }
}

// The cost fused into the first pass of iteration 1 (what the matcher runs) against the
// reference cost aggregated once; C enters in fp32 here, so only the two stored results round.
TEST(CudaAdCensusStages, CostFusedIntoFirstAggregationMatchesReference) {
  STEREO_REQUIRE_CUDA();
  const Pair p = layered_pair(WIDTH, HEIGHT, 12);
  const AdCensusParams params;
  const auto& [lc, rc, d_left, d_right, d_lc, d_rc] = pair_inputs(p);
  for (const DisparityRange range : {DisparityRange{0, 16}, DisparityRange{-3, 37}})
    for (const bool right_view : {false, true}) {
      const ref::CrossArms arms = ref::cross_arms(right_view ? p.right : p.left, params);
      const auto d_arms = ca::upload_arms(arms);
      auto hv = poisoned_f(WIDTH, HEIGHT), vh = poisoned_f(WIDTH, HEIGHT);
      ca::region_sizes(d_arms, hv, vh);
      auto scratch = poisoned_volume(WIDTH, HEIGHT, range);
      auto out = poisoned_volume(WIDTH, HEIGHT, range);
      ca::ad_census_cost_aggregated({d_left, d_right, d_lc, d_rc}, params, right_view,
                                    {d_arms, hv, vh, params.arm_l1 - 1}, {scratch, out});
      const ref::CostVolume want =
          ref::aggregate_cost(ref::ad_census_cost({p.left, p.right, lc, rc}, range, params, right_view), arms, 1);
      const VolumeError e = compare(download_volume(out), want);
      std::printf("  cost+aggregate min %d count %d %s: relative L2 %.2e, worst cell %.2e\n", range.min,
                  range.count, right_view ? "right" : "left", e.l2, e.cell);
      EXPECT_LE(e.l2, VOLUME_L2_TOLERANCE);
      EXPECT_LE(e.cell, VOLUME_CELL_TOLERANCE);
    }
}

// Zhang et al.'s combined region (what the matcher runs): arms the shorter of p's and pd's per
// level, the count per (p, d); both views, one iteration of each order and the chained four
// against the reference, and the matcher's call (the cost fused into iteration 1) with the
// region counts of iterations 1 and 2 kept for 3 and 4 against the same call counting anew.
// `limits` are the arm limits the single iterations run with (the chain runs Table 1's); an odd
// level count runs the kernels with one level a lane, an even one those with two.
void check_combined_aggregation(int width, int height, std::initializer_list<int> limits,
                                DisparityRange range = {-3, 21}) {
  const Pair p = layered_pair(width, height, 8);
  const AdCensusParams params;
  const auto lc = ref::census_transform(ref::grey_image(p.left));
  const auto rc = ref::census_transform(ref::grey_image(p.right));
  const ref::CrossArms left_arms = ref::cross_arms(p.left, params);
  const ref::CrossArms right_arms = ref::cross_arms(p.right, params);
  const auto d_left_arms = ca::upload_arms(left_arms), d_right_arms = ca::upload_arms(right_arms);
  const auto d_left = ca::upload_rgb(p.left), d_right = ca::upload_rgb(p.right);
  const auto d_lc = ca::upload_census(lc), d_rc = ca::upload_census(rc);
  const int max_arm = params.arm_l1 - 1;
  for (const bool right_view : {false, true}) {
    const ref::CrossArms& arms = right_view ? right_arms : left_arms;
    const ref::CrossArms& other = right_view ? left_arms : right_arms;
    const auto& d_arms = right_view ? d_right_arms : d_left_arms;
    const auto& d_other = right_view ? d_left_arms : d_right_arms;
    const char* view = right_view ? "right" : "left";
    const ref::CostVolume raw = ref::ad_census_cost({p.left, p.right, lc, rc}, range, params, right_view);
    const ref::CostVolume c = round_to_half(raw);
    for (const int limit : limits)
      for (const int iteration : {1, 2}) {
        const ca::DeviceVolume in = upload_volume(c);
        auto scratch = poisoned_volume(width, height, range);
        auto out = poisoned_volume(width, height, range);
        ca::aggregate_cost(in, {d_arms, d_other, right_view, limit}, iteration, {scratch, out});
        const VolumeError e =
            compare(download_volume(out), ref::aggregate_cost(c, arms, other, iteration, right_view));
        std::printf("  combined aggregate %dx%d %s iteration %d, arm limit %d: relative L2 %.2e, worst cell %.2e\n",
                    width, height, view, iteration, limit, e.l2, e.cell);
        EXPECT_LE(e.l2, VOLUME_L2_TOLERANCE) << view << " iteration " << iteration << " limit " << limit;
        EXPECT_LE(e.cell, VOLUME_CELL_TOLERANCE) << view << " iteration " << iteration << " limit " << limit;
      }
    ca::DeviceVolume chain = upload_volume(c);
    auto scratch = poisoned_volume(width, height, range);
    ref::CostVolume want = c;
    for (int i = 1; i <= 4; ++i) {
      ca::aggregate_cost(chain, {d_arms, d_other, right_view, max_arm}, i, {scratch, chain});  // in place
      want = ref::aggregate_cost(want, arms, other, i, right_view);
      const VolumeError e = compare(download_volume(chain), want);
      std::printf("  combined aggregate %dx%d %s chained to iteration %d: relative L2 %.2e\n", width, height, view, i,
                  e.l2);
      EXPECT_LE(e.l2, double(i) * VOLUME_L2_TOLERANCE) << view << " chained iteration " << i;
    }
    // A count read back is the count itself (16 bits hold it), so the maps are the same bits.
    ca::RegionCounts counts(ca::DeviceVolume::cells(width, height, range.count), "test");
    auto counted = poisoned_volume(width, height, range), kept = poisoned_volume(width, height, range);
    const ca::CostImages images{d_left, d_right, d_lc, d_rc};
    const ca::CombinedRegion region{d_arms, d_other, right_view, max_arm};
    ca::ad_census_cost_aggregated(images, params, region, 4, {scratch, counted});
    ca::ad_census_cost_aggregated(images, params, region, 4, {scratch, kept}, nullptr, &counts);
    const ref::CostVolume a = download_volume(counted), b = download_volume(kept);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i) differ += a.data[i] == b.data[i] ? 0u : 1u;
    EXPECT_EQ(differ, 0u) << view << ": cells that differ with the counts kept, of " << a.data.size();
  }
}

TEST(CudaAdCensusStages, CombinedAggregationMatchesReference) {
  STEREO_REQUIRE_CUDA();
  // A limit of 139 (above every arm of this pair, so the same sums) takes the kernel with
  // 32-bit count integrals: (2 x 139 + 1)^2 does not fit 16 bits (one level a lane in the
  // count passes, also with an even level count).
  for (const DisparityRange range : {DisparityRange{-3, 21}, DisparityRange{-3, 22}})
    check_combined_aggregation(WIDTH, HEIGHT, {AdCensusParams{}.arm_l1 - 1, 139}, range);
}

// Lines long enough for several tiles, with middle tiles whose halo lies inside the line (the
// interior loops), for each tile size tile_for picks (methods/adcensus/cuda/arm_sum_tiles.cu;
// count passes / the other passes): 300 columns take 3 x 120 / 2 x 160, 375 rows 3 x 128 /
// 2 x 192, 288 columns 3 x 96 / 2 x 160, 576 columns 5 x 120 / 3 x 192, 480 columns 4 x 120 /
// 3 x 160. With 21 levels every pass holds one level a lane; with 22 the passes without a
// count column hold two (levels_a_lane), at the same tiles.
TEST(CudaAdCensusStages, CombinedAggregationOverSeveralTilesMatchesReference) {
  STEREO_REQUIRE_CUDA();
  for (const auto& [width, height] : {std::pair{300, 375}, std::pair{288, HEIGHT}, std::pair{576, HEIGHT},
                                     std::pair{480, HEIGHT}})
    for (const DisparityRange range : {DisparityRange{-3, 21}, DisparityRange{-3, 22}})
      check_combined_aggregation(width, height, {AdCensusParams{}.arm_l1 - 1}, range);
}

// The matcher aggregates the left view only and takes the right view's volume as the left
// one's, skewed: over the combined region that is the right view's own aggregation, and the
// GPU's window sums are integer sums of the same fixed-point values, so bit for bit. Also the
// skew itself against the reference's, and the raw cost (no aggregation).
TEST(CudaAdCensusStages, RightViewFromLeftIsTheRightViewsOwnAggregation) {
  STEREO_REQUIRE_CUDA();
  for (const auto& [width, height] : {std::pair{WIDTH, HEIGHT}, std::pair{300, 131}}) {
    const Pair p = layered_pair(width, height, 10);
    const AdCensusParams params;
    const auto& [lc, rc, d_left, d_right, d_lc, d_rc] = pair_inputs(p);
    const auto arms_left = ca::upload_arms(ref::cross_arms(p.left, params));
    const auto arms_right = ca::upload_arms(ref::cross_arms(p.right, params));
    const auto same_bits = [](const ref::CostVolume& a, const ref::CostVolume& b) {
      std::size_t differ = 0;
      for (std::size_t i = 0; i < a.data.size(); ++i) differ += a.data[i] == b.data[i] ? 0u : 1u;
      return differ;
    };
    for (const DisparityRange range : {DisparityRange{-3, 21}, DisparityRange{0, 40}, DisparityRange{5, 36}}) {
      const int max_arm = params.arm_l1 - 1;
      auto scratch = poisoned_volume(width, height, range);
      auto left = poisoned_volume(width, height, range), right = poisoned_volume(width, height, range);
      auto skewed = poisoned_volume(width, height, range);
      // The cost.
      ca::ad_census_cost({d_left, d_right, d_lc, d_rc}, params, false, left);
      ca::ad_census_cost({d_left, d_right, d_lc, d_rc}, params, true, right);
      ca::right_view_from_left(left, params.out_of_image_cost, skewed);
      EXPECT_EQ(same_bits(download_volume(skewed), download_volume(right)), 0u)
          << width << "x" << height << " min " << range.min << " count " << range.count << ": cost cells that differ";
      // The skew against the reference's, on the same fp16 values.
      const ref::CostVolume host_left = download_volume(left);
      EXPECT_EQ(same_bits(download_volume(skewed),
                          round_to_half(ref::right_view_from_left(host_left, params.out_of_image_cost))),
                0u);
      // Four iterations (the counts kept, as the matcher runs them).
      ca::RegionCounts counts(ca::DeviceVolume::cells(width, height, range.count), "test");
      const ca::CostImages images{d_left, d_right, d_lc, d_rc};
      ca::ad_census_cost_aggregated(images, params, {arms_left, arms_right, false, max_arm}, 4, {scratch, left},
                                    nullptr, &counts);
      ca::ad_census_cost_aggregated(images, params, {arms_right, arms_left, true, max_arm}, 4, {scratch, right},
                                    nullptr, &counts);
      ca::right_view_from_left(left, params.out_of_image_cost, skewed);
      const std::size_t differ = same_bits(download_volume(skewed), download_volume(right));
      std::printf("  right view from left %dx%d, min %d count %d: %zu of %zu cells differ from its own aggregation\n",
                  width, height, range.min, range.count, differ, right.count());
      EXPECT_EQ(differ, 0u);
    }
  }
}

// The matcher's call: the cost computed in the first pass, then 1 to 4 iterations (ending on
// either axis) in place, against the reference chain from the fp32 cost. Two level groups of a
// 32-lane block (40 levels), and short arms (L1 = 5) besides Table 1's.
TEST(CudaAdCensusStages, CostAndIterationsMatchReference) {
  STEREO_REQUIRE_CUDA();
  const Pair p = layered_pair(WIDTH, HEIGHT, 9);
  const auto& [lc, rc, d_left, d_right, d_lc, d_rc] = pair_inputs(p);
  for (const int l1 : {34, 5}) {
    AdCensusParams params;
    params.arm_l1 = l1;
    params.arm_l2 = std::min(params.arm_l2, l1 - 1);
    const ref::CrossArms left_arms = ref::cross_arms(p.left, params);
    const ref::CrossArms right_arms = ref::cross_arms(p.right, params);
    const auto d_left_arms = ca::upload_arms(left_arms), d_right_arms = ca::upload_arms(right_arms);
    for (const DisparityRange range : {DisparityRange{-3, 21}, DisparityRange{0, 40}})
      for (const bool right_view : {false, true}) {
        const ref::CrossArms& arms = right_view ? right_arms : left_arms;
        const ref::CrossArms& other = right_view ? left_arms : right_arms;
        ref::CostVolume want = ref::ad_census_cost({p.left, p.right, lc, rc}, range, params, right_view);
        for (int iterations = 1; iterations <= 4; ++iterations) {
          want = ref::aggregate_cost(want, arms, other, iterations, right_view);
          auto scratch = poisoned_volume(WIDTH, HEIGHT, range);
          auto out = poisoned_volume(WIDTH, HEIGHT, range);
          const ca::CombinedRegion region{right_view ? d_right_arms : d_left_arms,
                                          right_view ? d_left_arms : d_right_arms, right_view, l1 - 1};
          ca::ad_census_cost_aggregated({d_left, d_right, d_lc, d_rc}, params, region, iterations, {scratch, out});
          const VolumeError e = compare(download_volume(out), want);
          std::printf("  cost + %d iterations, L1 %d, min %d count %d %s: relative L2 %.2e, worst cell %.2e\n",
                      iterations, l1, range.min, range.count, right_view ? "right" : "left", e.l2, e.cell);
          // Each pass rounds its output to fp16 once (<= 2^-11 relative), and a sum or mean of
          // positive values keeps its terms' relative error, so a cell is within 2 x iterations
          // x 2^-11 of the reference, plus the fixed-point quantum (2^-19 absolute per value,
          // <= 2e-4 against the 1e-3 floor of the relative error).
          const double bound = 2.0 * iterations * std::ldexp(1.0, -11);
          EXPECT_LE(e.l2, bound) << iterations << " iterations";
          EXPECT_LE(e.cell, bound + 2e-4) << iterations << " iterations";
        }
      }
  }
}

// ---- scanline and WTA --------------------------------------------------------------------

TEST(CudaAdCensusStages, ScanlineMatchesReference) {
  STEREO_REQUIRE_CUDA();
  const Pair p = layered_pair(WIDTH, HEIGHT, 7);
  const AdCensusParams params;
  const auto d_left = ca::upload_rgb(p.left), d_right = ca::upload_rgb(p.right);
  // Up to 32 levels four a lane in groups of 4 (7, 16 levels) or 8 (30) lanes a line; 33-64 two
  // a lane (40, 61), 65-128 four (66, 128), in groups of 32; 129-256 sixteen a lane in groups
  // of 16 (130, 136, 144: the 1080p x 256 kernel, two lines a warp). A warp walks 8, 4, 2 or 1
  // lines (43 rows and 67 columns leave the last warp's later groups without a line); above 66
  // levels most matches lie outside the 67-wide image, where D2 counts as no edge. 16, 40, 128
  // and 144 are multiples of the levels a lane holds (the kernels' vector loads and stores), 7,
  // 30, 61, 66, 130 and 136 are not (level by level).
  for (const DisparityRange range :
       {DisparityRange{0, 7}, DisparityRange{0, 16}, DisparityRange{2, 30}, DisparityRange{-4, 40},
        DisparityRange{0, 61}, DisparityRange{0, 66}, DisparityRange{0, 128}, DisparityRange{-5, 130},
        DisparityRange{-5, 136}, DisparityRange{-5, 144}})
    for (const bool right_view : {false, true}) {
      const ref::CostVolume c1 = round_to_half(reference_c1(p, range, params, right_view));
      const ca::DeviceVolume d_c1 = upload_volume(c1);
      // The edge bits are left empty: scanline_optimize allocates them on first use.
      ca::PathVolumes paths{poisoned_volume(WIDTH, HEIGHT, range), poisoned_volume(WIDTH, HEIGHT, range),
                            poisoned_volume(WIDTH, HEIGHT, range), poisoned_volume(WIDTH, HEIGHT, range), {}};
      auto out = poisoned_volume(WIDTH, HEIGHT, range);
      auto disparity = poisoned_f(WIDTH, HEIGHT);
      ca::scanline_optimize(d_c1, {d_left, d_right}, params, right_view, paths, out, &disparity);
      const ref::CostVolume want = ref::scanline_optimize(c1, p.left, p.right, params, right_view);
      const VolumeError e = compare(download_volume(out), want);
      const ImageF want_d = ref::winner_takes_all(want);
      const ImageF got_d = cu::download(disparity);
      const double same = agreement(got_d, want_d);  // integer maps: exact equality
      std::printf("  scanline min %d count %d %s: relative L2 %.2e, worst cell %.2e, fused WTA same as reference %.4f\n",
                  range.min, range.count, right_view ? "right" : "left", e.l2, e.cell, same);
      EXPECT_LE(e.l2, VOLUME_L2_TOLERANCE);
      EXPECT_LE(e.cell, VOLUME_CELL_TOLERANCE);
      // The fused WTA ranks fp32 means of fp16 paths: only near-ties may differ.
      EXPECT_GE(same, 0.99);
      // In place (the matcher's left view: C2 over C1): the same mean, the same map.
      ca::DeviceVolume in_place = upload_volume(c1);
      auto in_place_d = poisoned_f(WIDTH, HEIGHT);
      ca::scanline_optimize(in_place, {d_left, d_right}, params, right_view, paths, in_place, &in_place_d);
      EXPECT_EQ(download_volume(in_place).data, download_volume(out).data) << "C2 written over C1";
      expect_same_map(cu::download(in_place_d), got_d, "scanline_optimize in place");
      // Without storing C2 (the matcher's right view) the map is the same.
      auto only_d = poisoned_f(WIDTH, HEIGHT);
      ca::scanline_disparity(d_c1, {d_left, d_right}, params, right_view, paths, only_d);
      expect_same_map(cu::download(only_d), got_d, "scanline_disparity");
    }
}

TEST(CudaAdCensusStages, WinnerTakesAllMatchesBitForBit) {
  STEREO_REQUIRE_CUDA();
  // Multiples of 1/64 below 4 are exact in fp16, and the coarse grid makes many ties: the
  // smallest d must win them on both sides.
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> u(0, 255);
  for (const DisparityRange range : {DisparityRange{-5, 37}, DisparityRange{0, 70}, DisparityRange{3, 1}}) {
    ref::CostVolume v(WIDTH, HEIGHT, range);
    for (float& c : v.data) c = float(u(rng) % 24) / 64.0f;
    auto out = poisoned_f(WIDTH, HEIGHT);
    ca::winner_takes_all(upload_volume(v), out);
    expect_same_map(cu::download(out), ref::winner_takes_all(v), "WTA count " + std::to_string(range.count));
  }
}

// ---- refinement --------------------------------------------------------------------------

// Maps from the reference pipeline on the layered pair: the inputs of every refinement step.
struct RefineInputs {
  Pair pair;
  DisparityRange range{0, 16};
  AdCensusParams params;
  ref::CostVolume c2_left;  // rounded to fp16, what the GPU holds
  ImageF left, right;
  ref::CrossArms arms;
};
RefineInputs refine_inputs() {
  RefineInputs in;
  in.pair = layered_pair(WIDTH, HEIGHT, 9);
  in.range = {0, 16};
  in.c2_left = round_to_half(
      ref::scanline_optimize(reference_c1(in.pair, in.range, in.params, false), in.pair.left, in.pair.right, in.params));
  in.left = ref::winner_takes_all(in.c2_left);
  in.right = ref::winner_takes_all(ref::scanline_optimize(reference_c1(in.pair, in.range, in.params, true),
                                                          in.pair.left, in.pair.right, in.params, true));
  in.arms = ref::cross_arms(in.pair.left, in.params);
  return in;
}

TEST(CudaAdCensusRefine, StepsMatchBitForBit) {
  STEREO_REQUIRE_CUDA();
  const RefineInputs in = refine_inputs();
  const int w = WIDTH, h = HEIGHT;

  // LR check.
  const ref::OutlierMap want_lrc = ref::left_right_check(in.left, in.right, in.range);
  auto lrc = poisoned_u8(w, h);
  ca::left_right_check(upload_map(in.left), upload_map(in.right), in.range, lrc);
  expect_same_bytes(ca::download_u8(lrc), want_lrc, "left_right_check");
  int occlusions = 0, mismatches = 0;
  for (std::uint8_t v : want_lrc.data) {
    occlusions += v == std::uint8_t(adcensus::OutlierKind::occlusion);
    mismatches += v == std::uint8_t(adcensus::OutlierKind::mismatch);
  }
  std::printf("  LR check: %d occlusions, %d mismatches of %d pixels\n", occlusions, mismatches, w * h);
  EXPECT_GT(occlusions + mismatches, 0) << "the layered pair should have outliers to refine";

  auto inf_map = poisoned_f(w, h);
  ca::with_outliers_as_inf(upload_map(in.left), ca::upload_u8(want_lrc), inf_map);
  expect_same_map(cu::download(inf_map), ref::with_outliers_as_inf(in.left, want_lrc), "with_outliers_as_inf");

  // Region voting: one iteration, then the five of the matcher.
  const auto d_arms = ca::upload_arms(in.arms);
  for (const int tau_s : {20, 3}) {
    AdCensusParams params = in.params;
    params.tau_s = tau_s;  // a small tau_S lets most outliers vote, a large one few
    const ref::RefinedDisparity want_one = ref::region_voting_iteration(in.left, want_lrc, in.arms, in.range, params);
    auto one_d = poisoned_f(w, h);
    auto one_o = poisoned_u8(w, h);
    ca::region_voting_iteration(upload_map(in.left), ca::upload_u8(want_lrc), d_arms, in.range, params, one_d, one_o);
    expect_same_map(cu::download(one_d), want_one.disparity, "voting iteration, tau_S " + std::to_string(tau_s));
    expect_same_bytes(ca::download_u8(one_o), want_one.outliers, "voting iteration outliers");
  }
  const ref::RefinedDisparity want_vote = ref::region_voting(in.left, want_lrc, in.arms, in.range, in.params);
  auto vote_d = upload_map(in.left);
  auto vote_o = ca::upload_u8(want_lrc);
  auto scratch_d = poisoned_f(w, h);
  auto scratch_o = poisoned_u8(w, h);
  ca::region_voting(vote_d, vote_o, d_arms, in.range, in.params, scratch_d, scratch_o);
  expect_same_map(cu::download(vote_d), want_vote.disparity, "region_voting");
  expect_same_bytes(ca::download_u8(vote_o), want_vote.outliers, "region_voting outliers");

  // Interpolation, from the LR check's outliers (more of them than after voting).
  const ref::RefinedDisparity want_interp = ref::proper_interpolation(in.left, want_lrc, in.pair.left);
  auto interp_d = poisoned_f(w, h);
  auto interp_o = poisoned_u8(w, h);
  ca::proper_interpolation(upload_map(in.left), ca::upload_u8(want_lrc), ca::upload_rgb(in.pair.left), interp_d,
                           interp_o);
  expect_same_map(cu::download(interp_d), want_interp.disparity, "proper_interpolation");
  expect_same_bytes(ca::download_u8(interp_o), want_interp.outliers, "proper_interpolation outliers");

  // Adjustment, sub-pixel and median on the interpolated map.
  const ImageF filled = ref::with_outliers_as_inf(want_interp.disparity, want_interp.outliers);
  const ca::DeviceVolume d_c2 = upload_volume(in.c2_left);
  const ImageF want_adjust = ref::discontinuity_adjustment(filled, in.c2_left);
  auto adjust = poisoned_f(w, h);
  ca::discontinuity_adjustment(upload_map(filled), d_c2, adjust);
  expect_same_map(cu::download(adjust), want_adjust, "discontinuity_adjustment");

  const ImageF want_sub = ref::subpixel_enhancement(want_adjust, in.c2_left);
  auto sub = poisoned_f(w, h);
  ca::subpixel_enhancement(upload_map(want_adjust), d_c2, sub);
  expect_same_map(cu::download(sub), want_sub, "subpixel_enhancement");

  const ImageF want_median = ref::median_3x3(want_sub);
  auto median = poisoned_f(w, h);
  cu::median_3x3(upload_map(want_sub), median);
  expect_same_map(cu::download(median), want_median, "median_3x3");
}

// The adjustment where a match leaves the right image, on the rows of the reference test
// DiscontinuityAdjustmentOffersNoMatchOutsideTheImage (costs 0 and 1, exact in fp16): a
// candidate whose match lies outside is not offered (x = 2), a pixel whose own match lies
// outside is left alone (x = 3), a matched pixel on the edge takes the cheaper level (x = 8).
TEST(CudaAdCensusRefine, AdjustmentWhereTheMatchLeavesTheImage) {
  STEREO_REQUIRE_CUDA();
  const float row[] = {1, 1, 1, 5, 5, 5, 5, 5, 5, 1};
  const int w = 10, h = 3;  // identical rows: no vertical edge
  ImageF disparity(w, h, 1);
  ref::CostVolume cost(w, h, DisparityRange{0, 6}, 1.0f);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) disparity.at(x, y) = row[x];
    cost.at(2, y, 5) = 0.0f;
    cost.at(3, y, 1) = 0.0f;
    cost.at(8, y, 1) = 0.0f;
  }
  const ImageF want = ref::discontinuity_adjustment(disparity, cost);
  auto out = poisoned_f(w, h);
  ca::discontinuity_adjustment(upload_map(disparity), upload_volume(cost), out);
  const ImageF got = cu::download(out);
  expect_same_map(got, want, "discontinuity_adjustment at the image border");
  for (int y = 0; y < h; ++y) {
    EXPECT_EQ(got.at(2, y), 1.0f) << "y " << y;
    EXPECT_EQ(got.at(3, y), 5.0f) << "y " << y;
    EXPECT_EQ(got.at(8, y), 1.0f) << "y " << y;
  }
}

TEST(CudaAdCensusRefine, MedianOfMapsWithInfinities) {
  STEREO_REQUIRE_CUDA();
  ImageF map = cuda_test::random_f(WIDTH, HEIGHT, 10);
  std::mt19937 rng(11);
  for (float& v : map.data)
    if (rng() % 4 == 0) v = std::numeric_limits<float>::infinity();
  auto out = poisoned_f(WIDTH, HEIGHT);
  cu::median_3x3(upload_map(map), out);
  expect_same_map(cu::download(out), ref::median_3x3(map), "median with +inf");
}

}  // namespace
}  // namespace stereo
