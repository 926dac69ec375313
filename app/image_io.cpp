#include "app/image_io.h"

#include <stb_image.h>
#include <stb_image_write.h>
#include <png.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdint>
#include <iterator>
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
  const char* reason = stbi_failure_reason();
  return "cannot decode image " + path.string() + ": " + (reason ? reason : "unknown format");
}

// The whole file, so that a header's claims can be checked against its length before anything
// the size of the claimed raster is allocated.
std::vector<unsigned char> read_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error("cannot read " + path.string() + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw Error("cannot read " + path.string() + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string() + ": not readable");
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error("cannot read " + path.string() + ": read failed");
  return bytes;
}

std::string size_text(std::uint64_t w, std::uint64_t h) { return std::to_string(w) + "x" + std::to_string(h); }

// Refuses a header whose pixel count exceeds MAX_IMAGE_PIXELS before any decoder allocates it.
void check_pixel_count(const std::filesystem::path& path, std::uint64_t w, std::uint64_t h) {
  if (w * h > MAX_IMAGE_PIXELS)  // w, h < 2^31 each, so the product fits in 64 bits
    throw Error("cannot read " + path.string() + ": its header says " + size_text(w, h) + " (" +
                std::to_string(w * h) + " pixels), above the suite's limit of " + std::to_string(MAX_IMAGE_PIXELS) +
                " pixels (corrupt header?)");
}

// Binary PNM (P5/P6, the only ones stb decodes): the header's raster must be in the file.
// stb_image 2.27 ignores a short read of the raster and returns uninitialised pixels.
void check_pnm_length(const std::filesystem::path& path, const std::vector<unsigned char>& b, int channels) {
  std::size_t i = 2;
  const auto skip_space = [&] {
    for (;;) {
      while (i < b.size() && std::isspace(b[i])) ++i;
      if (i < b.size() && b[i] == '#') {
        while (i < b.size() && b[i] != '\n' && b[i] != '\r') ++i;
        continue;
      }
      return;
    }
  };
  const auto number = [&]() -> std::uint64_t {
    skip_space();
    std::uint64_t v = 0;
    const std::size_t start = i;
    while (i < b.size() && std::isdigit(b[i]) && v < (1ull << 31)) v = v * 10 + static_cast<std::uint64_t>(b[i++] - '0');
    if (i == start || v >= (1ull << 31)) throw Error("corrupt PNM " + path.string() + ": bad header");
    return v;
  };
  const std::uint64_t w = number(), h = number(), maxval = number();
  check_pixel_count(path, w, h);
  ++i;  // the single whitespace byte before the raster
  const std::uint64_t need = w * h * static_cast<std::uint64_t>(channels) * (maxval > 255 ? 2u : 1u);
  const std::uint64_t have = i <= b.size() ? b.size() - i : 0;
  if (have < need)
    throw Error("corrupt PNM " + path.string() + ": " + size_text(w, h) + " needs " + std::to_string(need) +
                " raster bytes, the file holds " + std::to_string(have) + " (truncated?)");
}

// stb_image 2.27 builds a JPEG Huffman table from the DHT segment's 16 code counts without
// checking that they sum to at most 256, and a larger sum writes past its 257-entry size
// array (found by fuzz/ fuzz_jpeg). Every DHT segment of the file, before the first frame and
// between scans, is checked here first. Entropy-coded data after a scan header is skipped to
// the next marker (0xFF followed by neither 0x00, a fill 0xFF nor a restart marker).
void check_jpeg_huffman_tables(const std::filesystem::path& path, const std::vector<unsigned char>& b,
                               std::size_t after_soi) {
  std::size_t i = after_soi;
  const auto fail = [&](const std::string& why) { throw Error("corrupt JPEG " + path.string() + ": " + why); };
  while (i + 4 <= b.size()) {
    if (b[i] != 0xFF) {  // inside entropy-coded data: find the next marker
      ++i;
      continue;
    }
    const unsigned char marker = b[i + 1];
    if (marker == 0x00 || marker == 0xFF || (marker >= 0xD0 && marker <= 0xD7)) {
      i += marker == 0xFF ? 1 : 2;
      continue;
    }
    if (marker == 0xD9) return;  // EOI
    const std::size_t length = (std::size_t(b[i + 2]) << 8) | b[i + 3];
    const std::size_t end = std::min(b.size(), i + 2 + length);
    if (marker == 0xC4) {
      // stb starts a table while the segment has a byte left and then reads its 16 counts
      // whether or not they lie inside the segment (a fourth finding), and bytes past the end
      // of the file as zeros: count what the file holds there.
      std::size_t t = i + 4;
      while (t < end) {
        std::size_t codes = 0;
        for (std::size_t k = 1; k <= 16 && t + k < b.size(); ++k) codes += b[t + k];
        if (codes > 256)
          fail("Huffman table with " + std::to_string(codes) + " codes (a DHT table holds at most 256)");
        t += 17 + codes;
      }
    }
    i = end;
  }
}

// A PNG chunk's 4-byte type as text, any byte outside printable ASCII shown as '?'.
std::string chunk_type(const unsigned char* type) {
  std::string t(4, '?');
  for (std::size_t i = 0; i < 4; ++i)
    if (type[i] >= 0x20 && type[i] < 0x7f) t[i] = static_cast<char>(type[i]);
  return t;
}

// What a decoder would allocate for this file, checked against the file's length and the
// pixel limit first; binary PNM stores its raster as is, the others compress (below).
void check_header(const std::filesystem::path& path, const std::vector<unsigned char>& bytes) {
  require(!bytes.empty(), "cannot decode image " + path.string() + ": the file is empty");
  require(bytes.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
          "cannot read " + path.string() + ": larger than 2 GiB");
  const int len = static_cast<int>(bytes.size());
  // A PNG's size is in its IHDR (bytes 16..23, big-endian), checked here so that the error
  // names it: stb refuses a huge one with no more than "unknown image type".
  static constexpr unsigned char PNG_MAGIC[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  const bool png = bytes.size() >= 8 && std::memcmp(bytes.data(), PNG_MAGIC, 8) == 0;
  if (png && bytes.size() >= 24) {
    const auto be32 = [&](std::size_t at) {
      return (std::uint64_t(bytes[at]) << 24) | (std::uint64_t(bytes[at + 1]) << 16) | (std::uint64_t(bytes[at + 2]) << 8) |
             std::uint64_t(bytes[at + 3]);
    };
    // stb calls a zero-sized PNG an "unknown image type"; the user needs to hear what is wrong.
    if (be32(16) == 0 || be32(20) == 0)
      throw Error("cannot decode image " + path.string() + ": its PNG header says " + size_text(be32(16), be32(20)) +
                  " pixels (a zero width or height)");
    check_pixel_count(path, be32(16), be32(20));
    // Every chunk's declared length must fit in what is left of the file: stb grows its IDAT
    // buffer to a chunk's declared length before reading it, so a 1 KB file whose chunk claims
    // 1 GB would have it allocate that much (a fuzz finding). A file that merely ends early
    // (no IEND) is left to the decoder.
    for (std::size_t at = 8; at + 8 <= bytes.size();) {
      const std::uint64_t length = be32(at);
      const std::uint64_t left = bytes.size() - at - 8;  // after the length and type fields
      if (length + 4 > left) {
        if (length > left)
          throw Error("corrupt PNG " + path.string() + ": chunk '" + chunk_type(bytes.data() + at + 4) + "' declares " +
                      std::to_string(length) + " bytes, only " + std::to_string(left) +
                      " remain in the file (truncated?)");
        break;  // its CRC cut off: the decoder says what it makes of that
      }
      if (std::memcmp(bytes.data() + at + 4, "IEND", 4) == 0) break;
      at += 12 + static_cast<std::size_t>(length);
    }
  }
  const bool pnm = bytes.size() >= 2 && bytes[0] == 'P' && (bytes[1] == '5' || bytes[1] == '6');
  if (pnm) check_pnm_length(path, bytes, bytes[1] == '5' ? 1 : 3);
  // stb takes a file as JPEG when it starts with SOI, 0xFF 0xD8, after any number of 0xFF fill
  // bytes (a later fuzz finding began FF FF D8).
  std::size_t soi = 0;
  while (soi < bytes.size() && bytes[soi] == 0xFF) ++soi;
  if (soi >= 1 && soi < bytes.size() && bytes[soi] == 0xD8) check_jpeg_huffman_tables(path, bytes, soi + 1);
  int w = 0, h = 0, n = 0;
  if (!stbi_info_from_memory(bytes.data(), len, &w, &h, &n)) throw Error(describe_stb_failure(path));
  if (w <= 0 || h <= 0) throw Error("cannot decode image " + path.string() + ": size " + std::to_string(w) + "x" + std::to_string(h));
  const auto uw = static_cast<std::uint64_t>(w), uh = static_cast<std::uint64_t>(h);
  check_pixel_count(path, uw, uh);
  const bool is16 = stbi_is_16_bit_from_memory(bytes.data(), len) != 0;
  const std::uint64_t raster = uw * uh * static_cast<std::uint64_t>(n) * (is16 ? 2u : 1u);
  // Deflate (PNG) expands at most 1032:1 and the run-length codings of TGA, PSD and PIC at most
  // 128:1, so a raster larger than 1032 times its file is a corrupt header whose decoder would
  // invent the pixels (a 28-byte TGA decoded to 400 MB of zeros: a fuzz finding). JPEG's
  // progressive end-of-band runs compress flat images further, so it gets 4096:1. The 64 KiB
  // of slack keep every tiny image clear of the rule.
  const bool jpeg = soi >= 1 && soi < bytes.size() && bytes[soi] == 0xD8;
  const std::uint64_t ratio = jpeg ? 4096u : 1032u;
  if (raster > ratio * bytes.size() + (1u << 16))
    throw Error("corrupt image " + path.string() + ": its header says " + size_text(uw, uh) + " (" +
                std::to_string(raster) + " bytes of pixels), more than its " + std::to_string(bytes.size()) +
                " bytes can hold (" + std::to_string(ratio) + ":1 at most; truncated?)");
}

}  // namespace

ImageU8 read_image(const std::filesystem::path& path) {
  const std::vector<unsigned char> bytes = read_bytes(path);
  check_header(path, bytes);
  int w = 0, h = 0, n = 0;
  std::unique_ptr<unsigned char, StbFree> pixels(
      stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &n, 0));
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
  const std::vector<unsigned char> bytes = read_bytes(path);
  check_header(path, bytes);
  int w = 0, h = 0, n = 0;
  std::unique_ptr<std::uint16_t, StbFree> pixels(
      stbi_load_16_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &n, 1));
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
  if (!in || (magic != "Pf" && magic != "PF") || !std::isfinite(scale) || scale == 0.0)
    throw Error("corrupt PFM " + path.string() + ": bad header");
  if (w <= 0 || h <= 0)
    throw Error("corrupt PFM " + path.string() + ": size " + std::to_string(w) + "x" + std::to_string(h));
  in.get();  // the single whitespace byte before the raster
  const int channels = magic == "PF" ? 3 : 1;
  // The raster must be in the file before an image of the header's size is allocated.
  check_pixel_count(path, static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(h));
  const auto raster_at = static_cast<std::uint64_t>(in.tellg());
  std::error_code ec;
  const std::uint64_t file_size = std::filesystem::file_size(path, ec);
  const std::uint64_t need = static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(h) *
                             static_cast<std::uint64_t>(channels) * 4u;
  if (!ec && (file_size < raster_at || file_size - raster_at < need))
    throw Error("corrupt PFM " + path.string() + ": " + size_text(std::uint64_t(w), std::uint64_t(h)) + " needs " +
                std::to_string(need) + " raster bytes, the file holds " +
                std::to_string(file_size > raster_at ? file_size - raster_at : 0) + " (truncated?)");
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
