#pragma once
/// \file app/report/montages.h
/// The map montages of report.md: one picture per scene, composed (app/montage.h) from the maps
/// its accuracy rows name.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace stereo::report {

/// One grid picture per scene (maps/montage_<dataset>-<scene>.png): first row the left view and
/// the ground truth, then one row per method/backend with its disparity and error maps, each
/// row labelled in the picture as report.md lists it. Returns (file, row labels); adds the
/// files it wrote to `written`. A scene none of whose maps is in `dir` keeps a montage already
/// there (made where the maps were) and writes none.
std::vector<std::pair<std::string, std::vector<std::string>>> write_montages(const nlohmann::json& doc,
                                                                            const std::filesystem::path& dir,
                                                                            std::vector<std::string>& written);

}  // namespace stereo::report
