#pragma once
/// \file app/cli/compare_speed.h
/// The speed cells of `stereo compare`: which settings a lane is timed at (the size x levels
/// grid, then each of the paper's own settings the grid does not already stand for) and one row
/// per lane and setting with the median and spread of its timed runs after a warm-up
/// (app/measure.h bench_one).

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "app/cli/compare_lane.h"
#include "app/measure.h"

namespace stereo::cli::compare {

/// What the timed images are; speed does not depend on content (app/synth.h bench_pair).
inline constexpr const char* SPEED_INPUT =
    "synthetic: uniform random RGB left view (fixed seed), right view = left shifted by 8 px (bench_pair)";

/// The settings to time `lane` at, in order, each with its kind ("grid" or "paper"): every size
/// x levels of the grid, standing for the paper's setting of that size and levels where its
/// parameter overrides are the lane's parameters; then, unless `paper` is false, each paper
/// setting the grid does not stand for.
std::vector<std::pair<BenchConfig, std::string>> speed_settings(const Lane& lane,
                                                                const std::vector<std::pair<int, int>>& sizes,
                                                                const std::vector<int>& levels, bool paper);

/// A paper setting's parameter overrides as JSON ({} for none), as speed rows carry them.
nlohmann::json set_json(const BenchConfig& b);

/// ", wavelets=30": a paper setting's overrides for the progress line; empty for none.
std::string set_text(const BenchConfig& b);

/// The speed row of `lane` at `b` (kind `setting`): `repeats` timed runs after `warmup`, on a
/// matcher of its own where the paper setting overrides parameters; "skipped" for a `cpu`
/// reference above `reference_max_mde` million disparity evaluations.
nlohmann::json speed_row(Lane& lane, const BenchConfig& b, const std::string& setting, int repeats,
                         const WarmUp& warmup, double reference_max_mde);

}  // namespace stereo::cli::compare
