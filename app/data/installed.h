#pragma once
/// \file app/data/installed.h
/// What a data root holds: each catalog dataset installed or not, its size on disk and the files
/// the manifest records for it. Needs no download library, so `stereo data list` works in every
/// build (app/data/store.h installs and verifies, where libcurl, libarchive and libcrypto are).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "app/data/catalog.h"

namespace stereo::data {

struct DatasetStatus {
  const Dataset* dataset = nullptr;
  bool installed = false;
  std::uint64_t bytes = 0;        ///< on disk, when installed
  std::size_t recorded_files = 0; ///< files the manifest records for it (0: not installed by `stereo data`)
};

/// Every catalog dataset's state under `root`.
std::vector<DatasetStatus> dataset_status(const std::filesystem::path& root);

}  // namespace stereo::data
