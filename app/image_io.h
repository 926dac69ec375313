#pragma once
/// \file app/image_io.h
/// The image and disparity-map files of the data layer: the readers and writers are public
/// (include/stereo/io.h); write_atomically, the temporary-name-then-rename they share, is the
/// data layer's own.

#include <filesystem>
#include <system_error>

#include "core/error.h"
#include "stereo/io.h"

namespace stereo {

/// Writes whatever `write` puts at the temporary path given to it, then renames it to
/// `target`; the temporary file is removed if `write` throws.
template <class Fn>
void write_atomically(const std::filesystem::path& target, Fn&& write) {
  std::filesystem::path tmp = target;
  tmp += ".part";
  try {
    write(tmp);
    std::error_code ec;
    std::filesystem::rename(tmp, target, ec);
    if (ec) throw Error("cannot write " + target.string() + ": " + ec.message());
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
}

}  // namespace stereo
