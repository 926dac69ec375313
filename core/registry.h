#pragma once
/// \file core/registry.h
/// What the driver knows of each method (its paper's citation, accuracy table, speed settings and
/// parameters) and the registry that maps a method and a backend to a factory. The registry of
/// every method this build has is the methods layer's (methods/builtin.h); core names none.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/matcher.h"
#include "core/params.h"

namespace stereo {

/// How a paper's accuracy figures were scored: on the maps as its benchmark received them (the
/// old Middlebury evaluation took an 8-bit image at the ground truth's scale: app/protocol.h) or
/// on the maps as computed.
enum class ScoreProtocol { submitted, float_maps };

/// One row of a paper's accuracy table: bad-pixel percentages at the paper's threshold.
struct PaperAccuracy {
  std::string scene;              ///< scene name, lower case, as the dataset loader names it ("tsukuba")
  std::optional<double> nonocc;   ///< empty where the paper gives no figure
  std::optional<double> all;
  std::optional<double> disc;
  /// Parameter values this row applies to (matched against Matcher::params() as strings);
  /// empty = the defaults. SA-LAP's 4-window rows carry {"windows", "4"}.
  std::vector<std::pair<std::string, std::string>> when;
};

/// One of the paper's own speed settings and what the paper measured there.
struct PaperSpeed {
  int width = 0;
  int height = 0;
  int levels = 0;
  std::optional<double> ms;    ///< the paper's time, where it gives one
  std::optional<double> mdes;  ///< the paper's Mde/s, where it gives one
  std::string note;            ///< what the paper's time includes, or other context
  /// Parameter overrides of this setting (key, value), applied by `bench` on top of the
  /// user's --set; empty = the defaults. SymStereo's grid carries {"wavelets", "30"}.
  std::vector<std::pair<std::string, std::string>> set{};  // {} : older rows need not name it (-Wextra)
};

/// A named parameter set that is not the paper's (chosen on some data for some use):
/// `--set preset=NAME` stands, in place, for its overrides, so a later --set still wins.
struct ParamPreset {
  std::string name;     ///< "middeval3": what the set is for
  Overrides overrides;  ///< the (key, value) pairs it stands for, applied in order
  std::string note;     ///< one line: where the values come from, and that they are not the paper's
};

/// Everything the driver knows of a method, registered once with it (methods/<name>/info.cpp):
/// `list`, `eval` and `bench` read the paper's figures and settings from here and name no
/// method themselves.
struct MethodInfo {
  std::string name;      ///< "salap"
  std::string title;     ///< one line for `stereo list`
  std::string citation;  ///< authors, title, venue, year
  std::string accuracy_source;            ///< "Table 1 (Middlebury v2, bad > 1)"
  double accuracy_threshold = 1.0;        ///< the bad-pixel threshold of that table
  /// How that table scored maps: every paper here submitted to its benchmark (Middlebury v2's
  /// 8-bit images; MiddEval3's float PFM, which the submitted rule leaves unchanged).
  ScoreProtocol accuracy_protocol = ScoreProtocol::submitted;
  std::vector<PaperAccuracy> accuracy;    ///< the paper's accuracy table
  std::string speed_source;               ///< "Table 2 (GeForce 7900 GTX)"
  std::string paper_gpu;                  ///< the GPU of the paper's speed figures
  std::vector<PaperSpeed> speed;          ///< the paper's own benchmark settings
  /// The parameter table: "key = default  (doc)" lines of the method's Params::describe().
  std::function<std::string()> describe_params;
  /// Parameter sets other than the paper's; the paper's defaults stay the defaults.
  std::vector<ParamPreset> presets{};  // {} : methods without presets need not name it (-Wextra)

  /// `overrides` with each ("preset", NAME) replaced, in place, by that preset's overrides.
  /// Throws stereo::Error naming the method's presets for an unknown name, and for a second
  /// preset in one list (one run, one label).
  [[nodiscard]] Overrides expand_presets(const Overrides& overrides) const;
  /// The preset `overrides` names, if any (checked as expand_presets() checks it).
  [[nodiscard]] std::optional<ParamPreset> preset_named(const Overrides& overrides) const;

  /// The accuracy row for `scene` under `params` (the run's Matcher::params()), if the paper has one.
  [[nodiscard]] std::optional<PaperAccuracy> paper_accuracy(const std::string& scene,
                                                            const nlohmann::json& params) const;
};

struct BackendEntry {
  std::string method;
  std::string backend;
  std::string summary;  ///< one line for `stereo list`
  /// Empty when usable here, else why not ("no CUDA device").
  std::function<std::optional<std::string>()> unavailable;
  std::function<std::unique_ptr<Matcher>(const Overrides&)> create;
  /// The backend's own knobs (its Options struct, not the paper's parameters): "key = default
  /// (doc)" lines as describe_defaults() gives them; empty function or text when it has none.
  /// `stereo params -m M` lists them under the method's parameters, per backend.
  std::function<std::string()> describe_options{};  // {} : entries without options need not name it
};

class Registry {
 public:
  /// Adds a backend; throws when that method/backend is registered already.
  void add(BackendEntry entry);
  /// Registers a method's description; each method registers exactly one.
  void add_method(MethodInfo info);
  /// Throws stereo::Error naming the known methods when there is none of that name.
  [[nodiscard]] const MethodInfo& method(const std::string& name) const;
  [[nodiscard]] const std::vector<MethodInfo>& methods() const { return methods_; }
  /// Throws stereo::Error naming the known methods and backends when there is no such entry.
  [[nodiscard]] const BackendEntry& find(const std::string& method, const std::string& backend) const;
  [[nodiscard]] const std::vector<BackendEntry>& entries() const { return entries_; }
  /// Backends of `method`, in registration order.
  [[nodiscard]] std::vector<std::string> backends(const std::string& method) const;
  /// The matcher of `method` on `backend`, after checking that the backend is usable here
  /// (throws "<method>/<backend> is not available here: <reason>" when it is not). A
  /// ("preset", NAME) in `overrides` is expanded here (MethodInfo::expand_presets), once for
  /// every caller.
  [[nodiscard]] std::unique_ptr<Matcher> create(const std::string& method, const std::string& backend,
                                                const Overrides& overrides) const;
  /// Throws unless every backend's method has a MethodInfo and every MethodInfo at least one
  /// backend: a method cannot reach `list`, `eval` or `bench` without its paper's figures.
  void check_complete() const;

 private:
  std::vector<BackendEntry> entries_;
  std::vector<MethodInfo> methods_;
};

}  // namespace stereo
