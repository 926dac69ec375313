// Streaming: the Matcher sequence interface (core/matcher.h) and `stereo stream`.
//  - DisparityMap's index forms widen to exactly the float map;
//  - match_sequence delivers in order, names the frame of a size change, and delivers the
//    frames before a failing one;
//  - `stereo stream` writes, per frame, the very bytes `stereo run` writes for that pair, for
//    cpu and (where a GL context can be had, llvmpipe in CI) gl and glcompute;
//  - bad input in the middle (missing right image, size change, corrupt file) is one line on
//    stderr naming the frame, exit 1, and the maps before it are complete;
//  - host memory stays put over a sequence.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "app/image_io.h"
#include "core/matcher.h"
#include "app/synth.h"
#include "tests/cli_util.h"
#include "methods/builtin.h"

namespace fs = std::filesystem;
using namespace stereo;

namespace {

constexpr int LEVELS = 12;
constexpr int FRAMES = 4;
// Small enough for the CPU reference in a second or so per backend; window 9 (W = 4) keeps
// the kernel inside the image.
const std::string METHOD_ARGS = " -m salap -d 12 --set window=9";

using Outcome = test::CliOutcome;
using test::slurp;

/// A synthetic pair per frame (a different scene each: seed = 100 + frame).
std::pair<ImageU8, ImageU8> frame_pair(int i, int width = 72, int height = 48) {
  SynthOptions o;
  o.width = width;
  o.height = height;
  o.levels = LEVELS;
  o.seed = 100u + static_cast<unsigned>(i);
  Scene s = make_synthetic_scene(o);
  return {s.left, s.right};
}

std::string frame_name(int i) {
  char name[32];
  std::snprintf(name, sizeof name, "%06d_10.png", i);
  return name;
}

class Stream : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_dir("stereo_stream_");
    fs::create_directories(dir_ / "image_2");  // KITTI's layout: left in image_2, right in image_3
    fs::create_directories(dir_ / "image_3");
    for (int i = 0; i < FRAMES; ++i) {
      const auto [l, r] = frame_pair(i);
      write_png(dir_ / "image_2" / frame_name(i), l);
      write_png(dir_ / "image_3" / frame_name(i), r);
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome stereo(const std::string& args) { return test::run_stereo(dir_, args); }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  std::string stream_args(const std::string& backend, const std::string& format = "pfm") const {
    return "stream " + p("image_2") + " " + p("image_3") + METHOD_ARGS + " -b " + backend + " --out " + p("out") +
           " --format " + format;
  }

  /// The map `stereo run` writes for frame i (PFM, or the KITTI PNG).
  std::string run_map(const std::string& backend, int i, const std::string& format = "pfm") {
    const std::string pfm = p("run" + std::to_string(i) + ".pfm");
    const std::string png = p("run" + std::to_string(i) + ".png");
    const Outcome o = stereo("run " + p("image_2/" + frame_name(i)) + " " + p("image_3/" + frame_name(i)) +
                             METHOD_ARGS + " -b " + backend + " -o " + pfm + " --png " + png);
    EXPECT_EQ(o.code, 0) << o.err;
    return slurp(format == "pfm" ? pfm : png);
  }

  std::string stream_map(int i, const std::string& ext) const {
    return slurp(dir_ / "out" / (fs::path(frame_name(i)).stem().string() + ext));
  }

  /// Bad input at frame 2: one line naming frame 2, exit 1, maps 0 and 1 as `run` writes them,
  /// no map for frames 2 and 3, no temporary file left.
  void expect_stops_at_frame_2(const std::string& needle) {
    const Outcome o = stereo(stream_args("cpu"));
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.err.find("frame 2 (" + frame_name(2) + ")"), std::string::npos) << "stderr: " << o.err;
    EXPECT_NE(o.err.find(needle), std::string::npos) << "stderr: " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "stderr: " << o.err;
    for (int i = 0; i < 2; ++i) EXPECT_EQ(stream_map(i, ".pfm"), run_map("cpu", i)) << "frame " << i;
    for (int i = 2; i < FRAMES; ++i)
      EXPECT_FALSE(fs::exists(dir_ / "out" / (fs::path(frame_name(i)).stem().string() + ".pfm"))) << i;
    for (const auto& e : fs::directory_iterator(dir_ / "out"))
      EXPECT_NE(e.path().extension(), ".part") << e.path();
  }

  fs::path dir_;
};

/// Whether `backend` of salap is in this build and usable here (a GL context on llvmpipe).
std::optional<std::string> unavailable(const std::string& backend) {
  try {
    const BackendEntry& e = builtin_registry().find("salap", backend);
    return e.unavailable ? e.unavailable() : std::nullopt;
  } catch (const Error& err) {
    return std::string(err.what());
  }
}

class StreamBackend : public Stream, public ::testing::WithParamInterface<std::string> {};

TEST_P(StreamBackend, EveryMapIsTheOneRunWrites) {
  const std::string backend = GetParam();
  if (const auto why = unavailable(backend)) GTEST_SKIP() << backend << ": " << *why;
  for (const std::string format : {"pfm", "png"}) {
    const Outcome o = stereo(stream_args(backend, format));
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.out.find(std::to_string(FRAMES) + " frames of 72x48 in"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("fps"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("p99"), std::string::npos) << o.out;
    for (int i = 0; i < FRAMES; ++i) {
      const std::string got = stream_map(i, "." + format);
      ASSERT_FALSE(got.empty()) << backend << " " << format << ": no map for frame " << i;
      EXPECT_EQ(got, run_map(backend, i, format)) << backend << " " << format << ": frame " << i
                                                  << " differs from `stereo run`";
    }
  }
}

// The GL sequence path issues frame after frame without glFinish; with STEREO_GL_DEBUG=1 the
// state-at-rest checks of gl/STATE.md run after every frame's upload and passes, and
// KHR_debug errors become exceptions.
TEST_P(StreamBackend, GlStateContractHoldsBetweenFrames) {
  const std::string backend = GetParam();
  if (backend == "cpu") GTEST_SKIP() << "GL backends only";
  if (const auto why = unavailable(backend)) GTEST_SKIP() << backend << ": " << *why;
  const Outcome o = stereo("stream " + p("image_2") + " " + p("image_3") + METHOD_ARGS + " -b " + backend +
                           " --out " + p("out") + " --format pfm");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string plain = stream_map(FRAMES - 1, ".pfm");
  ASSERT_EQ(::setenv("STEREO_GL_DEBUG", "1", 1), 0);
  const Outcome checked = stereo("stream " + p("image_2") + " " + p("image_3") + METHOD_ARGS + " -b " + backend +
                                 " --out " + p("out") + " --format pfm");
  ::unsetenv("STEREO_GL_DEBUG");
  ASSERT_EQ(checked.code, 0) << checked.err;
  EXPECT_EQ(stream_map(FRAMES - 1, ".pfm"), plain);
}

INSTANTIATE_TEST_SUITE_P(Backends, StreamBackend, ::testing::Values("cpu", "gl", "glcompute"));

TEST_F(Stream, JsonSummaryCountsTheFrames) {
  const Outcome o = stereo("stream " + p("image_2") + " " + p("image_3") + METHOD_ARGS + " --json --preload");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["frames"], FRAMES);
  EXPECT_EQ(j["width"], 72);
  // W x H x levels x fps, in G.
  EXPECT_NEAR(j["gdes"].get<double>(), 72.0 * 48.0 * LEVELS * j["fps"].get<double>() * 1e-9, 1e-12);
  EXPECT_GT(j["fps"].get<double>(), 0.0);
  EXPECT_GT(j["steady_fps"].get<double>(), 0.0);  // from 4 frames: 3 intervals
  EXPECT_NEAR(j["steady_gdes"].get<double>(), 72.0 * 48.0 * LEVELS * j["steady_fps"].get<double>() * 1e-9, 1e-12);
  // The steady rate beside the algorithm-only rate: the mean algorithm time over a frame's interval.
  EXPECT_NEAR(j["steady_ms"].get<double>(), 1000.0 / j["steady_fps"].get<double>(), 1e-9);
  EXPECT_NEAR(j["algorithm_rate_share"].get<double>(),
              j["per_frame_ms"]["algorithm"].get<double>() / j["steady_ms"].get<double>(), 1e-9);
  EXPECT_LE(j["latency_ms"]["p50"].get<double>(), j["latency_ms"]["p99"].get<double>());
  EXPECT_FALSE(fs::exists(dir_ / "out"));  // no --out: nothing written
}

TEST_F(Stream, SeveralReadersLeaveTheMapsAsRunWritesThem) {
  // Pairs read on several threads at once, ahead of the matcher and for --preload: the same
  // maps, in the same order; the summary says how many read.
  for (const std::string extra : {" --readers 3", " --readers 3 --preload"}) {
    fs::remove_all(dir_ / "out");
    const Outcome o = stereo(stream_args("cpu") + extra + " --json");
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(nlohmann::json::parse(o.out)["readers"], 3) << extra;
    for (int i = 0; i < FRAMES; ++i) EXPECT_EQ(stream_map(i, ".pfm"), run_map("cpu", i)) << "frame " << i << extra;
  }
  const Outcome bad = stereo(stream_args("cpu") + " --readers 0");
  EXPECT_EQ(bad.code, 2);  // a malformed command line: the usage code
  EXPECT_NE(bad.err.find("--readers"), std::string::npos) << bad.err;
}

TEST_F(Stream, MissingRightImageNamesTheFrame) {
  fs::remove(dir_ / "image_3" / frame_name(2));
  expect_stops_at_frame_2("right image");
}

TEST_F(Stream, SizeChangeNamesTheFrame) {
  const auto [l, r] = frame_pair(2, 80, 48);
  write_png(dir_ / "image_2" / frame_name(2), l);
  write_png(dir_ / "image_3" / frame_name(2), r);
  expect_stops_at_frame_2("80x48");
}

TEST_F(Stream, CorruptFileNamesTheFrame) {
  std::ofstream(dir_ / "image_2" / frame_name(2), std::ios::binary | std::ios::trunc) << "not a png";
  expect_stops_at_frame_2(frame_name(2));
}

TEST_F(Stream, EmptyFolderIsAnError) {
  fs::create_directories(dir_ / "empty");
  const Outcome o = stereo("stream " + p("empty") + " " + p("image_3") + METHOD_ARGS);
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("no images"), std::string::npos) << o.err;
}

// ---- the interface, in process ---------------------------------------------------------

TEST(DisparityMap, IndexFormsWidenToTheFloatMap) {
  const DisparityRange range{-3, 300};
  EXPECT_EQ(DisparityMap::index_form(256), DisparityMap::Form::index_u8);
  EXPECT_EQ(DisparityMap::index_form(257), DisparityMap::Form::index_u16);
  DisparityMap m16 = DisparityMap::allocate(DisparityMap::Form::index_u16, 3, 2, range);
  m16.index16 = {0, 1, 2, 150, 298, 299};
  const ImageF f = m16.to_float();
  ASSERT_EQ(f.width, 3);
  ASSERT_EQ(f.height, 2);
  EXPECT_EQ(f.data, (std::vector<float>{-3.0f, -2.0f, -1.0f, 147.0f, 295.0f, 296.0f}));
  DisparityMap m8 = DisparityMap::allocate(DisparityMap::Form::index_u8, 2, 1, DisparityRange{5, 256});
  m8.index8 = {0, 255};
  EXPECT_EQ(m8.to_float().data, (std::vector<float>{5.0f, 260.0f}));
  EXPECT_THROW(DisparityMap::allocate(DisparityMap::Form::index_u8, 2, 1, DisparityRange{0, 257}), Error);
}

std::unique_ptr<Matcher> cpu_matcher() { return create_matcher("salap", "cpu", {{"window", "9"}}); }

TEST(MatchSequence, SameMapsAsComputeInFrameOrder) {
  auto m = cpu_matcher();
  std::vector<std::pair<ImageU8, ImageU8>> pairs;
  for (int i = 0; i < FRAMES; ++i) pairs.push_back(frame_pair(i));
  std::size_t given = 0;
  std::vector<std::size_t> order;
  m->match_sequence(
      DisparityRange{0, LEVELS},
      [&](FramePair& pair) {
        if (given == pairs.size()) return false;
        pair.left = pairs[given].first;
        pair.right = pairs[given].second;
        ++given;
        return true;
      },
      [&](FrameResult&& r) {
        order.push_back(r.index);
        const ImageF want = m->compute(pairs[r.index].first, pairs[r.index].second, LEVELS).disparity;
        EXPECT_EQ(r.disparity.to_float().data, want.data) << "frame " << r.index;
      });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3}));
}

TEST(MatchSequence, SizeChangeNamesTheFrameAfterDeliveringTheOnesBefore) {
  auto m = cpu_matcher();
  std::size_t given = 0, delivered = 0;
  try {
    m->match_sequence(
        DisparityRange{0, LEVELS},
        [&](FramePair& pair) {
          const auto [l, r] = frame_pair(static_cast<int>(given), given == 2 ? 64 : 72, 48);
          pair.left = l;
          pair.right = r;
          ++given;
          return true;
        },
        [&](FrameResult&&) { ++delivered; });
    FAIL() << "no error for a size change";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("frame 2: size 64x48"), std::string::npos) << e.what();
  }
  EXPECT_EQ(delivered, 2u);
}

/// Resident set size in bytes (/proc/self/statm, second field, in pages).
long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

// AddressSanitizer keeps freed blocks in its quarantine (hundreds of MiB), so resident memory
// says nothing about leaks there; LeakSanitizer covers that build instead.
#if defined(__SANITIZE_ADDRESS__)
#define STEREO_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STEREO_UNDER_ASAN 1
#endif
#endif

TEST(MatchSequence, HostMemoryStaysPut) {
#ifdef STEREO_UNDER_ASAN
  GTEST_SKIP() << "AddressSanitizer build: its quarantine holds freed memory; LeakSanitizer checks leaks here";
#endif
  // 40 frames: a map (or a pair) kept per frame would add 40 x 115 KB or more. The frames all
  // come from one pair so that the test measures the matcher, not the generator.
  auto m = cpu_matcher();
  const std::pair<ImageU8, ImageU8> pair0 = frame_pair(0, 160, 90);
  long after_warmup = 0;
  std::size_t given = 0;
  m->match_sequence(
      DisparityRange{0, LEVELS},
      [&](FramePair& pair) {
        if (given == 40) return false;
        pair.left = pair0.first;
        pair.right = pair0.second;
        ++given;
        return true;
      },
      [&](FrameResult&& r) {
        if (r.index == 4) after_warmup = resident_bytes();
      });
  const long growth = resident_bytes() - after_warmup;
  std::printf("  resident after frame 4: %ld KiB, after frame 39: %+ld KiB\n", after_warmup / 1024, growth / 1024);
  // 1 MiB: below the 35 x 115 KB a leaked float map per frame would add, above allocator noise.
  EXPECT_LT(growth, 1L << 20);
}

}  // namespace
