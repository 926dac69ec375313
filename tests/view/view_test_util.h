#pragma once
// What the viewer's tests share: the Tsukuba scene, `stereo run --color` of it, and a method
// with no CUDA backend.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include "app/dataset.h"
#include "app/image_io.h"
#include "core/registry.h"
#include "methods/builtin.h"
#include "tests/cli_util.h"

namespace stereo::view::test {

/// A window can be made here: a display, or the headless context (STEREO_VIEW_CONTEXT=headless).
inline bool window_possible() {
  const char* context = std::getenv("STEREO_VIEW_CONTEXT");
  if (context != nullptr && std::string(context) == "headless") return true;
  return std::getenv("DISPLAY") != nullptr || std::getenv("WAYLAND_DISPLAY") != nullptr;
}

inline std::filesystem::path tsukuba() { return data_root() / "middlebury-v2" / "tsukuba"; }

/// The tests on Tsukuba skip without it, saying where they looked and which `stereo data get`
/// installs it.
#define REQUIRE_TSUKUBA()                                                                         \
  do {                                                                                            \
    if (!std::filesystem::exists(::stereo::view::test::tsukuba()))                                \
      GTEST_SKIP() << ::stereo::missing_data_hint("middlebury-v2/tsukuba");                       \
  } while (false)

/// `stereo run` on the Tsukuba pair over its 16 levels with --color, and the PNG it wrote.
inline ImageU8 run_color(const std::filesystem::path& dir, const std::string& method, const std::string& backend,
                         const std::string& sets = "") {
  const std::string args = (tsukuba() / "left.png").string() + " " + (tsukuba() / "right.png").string() + " -m " +
                           method + " -b " + backend + " -d 16 " + sets + " -o " + (dir / "map.pfm").string() +
                           " --color " + (dir / "map.png").string();
  const stereo::test::CliOutcome r = stereo::test::run_stereo(dir, "run " + args);
  EXPECT_EQ(r.code, 0) << r.err;
  return read_image(dir / "map.png");
}

/// The first registered method without a cuda backend, and its first backend ({"", ""}: none).
inline std::pair<std::string, std::string> cuda_less_method() {
  for (const MethodInfo& m : builtin_registry().methods()) {
    const auto b = builtin_registry().backends(m.name);
    if (std::find(b.begin(), b.end(), "cuda") == b.end() && !b.empty()) return {m.name, b.front()};
  }
  return {"", ""};
}

}  // namespace stereo::view::test
