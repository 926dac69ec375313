#pragma once
/// \file report.h
/// The comparison report: everything `stereo compare` writes besides results.json, made from
/// results.json alone so that `stereo report DIR` can remake it on another machine (one with
/// gnuplot, say). It names no method or backend: the rows and the papers' figures it sets them
/// beside come from the results document.
///
/// results.json (schema "stereo-compare/1") is an object with
///  - "schema", "created" (UTC, ISO 8601), "command" (the command line), "revision" (the source
///    revision of the binary, host/revision.h; absent in files from before it), "host" {"cpu", "threads"},
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
///    "metrics", "total_ms", "total_ms_min", "total_ms_max", "algorithm_ms", "upload_ms",
///    "readback_ms" (those the row has).

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

/// Reads dir/results.json and checks it (check_results); throws stereo::Error naming the file.
nlohmann::json read_results(const std::filesystem::path& dir);

// ---- repeatability: two runs of one command ---------------------------------------------

/// The noise the report states, defined here once. Two medians of a speed cell agree when
///   |median_a - median_b| <= max(spread_a, spread_b) + REPEAT_FLOOR x max(median_a, median_b),
/// spread = slowest - fastest of that run's timed repeats (the speed table's spread). The
/// spread is how far one run's own repeats scatter, so two medians of such repeats that lie
/// further apart than either run's whole scatter reflect a change, not noise (two runs of 5
/// repeats from one distribution do that for under 1 % of cells without the floor: 0.9 %
/// uniform, 0.4 % normal, 0.2 % exponential or log-normal noise, simulated); the floor is
/// for cells whose repeats are nearly identical within a run while the level of the whole
/// run moves with the GPU's clock and temperature between runs.
inline constexpr double REPEAT_FLOOR = 0.02;

/// A run's speed cell is unsettled when its median lies more than this share of the median
/// above its fastest run: at least half of its timed runs then carried a cost the fastest did
/// not (a transient the warm-up did not absorb, as a first small cell after a large one showed
/// on the H100: 1.06 ms against a fastest 0.30 ms). Such a run's spread is wide, so the rule
/// above is loose for it: the report names these cells apart instead of letting them pass.
/// One slow outlier (a high maximum) does not make a cell unsettled; the median is robust to it.
inline constexpr double REPEAT_UNSETTLED = 0.15;

/// (median - fastest) > REPEAT_UNSETTLED x median.
bool unsettled(double median, double fastest);

/// The largest difference of two medians that still agrees: max(spread_a, spread_b) +
/// REPEAT_FLOOR x max(median_a, median_b).
double repeat_tolerance(double median_a, double spread_a, double median_b, double spread_b);

/// |median_a - median_b| <= repeat_tolerance(...).
bool speeds_agree(double median_a, double spread_a, double median_b, double spread_b);

/// What results.json keeps of `other` under "repeat_of" (see above); `source` names where it
/// was read. Throws stereo::Error when `other` fails check_results.
nlohmann::json repeat_summary(const nlohmann::json& other, const std::string& source);

/// A results document against its "repeat_of" run, cell by cell. Cells are matched by kind,
/// method, backend, input, setting, size, range and `set`, the k-th of equal keys with the
/// k-th (a method may list one setting twice for two scenes of a paper).
struct Repeatability {
  struct Speed {
    std::string cell;           ///< "symstereo/cuda 384x288 x 7 paper wavelets=30"
    bool host_cpu = false;      ///< a CPU backend or Mesa's llvmpipe: the host, shared with other work
    double median = 0, spread = 0;              ///< this run: total ms, median and max - min
    double other_median = 0, other_spread = 0;  ///< the repeat_of run
    double ratio = 0;           ///< median / other_median
    double tolerance = 0;       ///< repeat_tolerance()
    bool agrees = false;
    /// The same rule on the algorithm part alone (its median and max - min; the upload and
    /// read-back left out), where both rows carry its median; false where either lacks it.
    double algorithm_median = 0, other_algorithm_median = 0;
    bool algorithm_agrees = false;
    bool unsettled_here = false, unsettled_there = false;  ///< unsettled() in this / the other run
    std::string largest_change;  ///< the part whose median moved most: "upload +0.740 ms"
  };
  int accuracy_compared = 0;                  ///< accuracy cells in both runs
  std::vector<std::string> accuracy_differ;   ///< "cell: what differs"
  std::vector<Speed> speed;                   ///< speed cells ok in both runs, in this run's order
  std::vector<std::string> speed_status_differ;  ///< "cell: ok here, refused there (...)"
  std::vector<std::string> only_here, only_there;  ///< cells in one run only
  bool same_run = false;  ///< both documents carry one creation time and command
};

/// The comparison; throws stereo::Error when the document has no "repeat_of".
Repeatability compare_repeat(const nlohmann::json& results);

/// One line for the terminal: "repeatability: accuracy 112/112 identical; GPU speed 95/95
/// agree (algorithm alone 95/95), 0 unsettled; host CPU speed 20/25 agree".
std::string repeat_headline(const Repeatability& r);

}  // namespace stereo
