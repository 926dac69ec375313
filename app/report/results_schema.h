#pragma once
/// \file app/report/results_schema.h
/// results.json, the document `stereo compare` writes and every part of the report is made
/// from: its schema, the check that a document follows it, and reading one from a folder.
///
/// results.json (schema "stereo-compare/1") is an object with
///  - "schema", "created" (UTC, ISO 8601), "command" (the command line), "revision" (the source
///    revision of the binary, app/revision.h; absent in files from before it), "host" {"cpu", "threads"},
///    "settings" {"repeats", "sizes" ["WxH"], "levels" [int], "datasets" [path],
///    "speed_input" (what the timed images are)};
///  - "methods": each method's registry description (cli::method_json: citation, the paper's
///    accuracy rows and speed settings, the paper's GPU);
///  - "backends": one object per method and backend asked for: "method", "backend",
///    "available", "reason", and where it ran "device", "device_info", "params";
///  - "rows": one object per method, backend and input, with "kind" ("accuracy" or "speed"),
///    "method", "backend", "input", "status" ("ok", "refused": the backend threw a
///    stereo::Error, "failed": any other exception, "skipped": left out by compare's own
///    limits), "reason" (null when ok), "width", "height", "min_disparity", "levels",
///    "params", "device", "device_info", "cpu" and "cpu_threads" (CPU rows; null otherwise),
///    "time_includes", "clock", the times (ms) and "mdes", "ns_per_de";
///    accuracy rows add "dataset", "scene", "threshold", "metrics" {"nonocc", "all", "disc",
///    "avg_error", "density", "d1_all"} (the map as computed, "float"), "metrics_submitted"
///    (the same fields for the map as the scene format's benchmark received it, the papers'
///    protocol: app/protocol.h) and "submission_rule" (that format's rule, app/protocol.h
///    submission_rule()), both absent in documents from before them, "metrics" and
///    "metrics_submitted" null without ground truth, "paper" {"nonocc", "all", "disc"} (or null)
///    and "maps" {"left", "gt", "disparity", "error"} (paths relative to the results folder);
///    speed rows add "setting" ("grid" or "paper"), "repeats", the spread "total_ms_min",
///    "total_ms_max", "algorithm_ms_min", "algorithm_ms_max", "mdes_algorithm", "set" (the
///    paper setting's parameter overrides the cell ran with, {} for none), "runs" {"total_ms",
///    "algorithm_ms", "upload_ms", "readback_ms": each timed run in order}, "warmup_runs", and
///    "paper" {"gpu", "ms", "mdes", "note", "ratio_mdes"} (or null); "settings" has "warmup"
///    {"min_runs", "min_ms", "max_runs", "text"} (documents older than these fields lack them);
///  - optionally "repeat_of": another run of the same command, kept by `stereo report DIR
///    --repeat-of DIR2` so that the Repeatability section is remade from this file alone:
///    "source" (DIR2 as given), "created", "command", "host", and "rows", each the other run's
///    row cut to what the comparison reads: "kind", "method", "backend", "input", "setting",
///    "width", "height", "min_disparity", "levels", "set", "status", "device", "cpu",
///    "metrics", "metrics_submitted", "total_ms", "total_ms_min", "total_ms_max", "algorithm_ms",
///    "algorithm_ms_min", "algorithm_ms_max", "upload_ms", "readback_ms" (those the row has).

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace stereo {

/// The schema name results.json carries.
inline constexpr const char* RESULTS_SCHEMA = "stereo-compare/1";

/// Throws stereo::Error naming the first missing or mistyped field of a results document
/// (`what` names its source in the message).
void check_results(const nlohmann::json& results, const std::string& what);

/// Reads dir/results.json and checks it (check_results); throws stereo::Error naming the file.
nlohmann::json read_results(const std::filesystem::path& dir);

}  // namespace stereo
