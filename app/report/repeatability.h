#pragma once
/// \file app/report/repeatability.h
/// Two runs of one `stereo compare` command, cell by cell: the noise the report states for
/// speed (one rule, defined here once), what results.json keeps of the other run ("repeat_of",
/// app/report/results_schema.h), the comparison itself and its one line for the terminal.
/// report.md's Repeatability section is app/report/repeat_section.h.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace stereo {

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
  /// Of those ok in both runs: cells whose metrics both runs scored as submitted and as float
  /// (compared in that order), and cells one run has float metrics only for (from before the
  /// scores as submitted; compared on those).
  int accuracy_submitted = 0, accuracy_float_only = 0;
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
