#pragma once
/// \file app/data/manifest.h
/// `<root>/stereo-data.manifest`: one line per download (`source SHA256 BYTES URL`) and per
/// installed file (`file DATASET SHA256 BYTES PATH`), rewritten atomically.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace stereo::data {

struct Recorded {
  std::string sha256;
  std::uint64_t bytes = 0;
};

struct Manifest {
  std::map<std::string, Recorded> sources;  ///< by official URL
  /// dataset -> path inside it -> record
  std::map<std::string, std::map<std::string, Recorded>> files;

  /// Reads the manifest of `root`; an absent file is an empty manifest.
  static Manifest load(const std::filesystem::path& root);
  /// Writes it to a temporary file beside the manifest and renames it into place.
  void save(const std::filesystem::path& root) const;
  static std::filesystem::path path(const std::filesystem::path& root);
};

}  // namespace stereo::data
