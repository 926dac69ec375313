// SA-LAP's CUDA accounting for `stereo bench` (methods/salap/cuda/salap_bytes.cpp):
//  - the bytes of each lap at a tiny size, against figures worked out by hand (host arithmetic:
//    these run without a device);
//  - the slabs of a frame launch every band once, in order (host arithmetic);
//  - every lap a frame's Timing names on either path, whole and in slabs, has its bytes in
//    memory_stats(), so bench sets each against its floor (this one skips without a device).

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/matcher.h"
#include "methods/salap/cuda/salap_cuda.h"
#include "tests/test_cuda_util.h"

namespace stereo {
namespace {

namespace cs = cu::salap;
namespace lap = salap_cuda::lap;

cu::ProblemSize problem(int width, int height, int levels) {
  const double pixels = double(width) * double(height);
  return cu::ProblemSize{width, height, DisparityRange{0, levels}, pixels, pixels * double(levels)};
}

/// The bytes of lap `name`, or nothing where the accounting has no entry for it.
std::optional<double> bytes_of(const cu::StageBytes& bytes, const std::string& name) {
  for (const auto& [stage, b] : bytes)
    if (stage == name) return b;
  return std::nullopt;
}

TEST(CudaSalapBytes, SlabsLaunchEveryBandOnceInOrder) {
  // 256 rows, 32-row bands, W = 16: slab k ends at row 64 (k + 1); a band launches once its rows
  // and the 16 below are packed: after slab 0 band 0 ((64 - 16) / 32 = 1), after slab 1 bands
  // 1-2 ((128 - 16) / 32 = 3), after slab 2 bands 3-4, after the last every band left.
  const auto slabs = salap_cuda::slab_launches(256, 32, 16);
  const int want[salap_cuda::SLABS][4] = {{0, 64, 0, 1}, {64, 128, 1, 3}, {128, 192, 3, 5}, {192, 256, 5, 8}};
  for (int k = 0; k < salap_cuda::SLABS; ++k) {
    const salap_cuda::SlabLaunch& s = slabs[static_cast<std::size_t>(k)];
    EXPECT_EQ(s.first_row, want[k][0]) << "slab " << k;
    EXPECT_EQ(s.end_row, want[k][1]) << "slab " << k;
    EXPECT_EQ(s.first_band, want[k][2]) << "slab " << k;
    EXPECT_EQ(s.end_band, want[k][3]) << "slab " << k;
  }
  for (const int height : {256, 257, 300, 1080, 4321})
    for (const int radius : {8, 16, 24, 32}) {
      int next_band = 0, next_row = 0;
      for (const salap_cuda::SlabLaunch& s : salap_cuda::slab_launches(height, 32, radius)) {
        EXPECT_EQ(s.first_band, next_band) << height << " rows, W " << radius;
        EXPECT_GE(s.end_band, s.first_band);
        if (s.end_row > s.first_row) {
          EXPECT_EQ(s.first_row, next_row) << height << " rows, W " << radius;
          next_row = s.end_row;
        }
        next_band = s.end_band;
      }
      EXPECT_EQ(next_band, cu::div_up(height, 32)) << height << " rows, W " << radius;
      EXPECT_EQ(next_row, height) << height << " rows, W " << radius;
    }
}

TEST(CudaSalapBytes, FusedPathAtATinySize) {
  // 16 x 256 RGB, 16 levels in 2 chunks (index of 1 byte), W = 16: 4096 pixels, 8 bands of 32
  // rows, so the frame goes in slabs (at least 8 bands).
  cs::FusedPlan plan;
  plan.chunk = 8;
  plan.chunks = 2;
  const cu::StageBytes bytes = salap_cuda::stage_bytes(problem(16, 256, 16), 3, &plan, 16);
  // pack: 2 x 4096 x 3 read + 2 x 4096 x 4 written.
  EXPECT_EQ(bytes_of(bytes, lap::PACK), 57344.0);
  // fused: 2 x 4096 x 4 read + 2 chunks x 4096 x 8 written.
  EXPECT_EQ(bytes_of(bytes, lap::FUSED), 98304.0);
  // merge: 2 x 4096 x 8 read + 4096 x 1 written.
  EXPECT_EQ(bytes_of(bytes, lap::MERGE), 69632.0);
  // In slabs: pack + fused + the merges of the groups before the last, bands 0-4 (160 rows,
  // 2560 pixels at 17 B): 57344 + 98304 + 43520.
  EXPECT_EQ(bytes_of(bytes, lap::SLABBED), 199168.0);
  EXPECT_EQ(bytes.size(), 4u);
  EXPECT_FALSE(bytes_of(bytes, lap::STAGES));
}

TEST(CudaSalapBytes, FusedPathWholeFrameWithWideIndex) {
  // 40 x 64, 300 levels in 3 chunks: a 2-byte index; 2 bands, so no slabs and no slabbed lap.
  cs::FusedPlan plan;
  plan.chunk = 100;
  plan.chunks = 3;
  const cu::StageBytes bytes = salap_cuda::stage_bytes(problem(40, 64, 300), 1, &plan, 8);
  EXPECT_EQ(bytes_of(bytes, lap::PACK), 2.0 * 2560 * 1 + 2.0 * 2560 * 4);
  EXPECT_EQ(bytes_of(bytes, lap::FUSED), 2.0 * 2560 * 4 + 3.0 * 2560 * 8);
  EXPECT_EQ(bytes_of(bytes, lap::MERGE), 2560.0 * (3 * 8 + 2));
  EXPECT_FALSE(bytes_of(bytes, lap::SLABBED));
  EXPECT_EQ(bytes.size(), 3u);
}

TEST(CudaSalapBytes, StagePathAtATinySize) {
  // 16 x 256 RGB, 16 levels: 4096 pixels. Per level 88 B a pixel (tad 12, horizontal 16,
  // vertical 32, window 20, wta reads 8), the reset's 4 and the first level's wins 8 once:
  // 4096 x (4 + 16 x 88 + 8) = 5816320. The level index: 4 B read, 1 written.
  const cu::StageBytes bytes = salap_cuda::stage_bytes(problem(16, 256, 16), 3, nullptr, 16);
  EXPECT_EQ(bytes_of(bytes, lap::PACK), 57344.0);
  EXPECT_EQ(bytes_of(bytes, lap::STAGES), 5816320.0);
  EXPECT_EQ(bytes_of(bytes, lap::LEVEL_INDEX), 20480.0);
  EXPECT_EQ(bytes.size(), 3u);
  EXPECT_FALSE(bytes_of(bytes, lap::FUSED));
}

TEST(CudaSalapBytes, EveryLapBenchTimesIsAccounted) {
  STEREO_REQUIRE_CUDA();
  // 96 x 72: 3 bands, a whole frame; 160 x 300: 10 bands, in slabs (the fused path's single
  // frames at bench's sizes). The stage path is always whole.
  const DisparityRange range{0, 32};
  for (const std::string path : {"fused", "stages"})
    for (const auto& [width, height] : {std::pair{96, 72}, std::pair{160, 300}}) {
      SCOPED_TRACE(path + " " + std::to_string(width) + "x" + std::to_string(height));
      auto m = create_matcher("salap", "cuda", {{"path", path}});
      const std::optional<MemoryStats> stats = m->memory_stats(width, height, range);
      ASSERT_TRUE(stats);
      EXPECT_GT(stats->copy_gb_s, 0.0);
      const StereoResult r = m->compute(cuda_test::random_u8(width, height, 3, 11u),
                                        cuda_test::random_u8(width, height, 3, 12u), range);
      ASSERT_FALSE(r.timing.stages.empty());
      for (const auto& [name, ms] : r.timing.stages) {
        const std::optional<double> b = bytes_of(stats->stage_bytes, name);
        ASSERT_TRUE(b) << "lap '" << name << "' has no bytes";
        EXPECT_GT(*b, 0.0) << name;
      }
    }
}

}  // namespace
}  // namespace stereo
