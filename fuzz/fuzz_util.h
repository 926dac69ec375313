#pragma once
// Shared by the fuzz targets: the loaders read files, so each input is written to a file in a
// private temporary folder (in /dev/shm where there is one: no disk traffic per execution).
// Only stereo::Error may leave a loader; anything else (another exception, a sanitizer
// report, an allocation above -malloc_limit_mb) is a finding.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace stereo::fuzz {

/// This process's scratch folder, created once and removed at exit.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    std::error_code ec;
    const std::filesystem::path base =
        std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path();
    std::filesystem::path d = base / ("stereo_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    static const std::filesystem::path removed_at_exit = d;
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(removed_at_exit, ignored);
    });
    return d;
  }();
  return dir;
}

/// Writes `size` bytes to `path` (replacing it).
inline void write_file(const std::filesystem::path& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

}  // namespace stereo::fuzz

#include <string_view>
#include <utility>
#include <vector>

namespace stereo::fuzz {

/// The scene targets' input: a small archive of files, each record one selector byte (the
/// file's index in the target's name list, modulo its length), a 16-bit little-endian length
/// (cut to what remains) and that many bytes. A later record of the same name replaces it.
inline std::vector<std::pair<std::size_t, std::string_view>> unpack(const std::uint8_t* data, std::size_t size,
                                                                    std::size_t names) {
  std::vector<std::pair<std::size_t, std::string_view>> files;
  std::size_t i = 0;
  while (i + 3 <= size) {
    const std::size_t which = data[i] % names;
    std::size_t len = std::size_t(data[i + 1]) | (std::size_t(data[i + 2]) << 8);
    i += 3;
    if (len > size - i) len = size - i;
    files.emplace_back(which, std::string_view(reinterpret_cast<const char*>(data + i), len));
    i += len;
  }
  return files;
}

/// The inverse, for the seed corpus (fuzz/make_seeds.cpp). Files longer than 65535 bytes are
/// not representable and are refused by the caller.
inline std::string pack(const std::vector<std::pair<std::size_t, std::string>>& files) {
  std::string out;
  for (const auto& [which, bytes] : files) {
    out += static_cast<char>(which);
    out += static_cast<char>(bytes.size() & 0xff);
    out += static_cast<char>((bytes.size() >> 8) & 0xff);
    out += bytes;
  }
  return out;
}

/// File names of each scene layout, in selector order (app/dataset.cpp reads these).
inline const std::vector<std::string>& layout_files(int layout) {
  static const std::vector<std::string> v2 = {"left.png", "right.png", "gt.png", "nonocc.png", "all.png", "disc.png"};
  static const std::vector<std::string> v3 = {"im0.png", "im1.png", "disp0GT.pfm", "mask0nocc.png", "calib.txt"};
  static const std::vector<std::string> kitti = {"image_2/000000_10.png", "image_3/000000_10.png",
                                                 "disp_occ_0/000000_10.png", "disp_noc_0/000000_10.png",
                                                 "image_2/000001_10.png", "image_3/000001_10.png"};
  return layout == 1 ? v2 : layout == 2 ? v3 : kitti;
}

}  // namespace stereo::fuzz
