#pragma once
/// \file app/view/viewer_state.h
/// The viewer's state and logic, apart from any drawing: the input, the method, backend, level
/// count and parameters in force, the last good result with its figures, and the one-line error
/// of the last change that failed. Every widget of the window turns into a Change handed to
/// apply(), so tests drive the very code path the widgets use without a window.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/metrics.h"
#include "app/view/view_input.h"
#include "core/image_view.h"
#include "core/matcher.h"
#include "core/params.h"

namespace stereo::gl {
class Texture;
}  // namespace stereo::gl

namespace stereo::view {

/// Where a CUDA backend writes its map for the window without the host (the CUDA-GL interop of
/// app/view/cuda_interop.h): map() lends a `width` x `height` float map in CUDA memory, unmap()
/// gives it back, handing what was written to GL when `written` (a failed run leaves the map
/// the window shows as it was).
class DeviceMapTarget {
 public:
  virtual ~DeviceMapTarget() = default;
  virtual DisparityView map(int width, int height) = 0;
  virtual void unmap(bool written) = 0;
  /// `eval`'s figures of the map of the last unmap(true) against `scene` at `threshold`, scored
  /// where the map is, with its error picture kept there for the window (error_texture()).
  /// `scene_key` changes whenever the scene does.
  struct Figures {
    std::optional<Metrics> metrics;  ///< none where this target cannot score the scene
    std::string why_none;            ///< why, then
    double pass_ms = 0.0;            ///< the scoring, host clock
    double upload_ms = 0.0;          ///< the scene's upload (0 when the key was the last one's)
  };
  virtual Figures evaluate(const Scene& scene, double threshold, std::uint64_t scene_key) {
    (void)scene, (void)threshold, (void)scene_key;
    return {std::nullopt, "the figures need the map on the host", 0.0, 0.0};
  }
  /// The error picture of the last evaluate() that gave figures (a GL texture), if any.
  [[nodiscard]] virtual const gl::Texture* error_texture() const { return nullptr; }
};

/// One user action: what a widget, a key or a test asks for.
struct Change {
  enum class What { method, backend, levels, min_disparity, param, frame, open, cost_volume, passes };
  What what = What::param;
  std::string key;    ///< param: the key; method, backend: the name; open: the first path
  std::string value;  ///< param: the value as `--set` takes it; open: the second path (or "")
  long number = 0;    ///< levels, min_disparity, frame; cost_volume, passes: 1 on, 0 off

  static Change method(std::string name) { return {What::method, std::move(name), {}, 0}; }
  static Change backend(std::string name) { return {What::backend, std::move(name), {}, 0}; }
  static Change levels(long n) { return {What::levels, {}, {}, n}; }
  static Change min_disparity(long d) { return {What::min_disparity, {}, {}, d}; }
  static Change param(std::string key, std::string value) { return {What::param, std::move(key), std::move(value), 0}; }
  static Change frame(long index) { return {What::frame, {}, {}, index}; }
  static Change open(std::string a, std::string b) { return {What::open, std::move(a), std::move(b), 0}; }
  static Change cost_volume(bool on) { return {What::cost_volume, {}, {}, on ? 1 : 0}; }
  static Change passes(bool on) { return {What::passes, {}, {}, on ? 1 : 0}; }
};

/// The matcher's choice: what `stereo run -m -b -d --min-disparity --set` takes.
struct Choice {
  std::string method;
  std::string backend = "cpu";
  int levels = 0;  ///< 0: the input's (a scene's own, 64 for a pair)
  int min_disparity = 0;
  Overrides overrides;  ///< in the order given; a later value of a key wins
};

/// One parameter as a widget shows it: the method's (Params) or the backend's (Options).
struct ParamRow {
  std::string key;
  nlohmann::json value;               ///< in force now: number, bool or string
  std::string doc;
  std::vector<std::string> choices;   ///< a choice's allowed values; empty otherwise
  bool backend_option = false;
};

/// The last good run and what the window derives from it.
struct ViewResult {
  std::uint64_t serial = 0;   ///< grows with every run, so a drawer knows to upload again
  std::uint64_t views_serial = 0;  ///< grows when the pair shown changes (a frame, another input)
  std::uint64_t scene_key = 0;     ///< names the pair shown; never reused for another
  std::size_t frame = 0;
  DisparityRange range;
  int width = 0, height = 0;
  Timing timing;
  /// The map on the host (every backend but a CUDA one writing through a DeviceMapTarget).
  std::optional<ImageF> disparity;
  bool on_device = false;     ///< the map is in the DeviceMapTarget, never on the host
  std::optional<Metrics> metrics;       ///< `eval`'s figures, where there is ground truth
  std::optional<ImageU8> error_map;     ///< its picture, for a host map
  bool error_on_device = false;         ///< the picture is the DeviceMapTarget's (on_device)
  double figures_ms = 0.0;              ///< the GPU's scoring pass, host clock (error_on_device)
  double figures_upload_ms = 0.0;       ///< its upload of the scene (0 when the scene was the last one's)
  std::string no_figures;               ///< why a scene with ground truth has no figures
  std::optional<DisparitySpaceImage> dsi;  ///< after Change::cost_volume(true), where the backend has one
  std::string device;
  nlohmann::json params;
};

/// Makes the matcher of a choice; the default is the registry's (create_matcher). Tests hand
/// in matchers of their own (a pass inspector before any backend has one).
using MatcherFactory = std::function<std::unique_ptr<Matcher>(const Choice&)>;

class ViewerState {
 public:
  /// Does not run yet: start() does, so that a window can lend its DeviceMapTarget first.
  ViewerState(ViewInput input, Choice choice, MatcherFactory factory = {});
  ~ViewerState();
  ViewerState(const ViewerState&) = delete;
  ViewerState& operator=(const ViewerState&) = delete;

  /// The first run; false (and error()) when it fails, with nothing to show yet.
  bool start() { return rerun(); }
  /// Applies `c` and re-runs. On any failure (a file that does not load, a parameter out of
  /// range, a level count the method refuses, a backend with no device) returns false, sets
  /// error() to the one line the CLI would print, and keeps the choice, the input and the last
  /// good result as they were.
  bool apply(const Change& c);
  /// Runs the current choice on the current pair again.
  bool rerun();
  /// The next frame of a sequence (wrapping when `loop`); false at the end or on an error.
  bool step(bool loop);

  /// Whether a sequence may play through a SequencePlayer on the matcher of the last run: a
  /// sequence, a last good run, not a GL backend (its context is the window thread's), no cost
  /// volume and no passes kept (both come from compute() alone).
  [[nodiscard]] bool can_play_pipelined() const;
  /// Shows frame `index` as a SequencePlayer matched it on this state's matcher over range():
  /// the pair (when the player kept its images) and the result, as a run of it sets them.
  void show_played(std::size_t index, Scene scene, const DisparityMap& map, Timing timing);
  /// A played sequence stopped on `line` (a frame that failed): error() says it; the last good
  /// result stays.
  void report(std::string line) { error_ = std::move(line); }

  /// Used for CUDA backends from then on (nullptr: the host path). Not owned.
  void set_device_target(DeviceMapTarget* target) { device_target_ = target; }

  [[nodiscard]] const ViewInput& input() const { return input_; }
  [[nodiscard]] const Choice& choice() const { return choice_; }
  [[nodiscard]] DisparityRange range() const;
  [[nodiscard]] const ViewResult* result() const { return result_ ? &*result_ : nullptr; }
  /// "" when the last change succeeded.
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] bool cost_volume() const { return cost_volume_; }
  [[nodiscard]] bool passes() const { return passes_; }
  /// The matcher of the last good run (nullptr before one): for what works on a matcher after a
  /// run, as `--dump-passes` will (app/passes.h's dump_passes).
  [[nodiscard]] Matcher* matcher() const { return matcher_.get(); }
  /// The matcher's passes of the last run (core/inspect.h), or nullptr where it keeps none.
  [[nodiscard]] PassInspector* inspector() const;
  /// Why the current backend shows no passes ("" when it does or none were asked).
  [[nodiscard]] const std::string& passes_note() const { return passes_note_; }

  /// Every registered method, and the backends of the current one (`stereo list`'s).
  [[nodiscard]] static std::vector<std::string> methods();
  [[nodiscard]] std::vector<std::string> backends() const;
  /// The method's parameters, then the backend's options, from the registry's tables
  /// (Params::describe(), BackendEntry::describe_options) with the values in force.
  [[nodiscard]] std::vector<ParamRow> params() const;

 private:
  struct Attempt;
  bool run(Attempt attempt);

  ViewInput input_;
  Choice choice_;
  MatcherFactory factory_;
  std::unique_ptr<Matcher> matcher_;
  std::string matcher_key_;  // what matcher_ was made for: method, backend, overrides, cost volume, passes
  std::optional<ViewResult> result_;
  std::uint64_t serial_ = 0;
  std::uint64_t views_serial_ = 0;
  std::uint64_t scene_keys_ = 0;  // the last ViewResult::scene_key given
  std::string error_;
  bool cost_volume_ = false;
  bool passes_ = false;
  std::string passes_note_;
  DeviceMapTarget* device_target_ = nullptr;
};

}  // namespace stereo::view
