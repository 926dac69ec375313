// NumPy .npy / .npz readers for ground truth stored as arrays (zlib inflates the zip members).

#include "app/npy.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"

namespace stereo {
namespace {

std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string() + ": no such file or not readable");
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error("cannot read " + path.string() + ": read failed");
  return bytes;
}

std::uint64_t read_le(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

// .npy format (numpy.lib.format): the magic "\x93NUMPY", a major and minor version byte, the
// header length (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), then a
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (H, W), } padded
// with spaces and a newline, then the raw array.

ImageF parse_npy(const std::vector<std::uint8_t>& bytes, const std::string& what) {
  static constexpr std::uint8_t MAGIC[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  const std::string where = "npy: " + what + ": ";
  require(bytes.size() >= 10 && std::memcmp(bytes.data(), MAGIC, 6) == 0, where + "not a .npy file (bad magic)");
  const int major = bytes[6];
  require(major >= 1 && major <= 3, where + "unsupported format version " + std::to_string(major));
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  require(bytes.size() >= 8 + len_bytes, where + "truncated header");
  const std::size_t header_len = read_le(bytes.data() + 8, static_cast<int>(len_bytes));
  const std::size_t data_offset = 8 + len_bytes + header_len;
  require(data_offset <= bytes.size(), where + "truncated header");
  const std::string header(bytes.begin() + static_cast<std::ptrdiff_t>(8 + len_bytes),
                           bytes.begin() + static_cast<std::ptrdiff_t>(data_offset));

  auto value_after = [&](const std::string& key) {
    const std::size_t k = header.find("'" + key + "'");
    require(k != std::string::npos, where + "header has no '" + key + "': " + header);
    const std::size_t colon = header.find(':', k);
    require(colon != std::string::npos, where + "malformed header: " + header);
    std::size_t v = colon + 1;
    while (v < header.size() && header[v] == ' ') ++v;
    return v;
  };

  std::size_t v = value_after("descr");
  require(v < header.size() && (header[v] == '\'' || header[v] == '"'), where + "descr is not a string: " + header);
  const std::size_t end = header.find(header[v], v + 1);
  require(end != std::string::npos, where + "malformed descr: " + header);
  const std::string descr = header.substr(v + 1, end - v - 1);

  v = value_after("fortran_order");
  const bool fortran = header.compare(v, 4, "True") == 0;
  require(fortran || header.compare(v, 5, "False") == 0, where + "malformed fortran_order: " + header);

  v = value_after("shape");
  require(v < header.size() && header[v] == '(', where + "malformed shape: " + header);
  const std::size_t close = header.find(')', v);
  require(close != std::string::npos, where + "malformed shape: " + header);
  std::vector<std::size_t> shape;
  {
    std::string inner = header.substr(v + 1, close - v - 1);
    std::replace(inner.begin(), inner.end(), ',', ' ');
    std::istringstream in(inner);
    long long n = 0;
    while (in >> n) {
      require(n >= 0, where + "negative dimension in shape: " + header);
      shape.push_back(static_cast<std::size_t>(n));
    }
    require(in.eof(), where + "malformed shape: " + header);
  }
  require(shape.size() == 2 || shape.size() == 3,
          where + "expected a 2-D (H, W) or 3-D (H, W, C) array, got " + std::to_string(shape.size()) + " dimensions");
  const std::size_t hh = shape[0], ww = shape[1], cc = shape.size() == 3 ? shape[2] : 1;
  require(hh > 0 && ww > 0 && cc > 0 && hh < (1u << 20) && ww < (1u << 20) && cc <= 16,
          where + "unsupported shape " + header.substr(v, close - v + 1));

  require(descr.size() >= 3, where + "unsupported dtype '" + descr + "'");
  const char order = descr[0];
  const char kind = descr[1];
  const int size = std::atoi(descr.c_str() + 2);
  require(order == '<' || order == '|' || order == '=' || (order == '>' && size == 1),
          where + "big-endian dtype '" + descr + "' is not supported");
  const bool supported = (kind == 'f' && (size == 4 || size == 8)) || (kind == 'u' && (size == 1 || size == 2)) ||
                         (kind == 'i' && (size == 1 || size == 2 || size == 4)) || (kind == 'b' && size == 1);
  require(supported, where + "unsupported dtype '" + descr + "' (expected <f4, <f8, |u1, <u2, |i1, <i2 or <i4)");

  const std::size_t count = hh * ww * cc;
  require(bytes.size() - data_offset >= count * static_cast<std::size_t>(size),
          where + "truncated data: " + std::to_string(bytes.size() - data_offset) + " bytes for " +
              std::to_string(count) + " values of '" + descr + "'");

  ImageF img(static_cast<int>(ww), static_cast<int>(hh), static_cast<int>(cc));
  const std::uint8_t* data = bytes.data() + data_offset;
  for (std::size_t y = 0; y < hh; ++y)
    for (std::size_t x = 0; x < ww; ++x)
      for (std::size_t c = 0; c < cc; ++c) {
        const std::size_t src = fortran ? y + x * hh + c * hh * ww : (y * ww + x) * cc + c;
        const std::uint64_t raw = read_le(data + src * static_cast<std::size_t>(size), size);
        double value = 0.0;
        if (kind == 'f')
          value = size == 4 ? std::bit_cast<float>(static_cast<std::uint32_t>(raw)) : std::bit_cast<double>(raw);
        else if (kind == 'i')
          value = size == 1   ? static_cast<std::int8_t>(raw)
                  : size == 2 ? static_cast<std::int16_t>(raw)
                              : static_cast<std::int32_t>(raw);
        else
          value = static_cast<double>(raw);
        img.at(static_cast<int>(x), static_cast<int>(y), static_cast<int>(c)) = static_cast<float>(value);
      }
  return img;
}

ImageF read_npy(const std::filesystem::path& path) { return parse_npy(read_file(path), path.string()); }

// .npz is a zip archive (PKWARE APPNOTE) of .npy members. The central directory at the end
// gives each member's sizes and where its local header starts; NumPy writes members with
// zip64 extra fields, so the 64-bit records are followed where the 32-bit fields say 0xFFFFFFFF.
ImageF read_npz(const std::filesystem::path& path, const std::string& member) {
  const std::vector<std::uint8_t> zip = read_file(path);
  const std::string where = "npz: " + path.string() + ": ";
  auto need = [&](std::uint64_t offset, std::uint64_t length) {
    require(offset <= zip.size() && length <= zip.size() - offset, where + "truncated or corrupt zip archive");
  };
  auto u16 = [&](std::uint64_t at) { need(at, 2); return read_le(zip.data() + at, 2); };
  auto u32 = [&](std::uint64_t at) { need(at, 4); return read_le(zip.data() + at, 4); };
  auto u64 = [&](std::uint64_t at) { need(at, 8); return read_le(zip.data() + at, 8); };

  // End of central directory: 22 bytes plus a comment of at most 65535 bytes.
  require(zip.size() >= 22, where + "not a zip archive (too short)");
  std::uint64_t eocd = zip.size() - 22;
  const std::uint64_t stop = zip.size() >= 22 + 65535 ? zip.size() - 22 - 65535 : 0;
  while (u32(eocd) != 0x06054b50) {
    require(eocd > stop, where + "not a zip archive (no end-of-central-directory record)");
    --eocd;
  }
  std::uint64_t entries = u16(eocd + 10);
  std::uint64_t cd_offset = u32(eocd + 16);
  if (entries == 0xFFFF || cd_offset == 0xFFFFFFFF) {
    require(eocd >= 20 && u32(eocd - 20) == 0x07064b50, where + "zip64 archive without zip64 locator");
    const std::uint64_t z64 = u64(eocd - 20 + 8);
    require(u32(z64) == 0x06064b50, where + "corrupt zip64 end-of-central-directory record");
    entries = u64(z64 + 32);
    cd_offset = u64(z64 + 48);
  }

  std::vector<std::string> names;
  std::uint64_t at = cd_offset;
  for (std::uint64_t i = 0; i < entries; ++i) {
    require(u32(at) == 0x02014b50, where + "corrupt central directory");
    const std::uint64_t flags = u16(at + 8), method = u16(at + 10), crc = u32(at + 16);
    std::uint64_t packed = u32(at + 20), size = u32(at + 24), local = u32(at + 42);
    const std::uint64_t name_len = u16(at + 28), extra_len = u16(at + 30), comment_len = u16(at + 32);
    need(at + 46, name_len + extra_len);
    const std::string name(reinterpret_cast<const char*>(zip.data() + at + 46), name_len);
    // zip64 extended information: the 64-bit values present are, in this order, those whose
    // 32-bit fields are 0xFFFFFFFF.
    for (std::uint64_t e = at + 46 + name_len; e + 4 <= at + 46 + name_len + extra_len;) {
      const std::uint64_t id = u16(e), len = u16(e + 2);
      if (id == 0x0001) {
        std::uint64_t f = e + 4;
        if (size == 0xFFFFFFFF) size = u64(f), f += 8;
        if (packed == 0xFFFFFFFF) packed = u64(f), f += 8;
        if (local == 0xFFFFFFFF) local = u64(f), f += 8;
      }
      e += 4 + len;
    }
    at += 46 + name_len + extra_len + comment_len;
    names.push_back(name);
    const bool wanted = member.empty() || name == member || name == member + ".npy";
    if (!wanted) continue;

    require((flags & 1u) == 0, where + name + " is encrypted");
    require(method == 0 || method == 8, where + name + " uses compression method " + std::to_string(method) +
                                            " (only stored and deflated members are supported)");
    require(u32(local) == 0x04034b50, where + "corrupt local header of " + name);
    const std::uint64_t data_at = local + 30 + u16(local + 26) + u16(local + 28);
    need(data_at, packed);
    require(size < (1ull << 32) && packed < (1ull << 32), where + name + " is too large");

    std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
    if (method == 0) {
      require(packed == size, where + "stored member " + name + " has inconsistent sizes");
      std::memcpy(out.data(), zip.data() + data_at, out.size());
    } else {
      z_stream z{};
      require(inflateInit2(&z, -MAX_WBITS) == Z_OK, where + "zlib inflateInit2 failed");
      z.next_in = const_cast<Bytef*>(zip.data() + data_at);  // zlib's API is not const-correct
      z.avail_in = static_cast<uInt>(packed);
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(out.size());
      const int rc = inflate(&z, Z_FINISH);
      const std::uint64_t produced = z.total_out;
      const std::string message = z.msg ? z.msg : "";
      inflateEnd(&z);
      require(rc == Z_STREAM_END && produced == size,
              where + "cannot inflate " + name + " (zlib code " + std::to_string(rc) +
                  (message.empty() ? "" : ": " + message) + ")");
    }
    const std::uint64_t actual_crc = crc32(crc32(0L, Z_NULL, 0), out.data(), static_cast<uInt>(out.size()));
    require(actual_crc == crc, where + "CRC mismatch in " + name);
    return parse_npy(out, path.string() + ":" + name);
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw Error(where + (member.empty() ? "archive has no members" : "no member '" + member + "' (members: " + list + ")"));
}

}  // namespace stereo
