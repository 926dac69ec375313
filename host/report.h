#pragma once
/// \file report.h
/// The comparison report: everything `stereo compare` writes besides results.json, made from
/// results.json alone so that `stereo report DIR` can remake it on another machine (one with
/// gnuplot, say). It names no method or backend: the rows and the papers' figures it sets them
/// beside come from the results document.
///
/// results.json (schema "stereo-compare/1") is an object with
///  - "schema", "created" (UTC, ISO 8601), "command" (the command line), "host" {"cpu", "threads"},
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
///    "avg_error", "density", "d1_all"}, "paper" {"nonocc", "all", "disc"} (or null) and "maps"
///    {"left", "gt", "disparity", "error"} (paths relative to the results folder);
///    speed rows add "setting" ("grid" or "paper"), "repeats", the spread "total_ms_min",
///    "total_ms_max", "algorithm_ms_min", "algorithm_ms_max", "mdes_algorithm", and "paper"
///    {"gpu", "ms", "mdes", "note", "ratio_mdes"} (or null).

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace stereo {

/// The schema name results.json carries.
inline constexpr const char* RESULTS_SCHEMA = "stereo-compare/1";

/// Throws stereo::Error naming the first missing or mistyped field of a results document
/// (`what` names its source in the message).
void check_results(const nlohmann::json& results, const std::string& what);

/// The CSV columns, in order: one line per row of the results, fixed for every run.
const std::vector<std::string>& results_csv_columns();

/// results.csv: a header line of results_csv_columns(), then one line per row. Fields with a
/// comma, quote or line break are quoted (RFC 4180); missing values are empty.
std::string results_csv(const nlohmann::json& results);

/// report.md's text. `plots` are the plot files made (names relative to the results folder;
/// listed as images), `montages` the map grids with the row order each shows.
std::string report_markdown(const nlohmann::json& results, const std::vector<std::string>& plots,
                            const std::vector<std::pair<std::string, std::vector<std::string>>>& montages);

/// The terminal's closing table: per method and backend, the average bad % per dataset and
/// the Mde/s of each grid cell's largest input that ran.
std::string summary_table(const nlohmann::json& results);

/// Writes results.csv, the map montages (maps/montage_<dataset>_<scene>.png, composed from
/// the maps the accuracy rows name), the gnuplot data and scripts (plots/*.dat, plots/*.gp),
/// the plots themselves when gnuplot is on the PATH (a line on `log` says so when it is not),
/// and report.md into `dir`. Returns the files written, relative to `dir`.
std::vector<std::string> write_report(const nlohmann::json& results, const std::filesystem::path& dir,
                                      std::ostream& log);

/// Reads and checks dir/results.json, then write_report().
std::vector<std::string> regenerate_report(const std::filesystem::path& dir, std::ostream& log);

}  // namespace stereo
