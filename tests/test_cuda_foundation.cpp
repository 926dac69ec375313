// The CUDA foundation every method inherits (cuda/common.h, core/gpu_select.h), checked
// through SA-LAP: the shared-memory fallback gives the same maps, an out-of-memory failure
// leaves a matcher that still computes the right map, the GPU is picked by --device /
// STEREO_DEVICE with a clear error past the last one, and device_info names the GPU by UUID.
// The tests that need a GPU skip with the reason without one; the host-only ones run anywhere.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuda/common.h"
#include "methods/salap/cuda/stages.h"
#include "core/gpu_select.h"
#include "app/image_io.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

namespace cs = cu::salap;
using cuda_test::count_differences;
using cuda_test::ScopedAllocationFailure;
using cuda_test::ScopedEnv;

// ---- host-only: run on every build ----------------------------------------------------

TEST(GpuSelect, ParsesOrdinalsAndRejectsGarbage) {
  EXPECT_EQ(parse_gpu_ordinal(""), std::nullopt);
  EXPECT_EQ(parse_gpu_ordinal("0"), 0);
  EXPECT_EQ(parse_gpu_ordinal("7"), 7);
  EXPECT_EQ(parse_gpu_ordinal("012"), 12);
  for (const char* bad : {"abc", "-1", "+1", " 1", "1 ", "1x", "0x1", "1.0", "99999999999"}) {
    try {
      (void)parse_gpu_ordinal(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("STEREO_DEVICE=" + std::string(bad) + " is not a GPU ordinal"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(GpuSelect, ReadsTheEnvironment) {
  {
    const ScopedEnv env(GPU_ENV, nullptr);
    EXPECT_EQ(requested_gpu(), std::nullopt);
  }
  {
    const ScopedEnv env(GPU_ENV, "3");
    EXPECT_EQ(requested_gpu(), 3);
  }
  {
    const ScopedEnv env(GPU_ENV, "two");
    EXPECT_THROW((void)requested_gpu(), Error);
  }
  {
    const ScopedEnv env(GPU_ENV, nullptr);
    request_gpu(5);  // what --device 5 does
    EXPECT_EQ(requested_gpu(), 5);
    EXPECT_THROW(request_gpu(-1), Error);
  }
}

TEST(CudaCommon, UuidFormatsAsNvidiaSmiPrintsIt) {
  cudaUUID_t uuid{};
  for (int i = 0; i < 16; ++i) uuid.bytes[i] = static_cast<char>(i * 17);  // 0x00, 0x11, .. 0xff
  EXPECT_EQ(cu::format_uuid(uuid), "GPU-00112233-4455-6677-8899-aabbccddeeff");
  std::array<std::uint8_t, 16> bytes{};
  bytes[0] = 0xde, bytes[15] = 0x01;
  EXPECT_EQ(format_gpu_uuid(bytes), "GPU-de000000-0000-0000-0000-000000000001");
}

TEST(CudaCommon, BlockCountsAre64Bit) {
  // 2^33 pixels (a 92682 x 92682 frame) must not wrap as an int product would.
  EXPECT_EQ(cu::blocks_1d(std::size_t(1) << 33, 256, "test"), 1u << 25);
  EXPECT_EQ(cu::blocks_1d(1, 256, "test"), 1u);
  EXPECT_EQ(cu::blocks_1d(257, 256, "test"), 2u);
  const std::size_t too_many = (std::size_t(std::numeric_limits<int>::max()) + 1) * 256;
  EXPECT_THROW((void)cu::blocks_1d(too_many, 256, "test"), Error);
}

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

TEST(CudaCommon, RequireFreeMemoryNamesTheSize) {
  STEREO_REQUIRE_CUDA();
  EXPECT_NO_THROW(cu::require_free_memory(1024, "test", "a tiny frame"));
  try {
    cu::require_free_memory(std::size_t(1) << 50, "adcensus/cuda", "1920x1080 with 256 levels");  // 1 PiB
    ADD_FAILURE() << "1 PiB reported as free";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("adcensus/cuda: 1920x1080 with 256 levels needs 1073741824.0 MiB of GPU memory, "),
              std::string::npos)
        << m;
    EXPECT_NE(m.find(" MiB free"), std::string::npos) << m;
  }
}

// ---- picking the GPU ----------------------------------------------------------------------

TEST(CudaDevice, OrdinalPastTheLastIsAClearError) {
  STEREO_REQUIRE_CUDA();
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  const std::string past = std::to_string(count);
  const ScopedEnv env(GPU_ENV, past.c_str());
  try {
    (void)create_matcher("salap", "cuda", {});
    ADD_FAILURE() << "STEREO_DEVICE=" << past << " accepted";
  } catch (const Error& e) {
    const std::string want = "salap/cuda: --device " + past + " (STEREO_DEVICE=" + past + ") but this machine has " +
                             std::to_string(count) + (count == 1 ? " CUDA device" : " CUDA devices");
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
}

TEST(CudaDevice, GarbageOrdinalIsAClearError) {
  STEREO_REQUIRE_CUDA();
  const ScopedEnv env(GPU_ENV, "first");
  try {
    (void)create_matcher("salap", "cuda", {});
    ADD_FAILURE() << "STEREO_DEVICE=first accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("STEREO_DEVICE=first is not a GPU ordinal"), std::string::npos) << e.what();
  }
}

TEST(CudaDevice, LastOrdinalRunsAndWorksFromAnotherThread) {
  STEREO_REQUIRE_CUDA();
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  const int last = count - 1;
  const ImageU8 left = test::random_texture(90, 50, 171);
  const ImageU8 right = test::shifted(left, 5);
  const ImageF want = create_matcher("salap", "cuda", {})->compute(left, right, 12).disparity;  // device 0
  std::unique_ptr<Matcher> matcher;
  {
    const std::string ordinal = std::to_string(last);
    const ScopedEnv env(GPU_ENV, ordinal.c_str());
    matcher = create_matcher("salap", "cuda", {});
  }
  EXPECT_EQ(matcher->device_info().at("ordinal"), last);
  // A fresh thread starts on device 0; compute must switch to the matcher's GPU itself.
  ImageF got;
  std::string error;
  std::thread worker([&] {
    try {
      got = matcher->compute(left, right, 12).disparity;
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  worker.join();
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(count_differences(got, want), 0);
}

TEST(CudaDevice, DeviceInfoNamesTheGpu) {
  STEREO_REQUIRE_CUDA();
  auto matcher = create_matcher("salap", "cuda", {});
  const nlohmann::json info = matcher->device_info();
  std::printf("  %s\n", info.dump().c_str());
  EXPECT_EQ(info.at("name"), matcher->device());
  const std::string uuid = info.at("uuid").get<std::string>();
  EXPECT_TRUE(std::regex_match(uuid, std::regex("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")))
      << uuid;
  EXPECT_NE(uuid, "GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(info.at("ordinal"), requested_gpu().value_or(0));
  EXPECT_TRUE(std::regex_match(info.at("compute_capability").get<std::string>(), std::regex("[0-9]+\\.[0-9]+")));
  EXPECT_TRUE(std::regex_match(info.at("driver").get<std::string>(), std::regex("[0-9]+\\.[0-9]+")));
  EXPECT_EQ(info.at("smem_optin_limit"), matcher->params().at("smem_optin_limit"));
  // The CPU backend keeps the default: its name only.
  EXPECT_EQ(create_matcher("salap", "cpu", {})->device_info(), nlohmann::json({{"name", cpu_name()}}));
}

// ---- the CLI's --device ---------------------------------------------------------------------

struct Outcome {
  int code;
  std::string err;
};

Outcome run_stereo(const std::string& args) {
  const std::filesystem::path err =
      std::filesystem::temp_directory_path() / ("stereo_cuda_cli_" + std::to_string(::getpid()) + ".err");
  const std::string cmd = std::string(STEREO_BIN) + " " + args + " >/dev/null 2>" + err.string();
  const int status = std::system(cmd.c_str());
  std::ifstream in(err);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(err);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

TEST(CudaCli, DeviceOptionRejectsNonOrdinals) {
  for (const char* bad : {"abc", "-1", "1.5"}) {
    const Outcome o = run_stereo(std::string("--device ") + bad + " list");
    EXPECT_NE(o.code, 0) << bad;
    EXPECT_FALSE(o.err.empty()) << bad;
  }
  EXPECT_NE(run_stereo("--device abc list").err.find("--device"), std::string::npos);
  EXPECT_EQ(run_stereo("--device 0 list").code, 0);
}

TEST(CudaCli, DevicePastTheLastFailsTheRun) {
  STEREO_REQUIRE_CUDA();
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("stereo_cuda_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const ImageU8 left = test::random_texture(64, 40, 181);
  write_png(dir / "l.png", left);
  write_png(dir / "r.png", test::shifted(left, 3));
  const std::string pair = (dir / "l.png").string() + " " + (dir / "r.png").string();
  const std::string out = (dir / "d.pfm").string();
  const Outcome bad =
      run_stereo("--device " + std::to_string(count) + " run " + pair + " -m salap -b cuda -d 8 -o " + out);
  EXPECT_EQ(bad.code, 1) << bad.err;
  EXPECT_NE(bad.err.find("salap/cuda: --device " + std::to_string(count) + " (STEREO_DEVICE="), std::string::npos)
      << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  const Outcome good = run_stereo("--device 0 run " + pair + " -m salap -b cuda -d 8 -o " + out);
  EXPECT_EQ(good.code, 0) << good.err;
  EXPECT_TRUE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace stereo
