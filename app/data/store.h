#pragma once
/// \file app/data/store.h
/// The data root's contents: installing a dataset (downloaded or from archives a user has),
/// verifying what is installed (app/data/installed.h lists it), and the manifest that pins each
/// download's SHA-256.
///
/// An install never leaves anything half-written beside the installed datasets: downloads go to
/// `<root>/.staging/downloads/*.part` (kept after a cut or Ctrl-C, so the next `get` resumes),
/// each file is checked against its SHA-256, archives are unpacked and arranged in a work folder
/// under `<root>/.staging/`, and the finished folder is renamed to `<root>/<name>` in one step.
/// The manifest `<root>/stereo-data.manifest` holds the SHA-256 of every download (pinned on the
/// first, checked on each later one, also through a mirror) and of every installed file.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "app/data/catalog.h"
#include "app/data/extract.h"
#include "app/data/fetch.h"
#include "app/data/installed.h"

namespace stereo::data {

struct StoreOptions {
  std::filesystem::path root;  ///< the data root (app/dataset.h data_root())
  /// Empty: the projects' own URLs. Else a base URL serving each file under `<mirror>/<host>/<path>`
  /// of its official URL (what `wget -x URL` writes), for labs without outside access.
  std::string mirror;
  FetchOptions fetch;
  ExtractLimits limits;
};

/// The URL a file is fetched from: `url` itself, or its mirrored form.
std::string mirrored_url(const std::string& url, const std::string& mirror);

/// Downloads, checks and installs `dataset` as `<root>/<name>` (replacing an installed copy only
/// once the new one is complete). Returns the installed folder; throws stereo::Error.
std::filesystem::path get_dataset(const Dataset& dataset, const StoreOptions& options);

/// Installs `dataset` from files a user downloaded: one per source, matched by file name (any
/// name where the dataset has a single source). Returns the installed folder.
std::filesystem::path add_dataset(const Dataset& dataset, const std::vector<std::filesystem::path>& files,
                                  const StoreOptions& options);

/// Re-hashes the installed files the manifest records for each of `names` (empty: every
/// installed dataset). Returns one line per problem (a missing file, a changed SHA-256); empty
/// when everything matches.
std::vector<std::string> verify_datasets(const std::filesystem::path& root, const std::vector<std::string>& names);

}  // namespace stereo::data
