#pragma once
/// \file include/stereo/io.h
/// Image and disparity-map files: what a program around a matcher reads and writes. Decoding
/// and PNG encoding are stb's; PFM is written by the library because stb has none. Every
/// writer writes to a temporary name beside the target and renames it when complete, so a
/// failure never leaves a half-written file.

#include <cstdint>
#include <filesystem>
#include <string>

#include "stereo/image.h"

namespace stereo {

/// The largest image the readers accept, in pixels (2^27, e.g. 16384 x 8192): a header that
/// claims more is taken as corrupt and refused before anything of its size is allocated.
inline constexpr std::uint64_t MAX_IMAGE_PIXELS = std::uint64_t{1} << 27;

/// PNG, PPM/PGM, JPEG, BMP, TGA (8 bits per channel; 16-bit PNGs are reduced to 8 bits).
/// 1 (grey) or 3 (RGB) channels: alpha is dropped, grey+alpha becomes grey.
ImageU8 read_image(const std::filesystem::path& path);

/// A 16-bit PNG as stored (KITTI disparity); stb scales 8-bit files by 257.
ImageU16 read_png16(const std::filesystem::path& path);

/// PFM (`Pf` grey or `PF` colour), either endianness, rows stored bottom-to-top.
/// Every reader throws stereo::Error (one line naming the file) for a missing, empty,
/// truncated or corrupt file, and checks the header's size against the file's length first.
ImageF read_pfm(const std::filesystem::path& path);

/// Little-endian grey PFM, bottom-to-top; non-finite values are written as +inf (unknown).
void write_pfm(const std::filesystem::path& path, const ImageF& map);

/// 8-bit grey or RGB PNG.
void write_png(const std::filesystem::path& path, const ImageU8& img);

/// 16-bit grey PNG.
void write_png16(const std::filesystem::path& path, const ImageU16& img);

/// Disparity in the KITTI convention: round(d * 256) in a 16-bit PNG, 0 = no disparity.
void write_disparity_png16(const std::filesystem::path& path, const ImageF& disparity);
ImageF read_disparity_png16(const std::filesystem::path& path);

}  // namespace stereo
