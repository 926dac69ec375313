// SA-LAP's CUDA fast path under pressure: the fused kernel's shared-memory tiles (wide, narrow,
// none) give bit-identical costs and maps where they fit and fall back to the stage path where
// none does, and an out-of-memory failure at any allocation of a size change leaves a matcher
// that still computes the right map. These skip without a CUDA device, saying so.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "app/metrics.h"
#include "core/matcher.h"
#include "cuda/common.h"
#include "methods/builtin.h"
#include "methods/salap/cuda/stages.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

namespace cs = cu::salap;
using cuda_test::count_differences;
using cuda_test::ScopedAllocationFailure;

TEST(CudaSalapTiles, SharedMemoryFigures) {
  // The figures the fallback rests on: the wide tile exceeds the 101376 B of sm_86/89/120 from
  // W = 16 on, the narrow one fits Turing's 65536 B at every W.
  for (const int window : {17, 33, 49, 65}) {
    SalapParams p;
    p.window = window;
    const std::size_t wide = cs::fused_shared_bytes(p, cs::FusedTile::wide);
    const std::size_t narrow = cs::fused_shared_bytes(p, cs::FusedTile::narrow);
    EXPECT_LE(narrow, 65536u) << "N " << window;
    EXPECT_LT(narrow, wide) << "N " << window;
    EXPECT_EQ(cs::fused_tile_for(p, wide), cs::FusedTile::wide);
    EXPECT_EQ(cs::fused_tile_for(p, wide - 1), cs::FusedTile::narrow);
    EXPECT_EQ(cs::fused_tile_for(p, narrow - 1), std::nullopt);
    if (window >= 33) {
      EXPECT_GT(wide, 101376u) << "N " << window;
    }
  }
  SalapParams odd;
  odd.window = 21;  // W = 10: no fused instantiation at all
  EXPECT_EQ(cs::fused_tile_for(odd, 1u << 20), std::nullopt);
}

// ---- the shared-memory fallback -----------------------------------------------------------

// Per-chunk keys (cost bits << 32 | d) of one fused run: comparing them compares every
// pixel's winning cost bit for bit, not only its disparity.
std::vector<std::uint64_t> fused_keys(const cs::DevicePair& pair, int levels, const SalapParams& p, cs::FusedTile tile,
                                      int chunk, cs::FusedArithmetic arithmetic = cs::FusedArithmetic::float32) {
  const cs::FusedPlan plan = cs::plan_fused(pair.width, pair.height, levels, p, chunk, tile, arithmetic);
  const std::size_t count = plan.key_count(pair.width, pair.height);
  auto keys = cu::make_device_buffer<std::uint64_t>(count, "test", "keys");
  CUDA_CHECK(cudaMemset(keys.get(), 0xFF, count * sizeof(std::uint64_t)));
  cs::salap_fused(pair, levels, p, plan, keys.get());
  std::vector<std::uint64_t> host(count);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(host.data(), keys.get(), count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  return host;
}

TEST(CudaSalapTiles, NarrowTileGivesBitIdenticalCosts) {
  STEREO_REQUIRE_CUDA();
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::size_t optin = cu::shared_memory_optin_limit(device);
  for (const int window : {17, 33, 49, 65})
    for (const std::string windows : {"9", "4"})
      for (const std::string cost : {"rgb_mean", "luma"}) {
        SalapParams p;
        p.window = window;
        p.windows = windows;
        p.cost = cost;
        if (cs::fused_shared_bytes(p, cs::FusedTile::wide) > optin) {
          std::printf("  N %d: the wide tile does not fit this GPU (%zu B allowed); not compared\n", window, optin);
          continue;
        }
        // Odd sizes: partial tiles on the right and bottom edges for both shapes.
        const ImageU8 left = test::random_texture(301, 77, 131);
        const ImageU8 right = test::shifted(left, 13);
        const cs::DevicePair pair = cs::upload_pair(left, right, p);
        const auto wide = fused_keys(pair, 40, p, cs::FusedTile::wide, 16);
        const auto narrow = fused_keys(pair, 40, p, cs::FusedTile::narrow, 16);
        ASSERT_EQ(wide.size(), narrow.size());
        std::size_t differ = 0;
        for (std::size_t i = 0; i < wide.size(); ++i)
          if (wide[i] != narrow[i]) ++differ;
        EXPECT_EQ(differ, 0u) << "N " << window << " windows " << windows << " " << cost << ": keys differ";
      }
}

// The half2 kernel keeps the tiles' bit-identity: the same absolute recursion blocks, each
// level's half arithmetic independent of the other half of its __half2.
TEST(CudaSalapTiles, HalfNarrowTileGivesBitIdenticalCosts) {
  STEREO_REQUIRE_CUDA();
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::size_t optin = cu::shared_memory_optin_limit(device);
  for (const int window : {17, 33})
    for (const std::string windows : {"9", "4"}) {
      SalapParams p;
      p.window = window;
      p.windows = windows;
      if (cs::fused_shared_bytes(p, cs::FusedTile::wide) > optin) continue;
      const ImageU8 left = test::random_texture(301, 77, 133);
      const ImageU8 right = test::shifted(left, 13);
      const cs::DevicePair pair = cs::upload_pair(left, right, p);
      const auto wide = fused_keys(pair, 40, p, cs::FusedTile::wide, 16, cs::FusedArithmetic::half2);
      const auto narrow = fused_keys(pair, 40, p, cs::FusedTile::narrow, 16, cs::FusedArithmetic::half2);
      ASSERT_EQ(wide.size(), narrow.size());
      std::size_t differ = 0;
      for (std::size_t i = 0; i < wide.size(); ++i)
        if (wide[i] != narrow[i]) ++differ;
      EXPECT_EQ(differ, 0u) << "N " << window << " windows " << windows << ": half keys differ";
    }
}

TEST(CudaSalapTiles, ForcedFallbackGivesIdenticalMaps) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = test::random_texture(251, 93, 141);
  const ImageU8 right = test::shifted(left, 17);
  auto unforced = create_matcher("salap", "cuda", {});
  auto narrow = create_matcher("salap", "cuda", {{"smem_limit", "65536"}});  // as on Turing
  auto stages = create_matcher("salap", "cuda", {{"smem_limit", "1"}});      // no tile fits

  const nlohmann::json pu = unforced->params(), pn = narrow->params(), ps = stages->params();
  std::printf("  unforced: %s\n  forced:   %s\n  stages:   %s\n", pu["path_reason"].dump().c_str(),
              pn["path_reason"].dump().c_str(), ps["path_reason"].dump().c_str());
  const std::size_t optin = pu.at("smem_optin_limit").get<std::size_t>();
  EXPECT_GE(optin, 49152u);  // every CUDA GPU allows at least 48 KiB
  EXPECT_EQ(pu.at("path_in_force"), "fused");
  EXPECT_LE(pu.at("fused_smem_bytes").get<std::size_t>(), optin);
  if (optin >= 109568) {
    EXPECT_EQ(pu.at("fused_tile"), "wide");  // H100, A100: W = 16 fits wide
  }
  EXPECT_EQ(pn.at("path_in_force"), "fused");
  EXPECT_EQ(pn.at("fused_tile"), "narrow");
  EXPECT_LE(pn.at("fused_smem_bytes").get<std::size_t>(), 65536u);
  EXPECT_EQ(pn.at("smem_limit"), 65536);
  EXPECT_NE(pn.at("path_reason").get<std::string>().find("smem_limit"), std::string::npos);
  EXPECT_EQ(ps.at("path_in_force"), "stages");
  EXPECT_TRUE(ps.at("fused_tile").is_null());

  for (const int levels : {16, 64}) {
    const ImageF want = unforced->compute(left, right, levels).disparity;
    const ImageF got = narrow->compute(left, right, levels).disparity;
    EXPECT_EQ(count_differences(got, want), 0) << "levels " << levels;
    // The stage path works in normalised units (fused: unnormalised, no divisions), so
    // near-ties can round the other way: the same bar as the fused-vs-stages tests.
    const double a = agreement(stages->compute(left, right, levels).disparity, want);
    std::printf("  levels %d: narrow tile identical; stage path agreement %.5f\n", levels, a);
    EXPECT_GE(a, 0.995) << "levels " << levels;
  }
}

// ---- failures leave nothing broken ---------------------------------------------------------

bool is_out_of_memory(const Error& e) {
  return std::string(e.what()).find("salap/cuda: out of GPU memory allocating") != std::string::npos;
}

// Fails the k-th allocation a size change makes, for k = 1, 2, ... until one size change
// allocates fewer: after every failure the same matcher must compute both sizes correctly.
void check_recovery(const Overrides& overrides, int min_allocations) {
  const ImageU8 left_a = test::random_texture(97, 61, 151);
  const ImageU8 right_a = test::shifted(left_a, 7);
  const ImageU8 left_b = test::random_texture(130, 70, 152);
  const ImageU8 right_b = test::shifted(left_b, 11);
  const ImageF want_a = create_matcher("salap", "cuda", overrides)->compute(left_a, right_a, 16).disparity;
  const ImageF want_b = create_matcher("salap", "cuda", overrides)->compute(left_b, right_b, 24).disparity;

  auto matcher = create_matcher("salap", "cuda", overrides);
  int failures = 0;
  for (long allowed = 0; allowed < 64; ++allowed) {
    ASSERT_EQ(count_differences(matcher->compute(left_a, right_a, 16).disparity, want_a), 0) << allowed;
    bool threw = false;
    {
      const ScopedAllocationFailure fail(allowed);
      try {
        (void)matcher->compute(left_b, right_b, 24);
      } catch (const Error& e) {
        threw = true;
        EXPECT_TRUE(is_out_of_memory(e)) << e.what();
      }
    }
    // Right after the failure, at the size that failed, then back at the old size.
    EXPECT_EQ(count_differences(matcher->compute(left_b, right_b, 24).disparity, want_b), 0)
        << "after failing allocation " << allowed + 1;
    EXPECT_EQ(count_differences(matcher->compute(left_a, right_a, 16).disparity, want_a), 0)
        << "after failing allocation " << allowed + 1;
    if (!threw) break;
    ++failures;
  }
  EXPECT_GE(failures, min_allocations) << "fewer allocation points than the buffers prepare_buffers makes";
}

TEST(CudaSalapRecovery, OutOfMemoryThenRecoveryFused) {
  STEREO_REQUIRE_CUDA();
  check_recovery({}, 6);  // 2 raw + 2 packed images, the disparity map, the keys
}

TEST(CudaSalapRecovery, OutOfMemoryThenRecoveryStages) {
  STEREO_REQUIRE_CUDA();
  check_recovery({{"path", "stages"}}, 14);  // 5 frame buffers + 9 stage images
}

TEST(CudaSalapRecovery, KeyGrowthFailureThenRecovery) {
  STEREO_REQUIRE_CUDA();
  // Same size, more levels: only the key planes grow (d_chunk 8: 3 chunks, then 10).
  const Overrides overrides{{"d_chunk", "8"}};
  const ImageU8 left = test::random_texture(140, 66, 161);
  const ImageU8 right = test::shifted(left, 9);
  const ImageF want24 = create_matcher("salap", "cuda", overrides)->compute(left, right, 24).disparity;
  const ImageF want80 = create_matcher("salap", "cuda", overrides)->compute(left, right, 80).disparity;
  auto matcher = create_matcher("salap", "cuda", overrides);
  EXPECT_EQ(count_differences(matcher->compute(left, right, 24).disparity, want24), 0);
  {
    const ScopedAllocationFailure fail(0);
    try {
      (void)matcher->compute(left, right, 80);
      ADD_FAILURE() << "the key planes did not grow, or the failure was not injected";
    } catch (const Error& e) {
      EXPECT_TRUE(is_out_of_memory(e)) << e.what();
    }
  }
  EXPECT_EQ(count_differences(matcher->compute(left, right, 80).disparity, want80), 0);
  EXPECT_EQ(count_differences(matcher->compute(left, right, 24).disparity, want24), 0);
}

// device_info() carries the opt-in shared-memory limit the fused path was planned against.
TEST(CudaSalapTiles, DeviceInfoCarriesTheOptInLimit) {
  STEREO_REQUIRE_CUDA();
  auto matcher = create_matcher("salap", "cuda", {});
  EXPECT_EQ(matcher->device_info().at("smem_optin_limit"), matcher->params().at("smem_optin_limit"));
}

}  // namespace
}  // namespace stereo
