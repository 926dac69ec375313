#pragma once
/// \file app/cli/compare_accuracy.h
/// The accuracy cells of `stereo compare`: the datasets' scenes, each scene's left view and
/// ground truth written once for the montages, and one row per lane and scene with its metrics
/// (as computed and as the format's benchmark received the map: app/protocol.h), the paper's
/// figures where they apply, its time and its maps.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/compare_lane.h"
#include "app/dataset.h"

namespace stereo::cli::compare {

/// A DATASET argument and its scenes.
struct Dataset {
  std::string name;  ///< dataset_name(path)
  std::string path;
  std::vector<Scene> scenes;
};

/// A dataset folder's name ("middlebury-v2"), trailing separators ignored.
std::string dataset_name(const std::string& path);

/// Writes each scene's left view and coloured ground truth into out/maps/scenes; returns, per
/// dataset and scene, the {"left", "gt"} paths (relative to `out`; "gt" null without one).
std::vector<std::vector<nlohmann::json>> write_scene_maps(const std::vector<Dataset>& datasets,
                                                          const std::filesystem::path& out);

/// The accuracy row of `lane` on scene `s` of `d`: runs it (after one untimed warm-up run on
/// non-`cpu` backends), scores it, and writes its disparity and error maps under out/maps.
/// `scene_maps` is the scene's write_scene_maps() entry.
nlohmann::json accuracy_row(Lane& lane, const Dataset& d, const Scene& s, const std::filesystem::path& out,
                            const nlohmann::json& scene_maps);

}  // namespace stereo::cli::compare
