#pragma once
/// \file include/stereo/dataset.h
/// Stereo scenes on disk: Middlebury v2 and MiddEval3 folders, KITTI 2015 (image_2/ image_3/
/// disp_occ_0/ disp_noc_0/) and KITTI 2012 (colored_0/ colored_1/ disp_occ/ disp_noc/) training
/// folders, plain pairs, and folders of scenes (datasets).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "stereo/disparity_range.h"
#include "stereo/image.h"

namespace stereo {

enum class SceneKind { middlebury_v2, middlebury_v3, kitti, plain };

const char* to_string(SceneKind kind);

/// One rectified pair with whatever ground truth its format carries. Masks are 0/255
/// images in the convention of the evaluation: 255 = this pixel is evaluated.
struct Scene {
  std::string name;
  SceneKind kind = SceneKind::plain;
  ImageU8 left;   ///< reference view, RGB
  ImageU8 right;  ///< RGB, same size
  ImageF gt;      ///< disparity of the left view in pixels; +inf = unknown; empty = none
  ImageU8 mask_nonocc;  ///< empty when the format has none
  ImageU8 mask_all;
  ImageU8 mask_disc;  ///< Middlebury v2 only
  int levels = 0;     ///< disparity levels searched: min_disparity .. min_disparity + levels - 1
  int min_disparity = 0;  ///< the smallest disparity searched (MiddEval3 calib.txt's vmin may set it)
  double default_threshold = 1.0;  ///< bad-pixel threshold of the format's evaluation

  [[nodiscard]] bool has_ground_truth() const { return !gt.empty(); }
  [[nodiscard]] DisparityRange range() const { return {min_disparity, levels}; }
};

/// Middlebury v2 ground-truth scale and search range by scene name (tsukuba 16/16,
/// venus 8/20, teddy 4/60, cones 4/60), as the v2 evaluation used them.
struct V2SceneInfo {
  int scale;
  int levels;
};
std::optional<V2SceneInfo> middlebury_v2_info(const std::string& scene_name);

/// True when `dir` holds a scene in one of the known layouts.
bool is_scene_folder(const std::filesystem::path& dir);

/// Loads one scene folder (layout detected from its files).
Scene load_scene(const std::filesystem::path& dir);

/// Loads a plain pair; `levels` is taken from the caller.
Scene load_pair(const std::filesystem::path& left, const std::filesystem::path& right, int levels);

/// A scene folder gives one scene; a folder of scene folders gives each, sorted by name.
std::vector<Scene> load_dataset(const std::filesystem::path& path);

/// The frames of a sequence: the image files of `left_dir` (png, ppm, pgm, jpg, bmp, tga),
/// sorted by name; each pairs with the file of the same name in `right_dir` (KITTI's
/// image_2/000000_10.png and image_3/000000_10.png). Errors start with `component`.
std::vector<std::string> sequence_names(const std::filesystem::path& left_dir, const std::filesystem::path& right_dir,
                                        const std::string& component);

/// The data root, where `stereo data` installs datasets and where a dataset *name* given to
/// eval, compare, view or the Python module is looked up: the folder set_data_root() named (the
/// CLI's --data), else $STEREO_DATA, else $XDG_DATA_HOME/stereo, else ~/.local/share/stereo.
std::filesystem::path data_root();

/// What chose data_root(): "--data", "STEREO_DATA", "XDG_DATA_HOME" or "default".
std::string data_root_origin();

/// Overrides the data root for this process (`stereo --data DIR`); an empty path clears it.
void set_data_root(const std::filesystem::path& dir);

/// A DATASET argument: an existing file or folder as it is; else a name under the data root
/// (`middlebury-v2`, `middlebury-v2/tsukuba`). Throws stereo::Error naming the data root and the
/// `stereo data get` that installs the dataset when neither exists.
std::filesystem::path resolve_dataset(const std::string& arg);

/// The skip or error text for a dataset missing under the data root: where it was looked for
/// and the command that installs it (`stereo data get middlebury-v2`).
std::string missing_data_hint(const std::string& dataset);

}  // namespace stereo
