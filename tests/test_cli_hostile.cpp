// The driver on hostile inputs, for every registered (method, backend) available here: odd and
// tiny sizes, PNG colour types, huge headers on short files, truncated files, garbage
// calib.txt. Each run works (exit 0, a map of the right size) or fails with exit code 1, one
// line on stderr, and no output file (complete or partial) left behind.

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "app/image_io.h"
#include "core/matcher.h"
#include "tests/cli_util.h"
#include "tests/png_util.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

namespace fs = std::filesystem;
using namespace stereo;

namespace {

using Outcome = test::CliOutcome;
using test::slurp;

/// "method -b backend" for every registered backend that runs here.
std::vector<std::string> available_choices() {
  std::vector<std::string> out;
  for (const BackendEntry& e : builtin_registry().entries())
    if (!(e.unavailable && e.unavailable())) out.push_back(e.method + " -b " + e.backend);
  return out;
}

class CliHostile : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_test_dir("stereo_clih_"); }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome stereo(const std::string& args) { return test::run_stereo(dir_, args); }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  std::string put(const std::string& name, const std::string& bytes) const {
    std::ofstream(p(name), std::ios::binary) << bytes;
    return p(name);
  }

  /// `run` of `left right` writing out.pfm, out16.png and outc.png.
  Outcome run(const std::string& left, const std::string& right, const std::string& choice, const std::string& extra) {
    return stereo("run " + left + " " + right + " -m " + choice + " " + extra + " -o " + p("out.pfm") + " --png " +
                  p("out16.png") + " --color " + p("outc.png"));
  }

  // Exit code 1, one line on stderr naming `needle`, and none of the outputs on disk.
  void expect_user_error(const Outcome& o, const std::string& needle) {
    EXPECT_EQ(o.code, 1) << o.err;
    EXPECT_NE(o.err.find(needle), std::string::npos) << "stderr: " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "stderr: " << o.err;
    for (const char* out : {"out.pfm", "out16.png", "outc.png"}) {
      EXPECT_FALSE(fs::exists(p(out))) << out;
      EXPECT_FALSE(fs::exists(p(std::string(out) + ".part"))) << out;
    }
  }

  fs::path dir_;
};

}  // namespace

// Tiny and odd sizes through the whole driver: the map written has the input's size.
TEST_F(CliHostile, OddSizesForEveryBackend) {
  struct Case {
    int w, h, levels;
  };
  for (const Case c : {Case{1, 1, 1}, Case{1, 5, 1}, Case{6, 1, 2}, Case{13, 3, 4}, Case{33, 7, 32}}) {
    const ImageU8 left = test::random_texture(c.w, c.h, 3);
    write_png(p("l.png"), left);
    write_png(p("r.png"), test::shifted(left, 1));
    for (const std::string& choice : available_choices()) {
      SCOPED_TRACE(choice + " " + std::to_string(c.w) + "x" + std::to_string(c.h));
      const Outcome o = run(p("l.png"), p("r.png"), choice, "-d " + std::to_string(c.levels));
      if (c.levels >= c.w) {
        expect_user_error(o, "width");
        continue;
      }
      ASSERT_EQ(o.code, 0) << o.err;
      const ImageF d = read_pfm(p("out.pfm"));
      EXPECT_TRUE(d.same_size(c.w, c.h));
      EXPECT_TRUE(read_image(p("outc.png")).same_size(c.w, c.h));
      fs::remove(p("out.pfm")), fs::remove(p("out16.png")), fs::remove(p("outc.png"));
    }
  }
}

// Grey, grey+alpha, RGBA, palette and 16-bit PNGs are all valid inputs (expanded to RGB).
TEST_F(CliHostile, PngColourTypesRun) {
  const int w = 24, h = 6;
  const ImageU8 rgb = test::random_texture(w, h, 8);
  const std::size_t n = std::size_t(w) * std::size_t(h);
  std::vector<std::uint8_t> grey(n), rgba(n * 4), index(n);
  std::vector<std::uint16_t> rgb16(n * 3);
  for (std::size_t i = 0; i < n; ++i) {
    grey[i] = rgb.data[3 * i];
    index[i] = std::uint8_t(rgb.data[3 * i] / 16);
    for (std::size_t c = 0; c < 3; ++c) {
      rgba[4 * i + c] = rgb.data[3 * i + c];
      rgb16[3 * i + c] = std::uint16_t(rgb.data[3 * i + c] * 257);
    }
    rgba[4 * i + 3] = 128;
  }
  std::vector<std::uint8_t> palette(16 * 3);
  for (std::size_t i = 0; i < palette.size(); ++i) palette[i] = std::uint8_t(i * 5);
  test::write_png_as(p("grey.png"), w, h, PNG_FORMAT_GRAY, grey.data());
  test::write_png_as(p("rgba.png"), w, h, PNG_FORMAT_RGBA, rgba.data());
  test::write_png_as(p("palette.png"), w, h, PNG_FORMAT_RGB_COLORMAP, index.data(), palette.data(), 16);
  test::write_png_as(p("rgb16.png"), w, h, PNG_FORMAT_LINEAR_RGB, rgb16.data());
  const std::string choice = "salap -b cpu";
  for (const char* name : {"grey.png", "rgba.png", "palette.png", "rgb16.png"}) {
    SCOPED_TRACE(name);
    const Outcome o = run(p(name), p(name), choice, "-d 4");
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_TRUE(read_pfm(p("out.pfm")).same_size(w, h));
    fs::remove(p("out.pfm")), fs::remove(p("out16.png")), fs::remove(p("outc.png"));
  }
  // Mixed channel counts are expanded alike, so grey against RGB of one size runs too.
  EXPECT_EQ(run(p("grey.png"), p("rgba.png"), choice, "-d 4").code, 0);
}

TEST_F(CliHostile, HugeHeadersTruncatedFilesAndMismatchedPairs) {
  const ImageU8 left = test::random_texture(30, 10, 2);
  write_png(p("l.png"), left);
  write_png(p("r.png"), test::shifted(left, 1));
  write_png(p("wide.png"), test::random_texture(31, 10, 2));
  const std::string png = slurp(p("l.png"));
  put("cut.png", png.substr(0, png.size() / 2));
  put("huge.pgm", "P5\n99999 99999\n255\n" + std::string(50, 'x'));
  put("short.ppm", "P6\n30 10\n255\n" + std::string(50, 'x'));
  put("empty.png", "");
  const std::string choice = "salap -b cpu";
  expect_user_error(run(p("cut.png"), p("r.png"), choice, "-d 4"), "cut.png");
  expect_user_error(run(p("l.png"), p("huge.pgm"), choice, "-d 4"), "99999x99999");
  expect_user_error(run(p("short.ppm"), p("r.png"), choice, "-d 4"), "short.ppm");
  expect_user_error(run(p("empty.png"), p("r.png"), choice, "-d 4"), "empty.png");
  expect_user_error(run(p("l.png"), p("wide.png"), choice, "-d 4"), "31x10");
  expect_user_error(run(dir_.string(), p("r.png"), choice, "-d 4"), "directory");
  // An output path that names a folder is refused before any output is written.
  fs::create_directories(p("adir"));
  const Outcome o = stereo("run " + p("l.png") + " " + p("r.png") + " -m " + choice + " -d 4 -o " + p("out.pfm") +
                           " --color " + p("adir"));
  EXPECT_EQ(o.code, 1);
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(fs::exists(p("out.pfm")));
}

TEST_F(CliHostile, EvalOfBrokenScenesIsOneLine) {
  const ImageU8 left = test::random_texture(24, 8, 2);
  fs::create_directories(p("scene"));
  write_png(p("scene/im0.png"), left);
  write_png(p("scene/im1.png"), test::shifted(left, 1));
  for (const std::string& calib : {std::string("ndisp=abc\n"), std::string("ndisp=99999999999\n"),
                                   std::string("vmin=-1e300\nndisp=4\n"), std::string("ndisp=-2\n")}) {
    SCOPED_TRACE(calib);
    put("scene/calib.txt", calib);
    const Outcome o = stereo("eval " + p("scene") + " -m salap -b cpu --out " + p("evalout"));
    EXPECT_EQ(o.code, 1) << o.out;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find("calib.txt"), std::string::npos) << o.err;
  }
  put("scene/calib.txt", "ndisp=4\n");
  put("scene/disp0GT.pfm", "Pf\n99999 99999\n-1\n");
  const Outcome o = stereo("eval " + p("scene") + " -m salap -b cpu");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("99999x99999"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
}
