#pragma once
/// \file app/cli/compare_lane.h
/// A lane of `stereo compare`: one method x backend with the matcher that serves every cell of
/// it, made once per run from the registry; and the fields every row of results.json carries
/// from its lane (app/report/results_schema.h).

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/matcher.h"
#include "core/registry.h"

namespace stereo::cli::compare {

/// One method x backend: the matcher is made once and serves every cell of the lane.
struct Lane {
  const MethodInfo* info = nullptr;
  std::string backend;
  std::unique_ptr<Matcher> matcher;
  std::optional<std::string> reason;  ///< why the lane cannot run (unavailable, or creation threw)
  nlohmann::json params = nullptr, device_info = nullptr;
  std::string device;
  int ordinal = -1;  ///< the GPU a --devices copy was made on (lane_per_device); -1: the process's
  [[nodiscard]] std::string label() const { return info->name + "/" + backend; }
  [[nodiscard]] bool on_cpu() const { return device.rfind("CPU", 0) == 0; }
};

/// A lane per method of `methods` and each of its registered backends that `backends` names
/// (every one where empty), in that order, each with its matcher made or the reason it cannot
/// run (also said on stderr). Adds each lane's "backends" entry of results.json to `docs`.
std::vector<Lane> make_lanes(const std::vector<const MethodInfo*>& methods, const std::vector<std::string>& backends,
                             nlohmann::json& docs);

/// Copies of `lane`, one per GPU ordinal, each with its own matcher made on that GPU
/// (parallel::create_on_devices), so `compare --devices` can spread the lane's cells over them;
/// each copy's device, device_info and ordinal are its GPU's, so every row names where it ran.
std::vector<Lane> lane_per_device(const Lane& lane, const std::vector<int>& ordinals);

/// A matcher of the lane's method and backend with `overrides`, on the lane's GPU (a copy's
/// ordinal), or where the process's matchers go.
std::unique_ptr<Matcher> create_like(const Lane& lane, const Overrides& overrides);

/// What a row's times cover, before what each kind of row adds (its runs).
inline constexpr const char* TIME_INCLUDES =
    "total_ms = upload of both images + algorithm + read-back of the disparity map (CPU backends copy nothing: "
    "upload and read-back are 0); input generation and matcher creation excluded";

/// The fields every row has, filled from the lane; status "ok" until the cell says otherwise.
nlohmann::json base_row(const Lane& lane, const char* kind, const std::string& input);

/// "mdes" and "ns_per_de" of a row from its total time.
void add_times(nlohmann::json& row, int width, int height, int levels, double total_ms);

/// Six significant digits, no trailing zeros ("0.02", "40").
std::string general(double v);

}  // namespace stereo::cli::compare
