#pragma once
/// \file app/data/catalog.h
/// The datasets `stereo data` knows: where each project publishes its files, and how what they
/// unpack to becomes the layout app/dataset.cpp reads (one scene folder per pair, Middlebury v2's
/// left.png/right.png/gt.png or MiddEval3's im0.png/im1.png/disp0GT.pfm, KITTI's training folder).

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace stereo::data {

/// One file a dataset is made from.
struct Source {
  std::string url;     ///< the project's own URL (a --mirror serves it under <mirror>/<host>/<path>)
  std::string sha256;  ///< pinned where the project publishes one; else recorded on first download
  bool archive = true; ///< unpacked (zip, 7z, tar.*); false: placed as it is
  /// The folder (archives) or file name under the staging's unpacked/ folder.
  [[nodiscard]] std::string staging_name() const;
};

struct Dataset {
  std::string name;   ///< the folder under the data root; what `stereo data get NAME` takes
  std::string title;  ///< one line: what it is
  std::string page;   ///< the project's download page
  std::string size;   ///< the download's size, in words
  bool downloadable = true;  ///< false: only `stereo data add` (the project asks for a registration)
  std::vector<Source> sources;
  /// Builds the dataset's final layout in `out` from `unpacked` (one entry per source, named by
  /// Source::staging_name()). Throws stereo::Error when an expected file is missing.
  std::function<void(const std::filesystem::path& unpacked, const std::filesystem::path& out)> arrange;
};

/// Every dataset `stereo data list` shows, in its order.
const std::vector<Dataset>& catalog();

/// The dataset of that name; throws stereo::Error listing the known names.
const Dataset& find_dataset(const std::string& name);

/// Moves every folder under `unpacked` (searched `depth` levels deep) that holds `key_file` and
/// whose path contains `path_filter` (empty: any) into `out/<folder name>/`, merging folders of
/// the same name (MiddEval3's images and ground truth come in separate archives). Returns the
/// number of scene folders made; the arrangers of the catalog use it, tests check it.
int merge_scene_folders(const std::filesystem::path& unpacked, const std::filesystem::path& out,
                        const std::string& key_file, const std::string& path_filter);

/// Rewrites a PNG whose three channels are equal as one grey channel (Middlebury v2's masks and
/// ground truth are palette PNGs, which app/image_io.h reads as RGB).
void make_grey(const std::filesystem::path& png);

}  // namespace stereo::data
