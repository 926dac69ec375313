// Hostile sizes and formats, for every registered (method, backend) this build has and for
// every loader: each case either works (a map of the right size holding finite disparities in
// the searched range or +inf) or ends in one stereo::Error with a one-line message; never a
// crash, never another exception type. The matcher cases iterate the registry, so a method
// registered later is covered without a change here.

#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <typeinfo>
#include <vector>

#include "app/dataset.h"
#include "core/error.h"
#include "app/image_io.h"
#include "core/matcher.h"
#include "tests/cli_util.h"
#include "tests/png_util.h"
#include "tests/test_util.h"
#include "methods/builtin.h"
#include "core/validate.h"

namespace fs = std::filesystem;
using namespace stereo;

namespace {

struct EntryName {
  std::string method, backend;
};

// gtest prints the parameter by this instead of its bytes.
void PrintTo(const EntryName& e, std::ostream* os) { *os << e.method << "/" << e.backend; }

std::vector<EntryName> registered() {
  std::vector<EntryName> out;
  for (const BackendEntry& e : builtin_registry().entries()) out.push_back({e.method, e.backend});
  return out;
}

// A one-line message (the CLI prints it as is), non-empty.
void expect_one_line(const std::string& message) {
  EXPECT_FALSE(message.empty());
  EXPECT_EQ(message.find('\n'), std::string::npos) << "multi-line error: " << message;
}

/// Runs `fn`; returns the stereo::Error's message if it threw one (checked to be one line),
/// an empty string if it returned. Any other exception fails the test.
std::string outcome(const std::function<void()>& fn) {
  try {
    fn();
    return {};
  } catch (const Error& e) {
    expect_one_line(e.what());
    return e.what()[0] ? e.what() : "(empty message)";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw " << typeid(e).name() << " instead of stereo::Error: " << e.what();
    return e.what();
  }
}

// A map of the pair's size, one channel, every value +inf or a finite disparity within the
// searched range (sub-pixel refinement may move it by less than one level past either end).
void expect_valid_map(const ImageF& d, int width, int height, DisparityRange range) {
  ASSERT_EQ(d.width, width);
  ASSERT_EQ(d.height, height);
  ASSERT_EQ(d.channels, 1);
  ASSERT_EQ(d.data.size(), std::size_t(width) * std::size_t(height));
  int bad = 0;
  for (float v : d.data) {
    const bool ok = (std::isinf(v) && v > 0) ||
                    (std::isfinite(v) && v >= float(range.min) - 1.0f && v <= float(range.max()) + 1.0f);
    if (!ok && bad++ < 3) ADD_FAILURE() << "value " << v << " outside " << range.min << ".." << range.max();
  }
}

class Hostile : public ::testing::TestWithParam<EntryName> {
 protected:
  void SetUp() override {
    const BackendEntry& e = builtin_registry().find(GetParam().method, GetParam().backend);
    if (const auto why = e.unavailable ? e.unavailable() : std::nullopt) GTEST_SKIP() << *why;
    matcher_ = create_matcher(GetParam().method, GetParam().backend, {});
  }

  /// Either a valid map or one stereo::Error; returns the error message ("" when it worked).
  std::string run(const ImageU8& left, const ImageU8& right, DisparityRange range) {
    ImageF map;
    const std::string err = outcome([&] { map = matcher_->compute(left, right, range).disparity; });
    if (err.empty()) expect_valid_map(map, left.width, left.height, range);
    return err;
  }

  std::unique_ptr<Matcher> matcher_;
};

std::string entry_label(const ::testing::TestParamInfo<EntryName>& info) {
  return info.param.method + "_" + info.param.backend;
}

ImageU8 texture(int w, int h, unsigned seed, int channels = 3) { return test::random_texture(w, h, seed, channels); }

}  // namespace

// 1x1, 1xN and Nx1 images, widths that are not multiples of 4, 16 or 32: a map or one line.
TEST_P(Hostile, TinyAndOddSizesWorkOrFailInOneLine) {
  struct Case {
    int w, h, levels;
  };
  const Case cases[] = {{1, 1, 1}, {1, 9, 1}, {2, 1, 1}, {5, 1, 2}, {9, 1, 4}, {3, 2, 2},  {4, 4, 3},
                        {13, 7, 5}, {17, 5, 16}, {33, 3, 7}, {63, 9, 20}, {70, 4, 1}, {31, 33, 30}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h) + " levels " + std::to_string(c.levels));
    const ImageU8 left = texture(c.w, c.h, 7);
    const std::string err = run(left, test::shifted(left, 1), {0, c.levels});
    // A pair at least 4 wide with fewer levels than its width is a valid problem: it must run.
    if (c.w >= 4 && c.levels < c.w) {
      EXPECT_EQ(err, "") << "a valid problem was refused";
    }
    if (c.w == 1) {
      EXPECT_NE(err, "") << "a 1-wide image leaves no disparity but 0 with no neighbour";
    }
  }
}

// levels >= width cannot leave every disparity an overlap: refused, naming both numbers.
TEST_P(Hostile, MoreLevelsThanTheWidthIsOneLineError) {
  const ImageU8 left = texture(8, 6, 3);
  for (int levels : {8, 9, 64}) {
    const std::string err = run(left, left, {0, levels});
    EXPECT_NE(err.find(std::to_string(levels)), std::string::npos) << err;
    EXPECT_NE(err.find("8"), std::string::npos) << err;
  }
  EXPECT_NE(run(left, left, {0, 0}), "");
  EXPECT_NE(run(left, left, {0, -3}), "");
  EXPECT_NE(run(left, left, {5, 4}), "");   // 5..8 reaches past the width
  EXPECT_NE(run(left, left, {-9, 4}), "");  // -9 is beyond -width
}

// One level: the only answer is disparity 0 (or none).
TEST_P(Hostile, OneLevelGivesZeroOrNone) {
  const ImageU8 left = texture(40, 12, 11);
  ImageF map;
  ASSERT_EQ(outcome([&] { map = matcher_->compute(left, test::shifted(left, 2), {0, 1}).disparity; }), "");
  expect_valid_map(map, 40, 12, {0, 1});
  for (float v : map.data) {
    if (std::isfinite(v)) {
      ASSERT_EQ(v, 0.0f);
    }
  }
}

TEST_P(Hostile, LeftAndRightOfDifferentSizesOrChannelsAreRefused) {
  const ImageU8 left = texture(32, 8, 1);
  EXPECT_NE(run(left, texture(31, 8, 2), {0, 4}).find("31x8"), std::string::npos);
  EXPECT_NE(run(left, texture(32, 9, 2), {0, 4}).find("32x9"), std::string::npos);
  EXPECT_NE(run(left, texture(32, 8, 2, 1), {0, 4}).find("channels"), std::string::npos);
  EXPECT_NE(run(left, ImageU8(), {0, 4}), "");
  EXPECT_NE(run(texture(32, 8, 1, 4), texture(32, 8, 2, 4), {0, 4}).find("4 channels"), std::string::npos);
  EXPECT_NE(run(texture(32, 8, 1, 2), texture(32, 8, 2, 2), {0, 4}).find("2 channels"), std::string::npos);
}

// Grey pairs are part of the contract (Matcher::compute: "RGB or grey").
TEST_P(Hostile, GreyPairWorks) {
  const ImageU8 left = texture(37, 9, 5, 1);
  EXPECT_EQ(run(left, test::shifted(left, 2), {0, 6}), "");
}

// A negative range on an odd-sized pair.
TEST_P(Hostile, NegativeRangeOnAnOddSize) {
  const ImageU8 left = texture(29, 7, 9);
  EXPECT_EQ(run(left, test::shifted(left, -2), {-5, 8}), "");
}

// One matcher fed a sequence of sizes (its buffers are resized, shrunk and grown again) gives
// the same map for the same input as before.
TEST_P(Hostile, ResizingOneMatcherKeepsItsResults) {
  const ImageU8 a = texture(45, 11, 21), b = texture(17, 5, 22), c = texture(3, 2, 23);
  ImageF first, again;
  ASSERT_EQ(outcome([&] { first = matcher_->compute(a, test::shifted(a, 3), {0, 12}).disparity; }), "");
  EXPECT_EQ(run(b, test::shifted(b, 1), {0, 16}), "");
  run(c, c, {0, 2});
  EXPECT_NE(run(a, test::shifted(a, 3), {0, 64}), "");  // refused in between: the matcher stays usable
  ASSERT_EQ(outcome([&] { again = matcher_->compute(a, test::shifted(a, 3), {0, 12}).disparity; }), "");
  ASSERT_EQ(first.data.size(), again.data.size());
  EXPECT_EQ(std::memcmp(first.data.data(), again.data.data(), first.data.size() * sizeof(float)), 0)
      << "the same pair gave a different map after other sizes ran on the matcher";
}

// Wider than some GPUs' largest texture (16384 on llvmpipe): a map, or one line naming the width.
TEST_P(Hostile, WiderThanATextureWorksOrNamesTheWidth) {
  const ImageU8 left = texture(20011, 2, 41);
  const std::string err = run(left, test::shifted(left, 1), {0, 3});
  if (!err.empty()) {
    EXPECT_NE(err.find("20011"), std::string::npos) << err;
    // The refusal leaves the matcher usable.
    const ImageU8 small = texture(23, 5, 42);
    EXPECT_EQ(run(small, test::shifted(small, 1), {0, 4}), "");
  }
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Hostile, ::testing::ValuesIn(registered()), entry_label);

// ---- loaders -----------------------------------------------------------------------------

namespace {

class HostileFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_test_dir("stereo_hostile_"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path p(const std::string& name) const { return dir_ / name; }
  fs::path put(const std::string& name, const std::string& bytes) const {
    std::ofstream(p(name), std::ios::binary) << bytes;
    return p(name);
  }
  fs::path dir_;
};

using test::slurp;

using test::write_png_as;

std::string be32(std::uint32_t v) {
  return {char(v >> 24), char((v >> 16) & 0xff), char((v >> 8) & 0xff), char(v & 0xff)};
}
std::string png_chunk(const std::string& type, const std::string& data) {
  std::uint32_t crc = static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(type.data()), 4));
  crc = static_cast<std::uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(data.data()), uInt(data.size())));
  return be32(std::uint32_t(data.size())) + type + data + be32(crc);
}
/// A PNG whose IHDR claims w x h (8-bit RGB) followed by a few bytes of IDAT and IEND.
std::string png_claiming(std::uint32_t w, std::uint32_t h) {
  const std::string ihdr = be32(w) + be32(h) + std::string("\x08\x02\x00\x00\x00", 5);
  return std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) +
         png_chunk("IDAT", std::string("\x78\x9c\x63\x00\x00\x00\x01\x00\x01", 9)) + png_chunk("IEND", "");
}

}  // namespace

// Every PNG colour type a user's file may have becomes grey (1) or RGB (3) channels.
TEST_F(HostileFiles, PngColourTypesAndDepths) {
  const int w = 5, h = 3;
  const std::size_t n = std::size_t(w) * std::size_t(h);
  std::vector<std::uint8_t> grey(n), ga(n * 2), rgba(n * 4), index(n);
  std::vector<std::uint16_t> grey16(n), rgb16(n * 3);
  for (std::size_t i = 0; i < n; ++i) {
    grey[i] = std::uint8_t(i * 17);
    ga[2 * i] = grey[i], ga[2 * i + 1] = std::uint8_t(255 - i);
    for (std::size_t c = 0; c < 4; ++c) rgba[4 * i + c] = std::uint8_t(i * 10 + c);
    index[i] = std::uint8_t(i % 4);
    grey16[i] = std::uint16_t(i * 4000 + 255);
    for (std::size_t c = 0; c < 3; ++c) rgb16[3 * i + c] = std::uint16_t(i * 3000 + c * 256);
  }
  const std::uint8_t palette[4 * 3] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 200, 210, 220};
  write_png_as(p("grey.png"), w, h, PNG_FORMAT_GRAY, grey.data());
  write_png_as(p("ga.png"), w, h, PNG_FORMAT_GA, ga.data());
  write_png_as(p("rgba.png"), w, h, PNG_FORMAT_RGBA, rgba.data());
  write_png_as(p("palette.png"), w, h, PNG_FORMAT_RGB_COLORMAP, index.data(), palette, 4);
  write_png_as(p("grey16.png"), w, h, PNG_FORMAT_LINEAR_Y, grey16.data());
  write_png_as(p("rgb16.png"), w, h, PNG_FORMAT_LINEAR_RGB, rgb16.data());

  const ImageU8 g = read_image(p("grey.png"));
  ASSERT_EQ(g.channels, 1);
  EXPECT_EQ(g.at(3, 1), 8 * 17);
  const ImageU8 a = read_image(p("ga.png"));
  ASSERT_EQ(a.channels, 1);
  EXPECT_EQ(a.at(3, 1), 8 * 17);  // alpha dropped, grey kept
  const ImageU8 c = read_image(p("rgba.png"));
  ASSERT_EQ(c.channels, 3);
  EXPECT_EQ(c.at(2, 0, 1), 21);
  const ImageU8 pal = read_image(p("palette.png"));
  ASSERT_EQ(pal.channels, 3);
  EXPECT_EQ(pal.at(3, 0, 0), 200);  // index 3 expanded through the palette
  EXPECT_EQ(pal.at(1, 0, 2), 60);
  const ImageU8 g16 = read_image(p("grey16.png"));
  ASSERT_EQ(g16.channels, 1);
  EXPECT_EQ(g16.at(2, 0), (2 * 4000 + 255) >> 8);  // reduced to the high byte
  const ImageU16 raw16 = read_png16(p("grey16.png"));
  EXPECT_EQ(raw16.at(2, 0), 2 * 4000 + 255);  // read_png16 keeps all 16 bits
  const ImageU8 c16 = read_image(p("rgb16.png"));
  ASSERT_EQ(c16.channels, 3);
  EXPECT_EQ(c16.at(4, 2, 2), (14 * 3000 + 512) >> 8);
  // Every one of them is a valid input pair once expanded to RGB.
  for (const char* name : {"grey.png", "ga.png", "rgba.png", "palette.png", "grey16.png", "rgb16.png"}) {
    const ImageU8 rgb = to_rgb(read_image(p(name)));
    EXPECT_EQ(rgb.channels, 3) << name;
    EXPECT_NO_THROW(validate_pair(rgb, rgb, {0, 2}, "test")) << name;
  }
}

TEST_F(HostileFiles, HugeHeadersOnShortFilesAreRefusedBeforeAllocating) {
  const std::string tail(64, '\x55');
  const fs::path files[] = {
      put("huge.pgm", "P5\n99999 99999\n255\n" + tail),
      put("huge.ppm", "P6\n99999 99999\n255\n" + tail),
      put("huge.pfm", "Pf\n99999 99999\n-1\n" + tail),
      put("hugec.pfm", "PF\n99999 99999\n1.0\n" + tail),
      put("huge.png", png_claiming(99999, 99999)),
  };
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.filename().string());
    const std::string err = outcome([&] {
      if (f.extension() == ".pfm") read_pfm(f);
      else read_image(f);
    });
    EXPECT_NE(err.find("99999x99999"), std::string::npos) << err;
    EXPECT_NE(err.find(f.filename().string()), std::string::npos) << err;
  }
  EXPECT_NE(outcome([&] { read_png16(p("huge.png")); }).find("99999x99999"), std::string::npos);
}

// Below the pixel limit but still far more than the file holds.
TEST_F(HostileFiles, PlausibleHeadersOnShortFilesAreRefused) {
  const std::string tail(100, '\x55');
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"short.pgm", "P5\n# a comment\n4000 3000\n255\n" + tail},
           {"short16.pgm", "P5 20 20 65535\n" + tail},
           {"short.ppm", "P6\n300 200\n255\n" + tail},
           {"short.png", png_claiming(3000, 2000)}}) {
    SCOPED_TRACE(name);
    EXPECT_NE(outcome([&] { read_image(put(name, bytes)); }), "");
  }
  EXPECT_NE(outcome([&] { read_pfm(put("short.pfm", "Pf\n300 200\n-1\n" + tail)); }).find("truncated"),
            std::string::npos);
}

TEST_F(HostileFiles, PfmHeaders) {
  const std::string raster(64, '\0');
  for (const char* header : {"Pf\n-4 4\n-1\n", "Pf\n4 -4\n-1\n", "Pf\n0 4\n-1\n", "Pf\n4 0\n-1\n", "Pf\n4 4\n0\n",
                             "Pf\n4 4\nnan\n", "Pf\n4 4\ninf\n", "PX\n4 4\n-1\n", "Pf\n99999999999 4\n-1\n", "Pf\n",
                             "", "Pf\n4 4 -1"}) {
    SCOPED_TRACE(header);
    EXPECT_NE(outcome([&] { read_pfm(put("h.pfm", header + raster)); }), "");
  }
  // The valid header of the same shape reads.
  EXPECT_EQ(outcome([&] { read_pfm(put("ok.pfm", "Pf\n4 4\n-1\n" + raster)); }), "");
}

TEST_F(HostileFiles, TruncatedAndEmptyFiles) {
  const ImageU8 img = test::random_texture(40, 30, 4);
  write_png(p("full.png"), img);
  write_pfm(p("full.pfm"), ImageF(40, 30, 1, 2.5f));
  write_png16(p("full16.png"), ImageU16(40, 30, 1, 1234));
  {
    std::ofstream(p("full.ppm"), std::ios::binary) << "P6\n40 30\n255\n"
                                                    << std::string(img.data.begin(), img.data.end());
  }
  ASSERT_EQ(outcome([&] { read_image(p("full.ppm")); }), "");
  for (const char* name : {"full.png", "full.pfm", "full16.png", "full.ppm"}) {
    const std::string bytes = slurp(p(name));
    // Cut inside the header or the data: refused. Cut later (into the PNG's IEND chunk, whose
    // CRC stb does not read, or past a constant image's short IDAT): either refused or read
    // back complete and unchanged.
    for (std::size_t keep : {std::size_t(0), std::size_t(5), std::size_t(20), bytes.size() / 2, bytes.size() - 1}) {
      SCOPED_TRACE(std::string(name) + " cut to " + std::to_string(keep) + " of " + std::to_string(bytes.size()));
      const fs::path cut = put(std::string("cut_") + name, bytes.substr(0, keep));
      const std::string ext = fs::path(name).extension().string();
      std::string read_back;
      const std::string err = outcome([&] {
        if (ext == ".pfm") {
          const ImageF f = read_pfm(cut);
          read_back.assign(reinterpret_cast<const char*>(f.data.data()), f.data.size() * sizeof(float));
        } else if (std::string(name) == "full16.png") {
          const ImageU16 f = read_png16(cut);
          read_back.assign(reinterpret_cast<const char*>(f.data.data()), f.data.size() * 2);
        } else {
          const ImageU8 f = read_image(cut);
          read_back.assign(f.data.begin(), f.data.end());
        }
      });
      if (keep <= 20 || ext != ".png") {
        EXPECT_NE(err, "");
      } else if (err.empty()) {
        std::string original;
        if (std::string(name) == "full16.png") {
          const ImageU16 f = read_png16(p(name));
          original.assign(reinterpret_cast<const char*>(f.data.data()), f.data.size() * 2);
        } else {
          const ImageU8 f = read_image(p(name));
          original.assign(f.data.begin(), f.data.end());
        }
        EXPECT_EQ(read_back, original) << "a truncated PNG was read with different pixels";
      }
    }
  }
  EXPECT_NE(outcome([&] { read_image(dir_); }).find("directory"), std::string::npos);
  EXPECT_NE(outcome([&] { read_image(p("missing.png")); }).find("no such file"), std::string::npos);
}

// MiddEval3's calib.txt as users' scripts may leave it: each loads or is one line.
TEST_F(HostileFiles, CalibGarbage) {
  const ImageU8 img = test::random_texture(24, 8, 2);
  write_png(p("im0.png"), img);
  write_png(p("im1.png"), test::shifted(img, 1));
  const std::string cases[] = {
      "ndisp=abc\n", "ndisp=99999999999\n", "ndisp=-5\n", "ndisp=\n", "=\n=\n", "vmin=-1e300\nndisp=4\n",
      "vmin=nan\nndisp=4\n", "vmin=-inf\nndisp=4\n", "vmin=1e300\nndisp=4\n", "ndisp=2147483647\nvmin=-3\n",
      "ndisp=4\nvmin=-30\n", std::string("\0\xff\xfe=\x01\n", 6), std::string(5000, '='), "ndisp=4"};
  for (const std::string& calib : cases) {
    SCOPED_TRACE("calib.txt: " + calib.substr(0, 40));
    put("calib.txt", calib);
    Scene s;
    if (outcome([&] { s = load_scene(dir_); }).empty()) {
      EXPECT_GT(s.levels, 0);
      EXPECT_GT(s.min_disparity, -24);
    }
  }
  // A ground truth with an impossible disparity, and no ndisp to take the range from.
  put("calib.txt", "width=24\n");
  ImageF gt(24, 8, 1, 3.0f);
  gt.at(2, 2) = 3e38f;
  write_pfm(p("disp0GT.pfm"), gt);
  EXPECT_NE(outcome([&] { load_scene(dir_); }).find("beyond the image width"), std::string::npos);
}

// Scene folders whose expected files are folders, empty or missing.
TEST_F(HostileFiles, SceneFoldersWithWrongEntries) {
  fs::create_directories(p("kitti/image_2"));
  EXPECT_NE(outcome([&] { load_dataset(p("kitti")); }), "");
  fs::remove_all(p("kitti"));
  put("kitti", "");
  fs::create_directories(p("k2"));
  put("k2/image_2", "not a folder");
  EXPECT_NE(outcome([&] { load_dataset(p("k2")); }), "");
  fs::create_directories(p("v2/tsukuba/left.png"));
  put("v2/tsukuba/right.png", "");
  EXPECT_NE(outcome([&] { load_dataset(p("v2")); }), "");
  EXPECT_NE(outcome([&] { load_dataset(p("nothing_here")); }), "");
}

// Regression (fuzz_jpeg, the first run): a DHT segment whose 16 code counts sum past 256 made
// stb_image 2.27 write past its Huffman size table. Refused before stb sees it.
TEST_F(HostileFiles, JpegHuffmanTableWithTooManyCodes) {
  std::string jpeg("\xFF\xD8", 2);
  const std::size_t codes = 16 * 20;  // 20 codes of every length: 320
  const std::size_t length = 2 + 17 + codes;
  jpeg += std::string("\xFF\xC4", 2) + char(length >> 8) + char(length & 0xff) + '\x00';
  for (int k = 0; k < 16; ++k) jpeg += char(20);
  jpeg += std::string(codes, '\x01');
  jpeg += std::string("\xFF\xD9", 2);
  const std::string err = outcome([&] { read_image(put("dht.jpg", jpeg)); });
  EXPECT_NE(err.find("Huffman table with 320 codes"), std::string::npos) << err;
  // The same segment after a scan header and some entropy-coded bytes (a progressive file's
  // tables between scans) is found too.
  std::string later("\xFF\xD8\xFF\xDA\x00\x02\x12\x34\xFF\x00\x56\xFF\xD0\x78", 14);
  later += jpeg.substr(2);
  EXPECT_NE(outcome([&] { read_image(put("dht2.jpg", later)); }).find("320 codes"), std::string::npos);
  // A table cut short by the end of the file (stb reads the missing bytes as zeros; the second
  // fuzz finding): 0xFF + 0xC4 + 0x01 = 452 codes in the counts that are there.
  const std::string cut = std::string("\xFF\xD8\xFF\xC4\x01\x42\x01\xFF\xC4\x01", 10);
  EXPECT_NE(outcome([&] { read_image(put("dht3.jpg", cut)); }).find("452 codes"), std::string::npos);
  // A segment whose last byte starts a table: stb reads its counts from the bytes after the
  // segment (the fourth finding). Segment length 3: the table class byte alone is inside.
  const std::string past = std::string("\xFF\xD8\xFF\xC4\x00\x03\x00", 7) + std::string(16, '\x20');
  EXPECT_NE(outcome([&] { read_image(put("dht5.jpg", past)); }).find("512 codes"), std::string::npos);
  // Fill bytes before SOI (the third finding: stb skips them and still decodes a JPEG).
  EXPECT_NE(outcome([&] { read_image(put("dht4.jpg", "\xFF\xFF" + jpeg.substr(1))); }).find("320 codes"),
            std::string::npos);
}

// Regression (fuzz_jpeg, a 10 s timeout): 28 bytes that stb takes for a run-length TGA of
// 29282x2434 pixels (214 MB), decoded from zeros past the end of the file. Refused by the 1032:1 rule.
TEST_F(HostileFiles, TinyFileClaimingAHugeRasterIsRefused) {
  const std::string tga("\xFF\x00\x02\x00\xFF\x00\x00\x00\x32\x84\x00\x1F\x62\x72\x82\x09\x18\x16\x19\x0A\x17\x84"
                        "\x00\x10\x0B\x0C\x1A\x25",
                        28);
  const std::string err = outcome([&] { read_image(put("tiny.tga", tga)); });
  EXPECT_NE(err.find("more than its 28 bytes can hold"), std::string::npos) << err;
}

// Regression (fuzz_png, twice): an empty IDAT chunk before the data is legal PNG; stb adds 0 to
// its null buffer there and copies 0 bytes into it (memcpy(NULL, p, 0); stb's idiom, not
// checked in the fuzz build, fuzz/CMakeLists.txt). The file reads, and right.
TEST_F(HostileFiles, PngWithAnEmptyFirstIdatReads) {
  const unsigned char raw[2] = {0, 0x80};  // filter byte "none", one grey pixel
  unsigned char packed[64];
  uLongf packed_size = sizeof packed;
  ASSERT_EQ(compress(packed, &packed_size, raw, sizeof raw), Z_OK);
  const std::string ihdr = be32(1) + be32(1) + std::string("\x08\x00\x00\x00\x00", 5);
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) + png_chunk("IDAT", "") +
                          png_chunk("IDAT", std::string(reinterpret_cast<const char*>(packed), packed_size)) +
                          png_chunk("IEND", "");
  ImageU8 img;
  ASSERT_EQ(outcome([&] { img = read_image(put("empty_idat.png", png)); }), "");
  ASSERT_TRUE(img.same_size(1, 1));
  EXPECT_EQ(img.at(0, 0), 0x80);
}
