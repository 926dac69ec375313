#include "host/image_io.h"

#include <stb_image.h>
#include <stb_image_write.h>
#include <png.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

namespace stereo {
namespace {

struct StbFree {
  void operator()(void* p) const noexcept { stbi_image_free(p); }
};

std::string describe_stb_failure(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return "cannot read " + path.string() + ": no such file";
  if (std::filesystem::is_directory(path, ec)) return "cannot read " + path.string() + ": is a directory";
  const char* reason = stbi_failure_reason();
  return "cannot decode image " + path.string() + ": " + (reason ? reason : "unknown format");
}

}  // namespace

ImageU8 to_rgb(const ImageU8& img) {
  if (img.channels == 3) return img;
  require(img.channels == 1 || img.channels == 2 || img.channels == 4,
          "image: unsupported channel count " + std::to_string(img.channels));
  ImageU8 out(img.width, img.height, 3);
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      for (int c = 0; c < 3; ++c) out.at(x, y, c) = img.at(x, y, img.channels >= 3 ? c : 0);
  return out;
}

ImageU8 read_image(const std::filesystem::path& path) {
  int w = 0, h = 0, n = 0;
  std::unique_ptr<unsigned char, StbFree> pixels(stbi_load(path.c_str(), &w, &h, &n, 0));
  if (!pixels) throw Error(describe_stb_failure(path));
  // stb reports n in 1..4 channels; grey (+alpha) keeps one, RGB(A) keeps three.
  const std::size_t in_channels = static_cast<std::size_t>(n);
  const std::size_t keep = (n == 1 || n == 2) ? 1 : 3;
  ImageU8 img(w, h, static_cast<int>(keep));
  for (std::size_t i = 0; i < img.pixel_count(); ++i)
    for (std::size_t c = 0; c < keep; ++c) img.data[i * keep + c] = pixels.get()[i * in_channels + c];
  return img;
}

ImageU16 read_png16(const std::filesystem::path& path) {
  int w = 0, h = 0, n = 0;
  std::unique_ptr<std::uint16_t, StbFree> pixels(stbi_load_16(path.c_str(), &w, &h, &n, 1));
  if (!pixels) throw Error(describe_stb_failure(path));
  ImageU16 img(w, h, 1);
  std::memcpy(img.data.data(), pixels.get(), img.data.size() * sizeof(std::uint16_t));
  return img;
}

ImageF read_pfm(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string() + ": no such file or not readable");
  std::string magic;
  int w = 0, h = 0;
  double scale = 0;
  in >> magic >> w >> h >> scale;
  if (!in || (magic != "Pf" && magic != "PF") || w <= 0 || h <= 0 || scale == 0.0)
    throw Error("corrupt PFM " + path.string() + ": bad header");
  in.get();  // the single whitespace byte before the raster
  const int channels = magic == "PF" ? 3 : 1;
  ImageF img(w, h, channels);
  const bool file_little = scale < 0;
  const bool host_little = std::endian::native == std::endian::little;
  const std::size_t row_values = static_cast<std::size_t>(w) * static_cast<std::size_t>(channels);
  std::vector<std::uint32_t> raw(row_values);
  for (int r = 0; r < h; ++r) {
    in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(row_values * 4));
    if (!in) throw Error("corrupt PFM " + path.string() + ": raster ends early (row " + std::to_string(r) + " of " + std::to_string(h) + ")");
    float* dst = img.row(h - 1 - r);  // PFM rows run bottom-to-top
    for (std::size_t i = 0; i < row_values; ++i) {
      std::uint32_t v = raw[i];
      if (file_little != host_little) v = __builtin_bswap32(v);
      dst[i] = std::bit_cast<float>(v);
    }
  }
  return img;
}

void write_pfm(const std::filesystem::path& path, const ImageF& map) {
  require(map.channels == 1, "write_pfm: expected a one-channel map, got " + std::to_string(map.channels));
  write_atomically(path, [&](const std::filesystem::path& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw Error("cannot write " + path.string() + ": cannot open for writing");
    out << "Pf\n" << map.width << ' ' << map.height << "\n-1\n";
    std::vector<float> row(static_cast<std::size_t>(map.width));
    static_assert(std::endian::native == std::endian::little, "PFM writer assumes a little-endian host");
    for (int y = map.height - 1; y >= 0; --y) {
      const float* src = map.row(y);
      for (int x = 0; x < map.width; ++x)
        row[static_cast<std::size_t>(x)] = std::isfinite(src[x]) ? src[x] : std::numeric_limits<float>::infinity();
      out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size() * 4));
    }
    out.close();
    if (!out) throw Error("cannot write " + path.string() + ": write failed");
  });
}

void write_png(const std::filesystem::path& path, const ImageU8& img) {
  write_atomically(path, [&](const std::filesystem::path& tmp) {
    if (!stbi_write_png(tmp.c_str(), img.width, img.height, img.channels, img.data.data(),
                        img.width * img.channels))
      throw Error("cannot write " + path.string() + ": PNG encoder failed");
  });
}

void write_png16(const std::filesystem::path& path, const ImageU16& img) {
  require(img.channels == 1, "write_png16: expected a one-channel image");
  // stb writes 8-bit PNGs only; libpng's simplified API writes 16-bit samples unchanged
  // (a linear format: no gamma conversion of the values).
  write_atomically(path, [&](const std::filesystem::path& tmp) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(img.width);
    image.height = static_cast<png_uint_32>(img.height);
    image.format = PNG_FORMAT_LINEAR_Y;
    if (!png_image_write_to_file(&image, tmp.c_str(), 0, img.data.data(), 0, nullptr)) {
      const std::string reason = image.message;
      png_image_free(&image);
      throw Error("cannot write " + path.string() + ": " + reason);
    }
  });
}

void write_disparity_png16(const std::filesystem::path& path, const ImageF& disparity) {
  ImageU16 img(disparity.width, disparity.height, 1);
  for (std::size_t i = 0; i < img.data.size(); ++i) {
    const float d = disparity.data[i];
    if (!std::isfinite(d) || d <= 0.0f) continue;  // 0 = invalid (KITTI)
    img.data[i] = static_cast<std::uint16_t>(std::min(65535.0f, std::round(d * 256.0f)));
  }
  write_png16(path, img);
}

ImageF read_disparity_png16(const std::filesystem::path& path) {
  const ImageU16 raw = read_png16(path);
  ImageF out(raw.width, raw.height, 1);
  for (std::size_t i = 0; i < raw.data.size(); ++i)
    out.data[i] = raw.data[i] == 0 ? std::numeric_limits<float>::infinity() : raw.data[i] / 256.0f;
  return out;
}

}  // namespace stereo
