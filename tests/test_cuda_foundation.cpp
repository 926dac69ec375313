// The CUDA foundation every method inherits (cuda/common.h, core/gpu_select.h), checked
// through the first registered CUDA method: the GPU is picked by --device / STEREO_DEVICE with
// a clear error past the last one, and device_info names the GPU by UUID.
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
#include "cuda/nvml_energy.h"
#include "cuda/workspace.h"
#include "core/gpu_select.h"
#include "app/image_io.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

using cuda_test::count_differences;
using cuda_test::ScopedEnv;

// The first registered method with this backend: what is checked here is the frame's, whichever
// method runs on it.
std::string first_method(const std::string& backend) {
  for (const BackendEntry& e : builtin_registry().entries())
    if (e.backend == backend) return e.method;
  throw Error("test: no method has a " + backend + " backend");
}

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

TEST(CudaCommon, RequireFreeMemoryNamesTheSize) {
  STEREO_REQUIRE_CUDA();
  EXPECT_NO_THROW(cu::require_free_memory(1024, "test", "a tiny frame"));
  try {
    cu::require_free_memory(std::size_t(1) << 50, "method/cuda", "1920x1080 with 256 levels");  // 1 PiB
    ADD_FAILURE() << "1 PiB reported as free";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("method/cuda: 1920x1080 with 256 levels needs 1073741824.0 MiB of GPU memory, "),
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
    (void)create_matcher(first_method("cuda"), "cuda", {});
    ADD_FAILURE() << "STEREO_DEVICE=" << past << " accepted";
  } catch (const Error& e) {
    const std::string want = first_method("cuda") + "/cuda: --device " + past + " (STEREO_DEVICE=" + past + ") but this machine has " +
                             std::to_string(count) + (count == 1 ? " CUDA device" : " CUDA devices");
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
}

TEST(CudaDevice, GarbageOrdinalIsAClearError) {
  STEREO_REQUIRE_CUDA();
  const ScopedEnv env(GPU_ENV, "first");
  try {
    (void)create_matcher(first_method("cuda"), "cuda", {});
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
  const ImageF want = create_matcher(first_method("cuda"), "cuda", {})->compute(left, right, 12).disparity;  // device 0
  std::unique_ptr<Matcher> matcher;
  {
    const std::string ordinal = std::to_string(last);
    const ScopedEnv env(GPU_ENV, ordinal.c_str());
    matcher = create_matcher(first_method("cuda"), "cuda", {});
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
  auto matcher = create_matcher(first_method("cuda"), "cuda", {});
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
  // The CPU backend keeps the default: its name only.
  EXPECT_EQ(create_matcher(first_method("cpu"), "cpu", {})->device_info(), nlohmann::json({{"name", cpu_name()}}));
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
  const std::string method = first_method("cuda");
  const Outcome bad =
      run_stereo("--device " + std::to_string(count) + " run " + pair + " -m " + method + " -b cuda -d 8 -o " + out);
  EXPECT_EQ(bad.code, 1) << bad.err;
  EXPECT_NE(bad.err.find(method + "/cuda: --device " + std::to_string(count) + " (STEREO_DEVICE="), std::string::npos)
      << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  const Outcome good = run_stereo("--device 0 run " + pair + " -m " + method + " -b cuda -d 8 -o " + out);
  EXPECT_EQ(good.code, 0) << good.err;
  EXPECT_TRUE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

// ---- what bench reads of a CUDA matcher: its device memory and the energy counter -----------

TEST(CudaEnergy, MissingNvmlIsSaidByName) {
  // Host-only: dlopen of a library that is nowhere, as on a machine without the driver.
  EXPECT_EQ(cu::nvml_unavailable("libstereo-no-such-nvml.so.1"), "no NVML (libstereo-no-such-nvml.so.1 not found)");
}

TEST(CudaEnergy, TheCounterReadsOrSaysWhyNot) {
  STEREO_REQUIRE_CUDA();
  auto m = create_matcher(first_method("cuda"), "cuda", {});
  const EnergyReading first = m->energy_counter();
  EXPECT_EQ(first.millijoules.has_value(), first.unavailable.empty()) << first.unavailable;
  if (!first.millijoules) GTEST_SKIP() << "no energy counter here: " << first.unavailable;
  // A counter since the driver loaded never goes back.
  const ImageU8 left = test::random_texture(320, 240, 7);
  for (int i = 0; i < 20; ++i) (void)m->compute(left, test::shifted(left, 3), 32);
  const EnergyReading later = m->energy_counter();
  ASSERT_TRUE(later.millijoules.has_value()) << later.unavailable;
  EXPECT_GE(*later.millijoules, *first.millijoules);
}

// A workspace of one large buffer and two small ones.
struct MeasuredBuffers {
  struct Key {
    std::size_t big = 0;
    bool operator==(const Key& o) const { return big == o.big; }
  };
  cu::DeviceBuffer<std::uint8_t> big, small_a;
  cu::DeviceBuffer<float> small_b;
  static std::string describe(const Key& k) { return std::to_string(k.big) + " bytes"; }
  void declare(cu::BufferList& list, const Key& k) {
    list.buffer(big, k.big, "the big buffer");
    list.buffer(small_a, 1000, "a small buffer");
    list.buffer(small_b, 250, "another small buffer");
  }
};

TEST(CudaWorkspace, HeldBytesAreWhatTheAllocationTookFromTheDevice) {
  STEREO_REQUIRE_CUDA();
  cu::Workspace<MeasuredBuffers> w("test");
  EXPECT_EQ(w.held_bytes(), 0u);
  const std::size_t big = std::size_t(256) << 20;
  (void)w.prepare({big}, nullptr);
  EXPECT_EQ(w.declared_bytes(), big + 1000 + 250 * sizeof(float));
  // The driver takes whole pages: at least the big buffer, at most a few pages more.
  EXPECT_GE(w.held_bytes(), big);
  EXPECT_LE(w.held_bytes(), big + (std::size_t(16) << 20));
  (void)w.prepare({big / 2}, nullptr);  // the old set released first, the new one measured alone
  EXPECT_GE(w.held_bytes(), big / 2);
  EXPECT_LE(w.held_bytes(), big / 2 + (std::size_t(16) << 20));
  w.release();
  EXPECT_EQ(w.held_bytes(), 0u);
  EXPECT_EQ(w.declared_bytes(), 0u);
}

TEST(CudaWorkspace, EveryCudaMatcherReportsItsDeviceMemoryAfterItsFirstFrame) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = test::random_texture(1280, 720, 11);  // buffers of many pages each
  const ImageU8 right = test::shifted(left, 4);
  for (const BackendEntry& e : builtin_registry().entries()) {
    if (e.backend != "cuda") continue;
    SCOPED_TRACE(e.method);
    auto m = create_matcher(e.method, "cuda", {});
    EXPECT_FALSE(m->device_memory().has_value());  // nothing allocated before the first frame
    (void)m->compute(left, right, 64);
    const std::optional<DeviceMemoryUse> use = m->device_memory();
    ASSERT_TRUE(use.has_value());
    EXPECT_GT(use->declared_bytes, 0.0);
    // Measured against declared: page rounding adds, small buffers sharing a page take less.
    EXPECT_GE(use->bytes, 0.5 * use->declared_bytes);
    EXPECT_LE(use->bytes, 2.0 * use->declared_bytes + double(std::size_t(64) << 20));
  }
}

}  // namespace
}  // namespace stereo
