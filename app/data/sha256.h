#pragma once
/// \file app/data/sha256.h
/// SHA-256 of a file or a buffer (OpenSSL's EVP interface), as lowercase hex.

#include <cstddef>
#include <filesystem>
#include <string>

namespace stereo::data {

/// SHA-256 of the file's bytes as 64 lowercase hex digits; throws stereo::Error when the file
/// cannot be read.
std::string sha256_file(const std::filesystem::path& path);

/// SHA-256 of `size` bytes at `bytes`, as 64 lowercase hex digits.
std::string sha256_bytes(const void* bytes, std::size_t size);

}  // namespace stereo::data
