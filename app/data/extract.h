#pragma once
/// \file app/data/extract.h
/// Unpacking a downloaded archive (zip, 7z, tar.*: what libarchive reads) into a staging folder,
/// refusing what could write outside it or fill the disk.

#include <cstdint>
#include <filesystem>

namespace stereo::data {

struct ExtractLimits {
  /// Unpacked bytes per archive byte. Dataset archives hold PNG and PFM files, which barely
  /// compress (MiddEval3's zips unpack to about 1.3x); 200x is a bomb.
  double max_ratio = 200.0;
  /// Below this many unpacked bytes the ratio is not checked (a tiny archive of text may
  /// compress more than 200x and harms nothing).
  std::uint64_t ratio_floor_bytes = 1u << 20;
  /// Unpacked bytes of one archive, whatever its size (the largest listed dataset, Middlebury
  /// 2014 at full size, unpacks each scene's zip to under 1 GB).
  std::uint64_t max_bytes = 16ull << 30;
  std::uint64_t max_entries = 200000;
};

/// Unpacks `archive` into the folder `dest` (created). Refuses (stereo::Error naming the archive
/// and the entry) an absolute entry path, a `..` component, a link whose target leaves `dest`,
/// an entry written through a link, devices and FIFOs, and stops as soon as the bytes written
/// pass either limit. Polls the interrupt flag (app/data/interrupt.h) between blocks.
void extract_archive(const std::filesystem::path& archive, const std::filesystem::path& dest,
                     const ExtractLimits& limits = {});

}  // namespace stereo::data
