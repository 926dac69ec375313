// The context's platforms, device choice, UUID and debug output. Each platform is tested in a
// fresh process (the context is one per process): the test re-runs this executable's hidden
// GlContextChild.DISABLED_Run with the environment that forces the platform, and compares the
// child's small run of every registered GL matcher bit for bit with the EGL device platform's. Tests skip, saying
// why, where their platform is missing (no DISPLAY for GLFW: run them under xvfb-run -a).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "gl/check.h"
#include "gl/context.h"
#include "core/error.h"
#include "core/registry.h"
#include "methods/builtin.h"
#include "app/synth.h"
#include "tests/test_gl_util.h"

extern char** environ;

namespace stereo::gl {
namespace {

// A small odd-sized pair; the result's exact bits are what is compared.
constexpr int PAIR_WIDTH = 61, PAIR_HEIGHT = 37, PAIR_LEVELS = 16;

// The registered matchers on a GL context, each of which the child runs.
std::vector<const BackendEntry*> gl_entries() {
  std::vector<const BackendEntry*> out;
  for (const BackendEntry& e : builtin_registry().entries())
    if (e.backend == "gl" || e.backend == "glcompute") out.push_back(&e);
  return out;
}

// ---- the child ---------------------------------------------------------------------------

void write_floats(const std::string& path, const ImageF& image) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(image.data.data()), std::streamsize(image.data.size() * sizeof(float)));
}

// Runs only when a parent test starts it (STEREO_GL_TEST_OUT set); writes JSON there.
TEST(GlContextChild, DISABLED_Run) {
  const char* out_path = std::getenv("STEREO_GL_TEST_OUT");
  ASSERT_NE(out_path, nullptr) << "started by the GlPlatforms/GlDevice/GlDebug tests only";
  const std::string job = std::getenv("STEREO_GL_TEST_JOB") ? std::getenv("STEREO_GL_TEST_JOB") : "";
  nlohmann::json j;
  if (const auto why = context_unavailable()) {
    j["unavailable"] = *why;
  } else {
    auto context = shared_context();
    j["device_info"] = context->device_info();
    if (job == "debug") {
      GLint flags = 0;
      glGetIntegerv(GL_CONTEXT_FLAGS, &flags);
      j["debug_context"] = (flags & GL_CONTEXT_FLAG_DEBUG_BIT) != 0;
      j["synchronous"] = glIsEnabled(GL_DEBUG_OUTPUT_SYNCHRONOUS) == GL_TRUE;
      glBindTexture(0x1234, 0);  // deliberately unchecked: GL_INVALID_ENUM, and a driver message
      try {
        check_gl_error("the provoked bind");
        j["error"] = nullptr;
      } catch (const Error& e) {
        j["error"] = e.what();
      }
      try {
        check_gl_error("the next check");
        j["next_check_clean"] = true;
      } catch (const Error& e) {
        j["next_check_clean"] = false;
        j["next_check"] = e.what();
      }
    }
    if (job == "match" || job == "debug") {
      const auto [left, right] = bench_pair(PAIR_WIDTH, PAIR_HEIGHT);
      try {
        j["maps"] = nlohmann::json::array();
        for (const BackendEntry* e : gl_entries()) {
          const std::string key = e->method + "." + e->backend;
          write_floats(std::string(out_path) + "." + key, e->create({})->compute(left, right, PAIR_LEVELS).disparity);
          j["maps"].push_back(key);
        }
        j["match"] = "done";
      } catch (const Error& e) {
        j["match"] = std::string("failed: ") + e.what();
      }
    }
  }
  std::ofstream(out_path) << j.dump(2);
}

// ---- the parent --------------------------------------------------------------------------

struct ChildRun {
  nlohmann::json json;
  std::map<std::string, std::vector<float>> maps;  // "method.backend"
  [[nodiscard]] bool available() const { return !json.contains("unavailable"); }
  [[nodiscard]] std::string why() const { return json.value("unavailable", std::string()); }
  [[nodiscard]] std::string renderer() const { return json.at("device_info").at("name"); }
};

std::vector<float> read_floats(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

// Runs the child with the context variables set as given ("" = unset) and every other
// variable inherited. The environment is built before fork: only execve runs in the child.
ChildRun run_child(const std::map<std::string, std::string>& context_env, const std::string& job) {
  static int serial = 0;
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("stereo_gl_child_" + std::to_string(getpid()) + "_" + std::to_string(serial++) + ".json"))
                              .string();
  std::map<std::string, std::string> vars = {{"STEREO_GL_PLATFORM", ""}, {"STEREO_GL_SURFACE", ""},
                                             {"STEREO_DEVICE", ""},      {"STEREO_GL_DEBUG", ""}};
  for (const auto& [k, v] : context_env) vars[k] = v;
  vars["STEREO_GL_TEST_OUT"] = out;
  vars["STEREO_GL_TEST_JOB"] = job;
  std::vector<std::string> strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (!vars.count(entry.substr(0, entry.find('=')))) strings.push_back(entry);
  }
  for (const auto& [k, v] : vars)
    if (!v.empty()) strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& s : strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string a1 = "--gtest_also_run_disabled_tests", a2 = "--gtest_filter=GlContextChild.DISABLED_Run";
  char* argv[] = {exe.data(), a1.data(), a2.data(), nullptr};

  const pid_t pid = fork();
  if (pid == 0) {
    execve(exe.c_str(), argv, envp.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ChildRun run;
  std::ifstream in(out);
  if (!in) throw Error("child run (" + job + ") wrote no result; exit status " + std::to_string(status));
  in >> run.json;
  for (const auto& key : run.json.value("maps", nlohmann::json::array())) {
    const std::string path = out + "." + key.get<std::string>();
    if (std::filesystem::exists(path)) {
      run.maps[key.get<std::string>()] = read_floats(path);
      std::filesystem::remove(path);
    }
  }
  std::filesystem::remove(out);
  return run;
}

// Every GL matcher's maps equal bit for bit (memcmp: +inf and NaN compare as bits too).
void expect_same_bits(const ChildRun& a, const ChildRun& b, const std::string& what) {
  ASSERT_EQ(a.json.value("match", std::string()), "done") << a.json.dump();
  ASSERT_EQ(b.json.value("match", std::string()), "done") << b.json.dump();
  ASSERT_EQ(a.maps.size(), gl_entries().size()) << a.json.dump();
  ASSERT_FALSE(a.maps.empty()) << "no GL matcher is registered";
  for (const auto& [backend, x] : a.maps) {
    ASSERT_TRUE(b.maps.count(backend)) << what << ": " << backend << " missing from " << b.json.dump();
    const auto& y = b.maps.at(backend);
    ASSERT_EQ(x.size(), std::size_t(PAIR_WIDTH * PAIR_HEIGHT)) << backend;
    ASSERT_EQ(y.size(), x.size()) << backend;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < x.size(); ++i) differ += std::memcmp(&x[i], &y[i], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0u) << what << ", " << backend << ": " << differ << " of " << x.size() << " pixels differ";
  }
}

// The device platform's run, the baseline every other platform is compared with.
ChildRun device_baseline() {
  ChildRun base = run_child({{"STEREO_GL_PLATFORM", "egl-device"}}, "match");
  return base;
}

// Compares `tested` with the device platform's run, or says why it cannot.
void compare_with_device_platform(const ChildRun& tested, const std::string& what) {
  const ChildRun base = device_baseline();
  if (!base.available()) GTEST_SKIP() << "no EGL device platform to compare " << what << " with: " << base.why();
  if (base.renderer() != tested.renderer())
    GTEST_SKIP() << what << " runs on '" << tested.renderer() << "', the EGL device platform on '" << base.renderer()
                 << "': different drivers, so no bit-for-bit comparison";
  std::cout << what << ": " << tested.json.at("device_info").at("platform").get<std::string>() << " vs "
            << base.json.at("device_info").at("platform").get<std::string>() << " on " << tested.renderer() << "\n";
  expect_same_bits(tested, base, what + " vs the EGL device platform");
}

TEST(GlPlatforms, EglPbufferMatchesDevicePlatform) {
  const ChildRun pbuffer = run_child({{"STEREO_GL_PLATFORM", "egl-device"}, {"STEREO_GL_SURFACE", "pbuffer"}}, "match");
  if (!pbuffer.available() && pbuffer.why().find("no EGL_EXT_platform_device") != std::string::npos)
    GTEST_SKIP() << pbuffer.why();
  ASSERT_TRUE(pbuffer.available()) << "a 1x1 pbuffer on the EGL device platform: " << pbuffer.why();
  EXPECT_NE(pbuffer.json.at("device_info").at("platform").get<std::string>().find("pbuffer"), std::string::npos);
  compare_with_device_platform(pbuffer, "EGL pbuffer");
}

TEST(GlPlatforms, EglSurfacelessMatchesDevicePlatform) {
  const ChildRun surfaceless = run_child({{"STEREO_GL_PLATFORM", "egl-surfaceless"}}, "match");
  if (!surfaceless.available() && surfaceless.why().find("no EGL_MESA_platform_surfaceless") != std::string::npos)
    GTEST_SKIP() << surfaceless.why();
  ASSERT_TRUE(surfaceless.available()) << surfaceless.why();
  EXPECT_TRUE(surfaceless.json.at("device_info").at("egl_device").is_null()) << "no EGL device off the device platform";
  compare_with_device_platform(surfaceless, "EGL surfaceless platform");
}

// Labelled `glfw` in ctest; scripts/test.sh runs that label under xvfb-run -a.
TEST(GlPlatforms, GlfwHiddenWindowMatchesEgl) {
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((display == nullptr || *display == '\0') && (wayland == nullptr || *wayland == '\0'))
    GTEST_SKIP() << "no DISPLAY for a GLFW window: run under xvfb-run -a (scripts/test.sh runs ctest -L glfw so)";
  const ChildRun glfw = run_child({{"STEREO_GL_PLATFORM", "glfw"}}, "match");
  ASSERT_TRUE(glfw.available()) << "DISPLAY=" << (display ? display : "") << ": " << glfw.why();
  compare_with_device_platform(glfw, "GLFW hidden window");
}

TEST(GlDevice, StereoDeviceChoosesTheCudaOrdinalOrRefuses) {
  const ChildRun zero = run_child({{"STEREO_GL_PLATFORM", "egl-device"}, {"STEREO_DEVICE", "0"}}, "probe");
  if (!zero.available() && zero.why().find("no EGL_EXT_platform_device") != std::string::npos)
    GTEST_SKIP() << zero.why();
  if (zero.available()) {
    const auto& egl = zero.json.at("device_info").at("egl_device");
    std::cout << "STEREO_DEVICE=0: " << egl.dump() << "\n";
    EXPECT_NE(egl.at("chosen_by").get<std::string>().find("STEREO_DEVICE=0"), std::string::npos) << egl.dump();
    if (!egl.at("cuda_ordinal").is_null()) {
      EXPECT_EQ(egl.at("cuda_ordinal"), 0) << egl.dump();
    }
  } else {
    // Allowed only as a clear refusal: several EGL devices and no EGL_NV_device_cuda.
    EXPECT_NE(zero.why().find("STEREO_DEVICE=0"), std::string::npos) << zero.why();
    EXPECT_NE(zero.why().find("EGL_NV_device_cuda"), std::string::npos) << zero.why();
  }
  // No machine here has 64 GPUs: a clear refusal, never a silent other device.
  const ChildRun far = run_child({{"STEREO_DEVICE", "63"}}, "probe");
  ASSERT_FALSE(far.available()) << far.json.dump();
  EXPECT_NE(far.why().find("STEREO_DEVICE=63"), std::string::npos) << far.why();
  const ChildRun glfw = run_child({{"STEREO_GL_PLATFORM", "glfw"}, {"STEREO_DEVICE", "2"}}, "probe");
  ASSERT_FALSE(glfw.available());
  EXPECT_NE(glfw.why().find("cannot choose a GPU"), std::string::npos) << glfw.why();
  const ChildRun bad = run_child({{"STEREO_DEVICE", "gpu1"}}, "probe");
  ASSERT_FALSE(bad.available());
  EXPECT_NE(bad.why().find("STEREO_DEVICE must be a CUDA device ordinal"), std::string::npos) << bad.why();
}

TEST(GlDebug, DriverErrorsReachTheNextCheckOnce) {
  const ChildRun run = run_child({{"STEREO_GL_DEBUG", "1"}}, "debug");
  if (!run.available()) GTEST_SKIP() << run.why();
  const auto& info = run.json.at("device_info");
  EXPECT_TRUE(info.at("debug").get<bool>());
  EXPECT_TRUE(run.json.at("debug_context").get<bool>()) << "GL_CONTEXT_FLAG_DEBUG_BIT";
  EXPECT_TRUE(run.json.at("synchronous").get<bool>()) << "GL_DEBUG_OUTPUT_SYNCHRONOUS";
  const std::string error = run.json.at("error").is_string() ? run.json.at("error").get<std::string>() : "";
  EXPECT_NE(error.find("the provoked bind"), std::string::npos) << error;
  EXPECT_NE(error.find("GL_INVALID_ENUM"), std::string::npos) << error;
  EXPECT_NE(error.find("[driver: "), std::string::npos) << "the KHR_debug message belongs in the error: " << error;
  EXPECT_TRUE(run.json.at("next_check_clean").get<bool>()) << run.json.dump();
  // With debug output and the state contract checks on, every GL matcher runs clean.
  EXPECT_EQ(run.json.value("match", std::string()), "done") << run.json.dump();
}

TEST(GlContext, UuidFormatAndDeviceOrdinalParsing) {
  std::array<std::uint8_t, 16> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::uint8_t(i * 17);
  EXPECT_EQ(format_gpu_uuid(bytes), "GPU-00112233-4455-6677-8899-aabbccddeeff");
  EXPECT_EQ(parse_device_ordinal(nullptr), std::nullopt);
  EXPECT_EQ(parse_device_ordinal(""), std::nullopt);
  EXPECT_EQ(parse_device_ordinal("3"), 3);
  for (const char* bad : {"-1", "1.0", "one", " 1", "99999999"}) EXPECT_THROW(parse_device_ordinal(bad), Error) << bad;
}

TEST(GlContext, DeviceInfoOfEveryGlMatcher) {
  STEREO_REQUIRE_GL45();
  const nlohmann::json info = shared_context()->device_info();
  std::cout << "device_info: " << info.dump() << "\n";
  for (const char* key : {"name", "uuid", "vendor", "version", "egl_device"}) EXPECT_TRUE(info.contains(key)) << key;
  EXPECT_EQ(info.at("name"), shared_context()->renderer());
  if (!info.at("uuid").is_null()) {
    const std::regex nvidia_smi("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    EXPECT_TRUE(std::regex_match(info.at("uuid").get<std::string>(), nvidia_smi)) << info.at("uuid");
  }
  if (!info.at("egl_device").is_null()) {
    for (const char* key : {"index", "count", "cuda_ordinal", "chosen_by"})
      EXPECT_TRUE(info.at("egl_device").contains(key)) << key;
  }
  ASSERT_FALSE(gl_entries().empty()) << "no GL matcher is registered";
  for (const BackendEntry* e : gl_entries())
    EXPECT_EQ(e->create({})->device_info(), info) << e->method << "/" << e->backend;
}

}  // namespace
}  // namespace stereo::gl
