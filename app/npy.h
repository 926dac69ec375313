#pragma once
/// \file app/npy.h
/// Readers for ground truth stored as NumPy arrays (.npy, and .npz archives of them).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/image.h"

namespace stereo {

/// Parses an in-memory .npy file (format versions 1-3; dtypes <f4, <f8, |u1, <u2, <i2, <i4;
/// C or Fortran order) of shape (H, W) or (H, W, C) into an image with C channels (1 for 2-D).
/// `what` names the source in error messages.
ImageF parse_npy(const std::vector<std::uint8_t>& bytes, const std::string& what);

/// Reads a .npy file.
ImageF read_npy(const std::filesystem::path& path);

/// Reads one array from a .npz (a zip of .npy files, members stored or deflated, zip64
/// records allowed). `member` is the array name with or without ".npy"; empty = the first.
ImageF read_npz(const std::filesystem::path& path, const std::string& member = "");

}  // namespace stereo
