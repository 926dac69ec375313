#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <vector>

#include "app/dataset.h"
#include "app/image_io.h"

namespace fs = std::filesystem;
using namespace stereo;

namespace {

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("stereo_io_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

ImageF ramp(int w, int h) {
  ImageF img(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img.at(x, y) = float(x) + 0.25f * float(y);
  return img;
}

// Writes a PFM by hand in big-endian, so the reader's byte swapping is tested on its own.
void write_big_endian_pfm(const fs::path& path, const ImageF& img) {
  std::ofstream out(path, std::ios::binary);
  out << "Pf\n" << img.width << " " << img.height << "\n1.0\n";
  for (int y = img.height - 1; y >= 0; --y)
    for (int x = 0; x < img.width; ++x) {
      const std::uint32_t v = __builtin_bswap32(std::bit_cast<std::uint32_t>(img.at(x, y)));
      out.write(reinterpret_cast<const char*>(&v), 4);
    }
}

}  // namespace

TEST(ImageIo, PfmLittleEndianRoundTripKeepsRowsAndInfinity) {
  ImageF img = ramp(13, 7);
  img.at(3, 2) = std::numeric_limits<float>::infinity();
  img.at(4, 2) = std::numeric_limits<float>::quiet_NaN();  // written as inf: unknown
  const fs::path p = temp_dir() / "le.pfm";
  write_pfm(p, img);
  const ImageF back = read_pfm(p);
  ASSERT_EQ(back.width, 13);
  ASSERT_EQ(back.height, 7);
  EXPECT_FLOAT_EQ(back.at(12, 0), 12.0f);   // top row first in memory
  EXPECT_FLOAT_EQ(back.at(0, 6), 1.5f);
  EXPECT_TRUE(std::isinf(back.at(3, 2)));
  EXPECT_TRUE(std::isinf(back.at(4, 2)));
  EXPECT_FALSE(fs::exists(p.string() + ".part"));
}

TEST(ImageIo, PfmBigEndianIsRead) {
  const ImageF img = ramp(9, 5);
  const fs::path p = temp_dir() / "be.pfm";
  write_big_endian_pfm(p, img);
  const ImageF back = read_pfm(p);
  ASSERT_TRUE(back.same_size(9, 5));
  for (std::size_t i = 0; i < img.data.size(); ++i) EXPECT_FLOAT_EQ(back.data[i], img.data[i]);
}

TEST(ImageIo, PfmReadsSharedMiddEval3GroundTruth) {
  const fs::path p = data_root() / "middlebury-v3-quarter/Adirondack/disp0GT.pfm";
  if (!fs::exists(p)) GTEST_SKIP() << missing_data_hint("middlebury-v3-quarter/Adirondack");
  const ImageF gt = read_pfm(p);
  EXPECT_EQ(gt.width, 718);
  EXPECT_EQ(gt.height, 496);
  float lo = 1e9f, hi = 0.0f;
  for (float v : gt.data)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_NEAR(lo, 9.46, 0.01);   // the data README's range
  EXPECT_NEAR(hi, 63.04, 0.01);
}

TEST(ImageIo, CorruptAndMissingFilesThrowWithThePath) {
  const fs::path dir = temp_dir();
  EXPECT_THROW(read_pfm(dir / "missing.pfm"), Error);
  EXPECT_THROW(read_image(dir / "missing.png"), Error);
  {
    std::ofstream(dir / "short.pfm", std::ios::binary) << "Pf\n10 10\n-1\nabc";
  }
  try {
    read_pfm(dir / "short.pfm");
    FAIL() << "truncated PFM accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("short.pfm"), std::string::npos);
  }
  {
    std::ofstream(dir / "junk.png", std::ios::binary) << "this is not a png";
  }
  EXPECT_THROW(read_image(dir / "junk.png"), Error);
}

// A chunk that declares more bytes than the file holds is refused before the decoder sees it:
// stb would grow its buffer to the declared length first (a 1 KB file asking for 1 GB, found by
// fuzz_kitti).
TEST(ImageIo, PngChunkLongerThanTheFileIsRefusedByName) {
  const fs::path dir = temp_dir();
  ImageU8 img(8, 4, 3);
  for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = static_cast<std::uint8_t>(i * 7);
  write_png(dir / "ok.png", img);
  std::ifstream in(dir / "ok.png", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(read_image(dir / "ok.png").data, img.data);  // the file as written reads back
  // The chunk after IHDR (8 + 25 bytes in) gets a length of 1 GiB.
  std::size_t at = 33;
  const unsigned char huge[4] = {0x40, 0x00, 0x00, 0x00};
  std::memcpy(bytes.data() + at, huge, 4);
  {
    std::ofstream out(dir / "long_chunk.png", std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  try {
    read_image(dir / "long_chunk.png");
    FAIL() << "a chunk longer than the file was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("long_chunk.png"), std::string::npos) << what;
    EXPECT_NE(what.find("declares 1073741824 bytes"), std::string::npos) << what;
  }
}

// A PNG whose header says 0x0 is named with what is wrong, not stb's "unknown image type".
TEST(ImageIo, ZeroSizedPngSaysSo) {
  const fs::path dir = temp_dir();
  ImageU8 img(8, 4, 1);
  write_png(dir / "ok.png", img);
  std::ifstream in(dir / "ok.png", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::fill(bytes.begin() + 16, bytes.begin() + 24, char(0));  // IHDR width and height
  {
    std::ofstream out(dir / "empty.png", std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  for (const auto& read : {std::function<void()>([&] { read_image(dir / "empty.png"); }),
                           std::function<void()>([&] { read_png16(dir / "empty.png"); })}) {
    try {
      read();
      FAIL() << "a 0x0 PNG was accepted";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("empty.png"), std::string::npos) << what;
      EXPECT_NE(what.find("0x0 pixels (a zero width or height)"), std::string::npos) << what;
    }
  }
}

TEST(ImageIo, Png16RoundTripIsExact) {
  ImageU16 img(17, 11, 1);
  for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = static_cast<std::uint16_t>(i * 389 % 65536);
  const fs::path p = temp_dir() / "v16.png";
  write_png16(p, img);
  const ImageU16 back = read_png16(p);
  ASSERT_TRUE(back.same_size(17, 11));
  EXPECT_EQ(back.data, img.data);
}

TEST(ImageIo, DisparityPng16UsesTheKittiConvention) {
  ImageF d(5, 3, 1, 12.5f);
  d.at(0, 0) = std::numeric_limits<float>::infinity();
  d.at(1, 0) = 0.0f;
  d.at(2, 0) = 3.0f / 256.0f;
  const fs::path p = temp_dir() / "disp16.png";
  write_disparity_png16(p, d);
  const ImageU16 raw = read_png16(p);
  EXPECT_EQ(raw.at(0, 0), 0);
  EXPECT_EQ(raw.at(1, 0), 0);
  EXPECT_EQ(raw.at(2, 0), 3);
  EXPECT_EQ(raw.at(4, 2), 3200);
  const ImageF back = read_disparity_png16(p);
  EXPECT_TRUE(std::isinf(back.at(0, 0)));
  EXPECT_FLOAT_EQ(back.at(4, 2), 12.5f);
}

TEST(ImageIo, Png8RoundTripAndGreyToRgb) {
  ImageU8 img(6, 4, 1);
  for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = static_cast<std::uint8_t>(i * 10);
  const fs::path p = temp_dir() / "g8.png";
  write_png(p, img);
  const ImageU8 back = read_image(p);
  ASSERT_EQ(back.channels, 1);
  EXPECT_EQ(back.data, img.data);
  const ImageU8 rgb = to_rgb(back);
  ASSERT_EQ(rgb.channels, 3);
  EXPECT_EQ(rgb.at(5, 3, 2), img.at(5, 3));
}

TEST(ImageIo, FailedWriteLeavesNothingBehind) {
  const fs::path dir = temp_dir() / "nowhere" / "deeper";
  EXPECT_THROW(write_pfm(dir / "x.pfm", ramp(3, 3)), Error);
  EXPECT_FALSE(fs::exists(dir / "x.pfm"));
  EXPECT_FALSE(fs::exists(dir / "x.pfm.part"));
}
