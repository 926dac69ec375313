// The viewer's logic: every change is tried on a copy of the choice and committed only when the
// run succeeds, so a bad input leaves the window showing the last good result.

#include "app/view/viewer_state.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <utility>

#include "app/protocol.h"
#include "core/error.h"
#include "core/registry.h"
#include "methods/builtin.h"

namespace stereo::view {

struct ViewerState::Attempt {
  Choice choice;
  std::optional<ViewInput> input;  // Change::open: the new input, adopted when its run succeeds
  bool cost_volume = false;
  bool passes = false;
  bool new_views = false;  // Change::frame moved the input to another pair
};

namespace {

// The largest level count the window accepts before the method sees it: past this, a level
// count is a typing slip, not a search (a method refuses what it cannot do itself).
constexpr long MAX_LEVELS = 4096;

// Unmaps the device target however the run leaves (GL must get its buffer back); only a run
// that wrote the map hands it on.
class Unmap {
 public:
  explicit Unmap(DeviceMapTarget& t) : target_(t) {}
  ~Unmap() {
    if (done_) return;
    try {
      target_.unmap(false);
    } catch (...) {
      // Unwinding already: the run's own error is the one the window shows.
    }
  }
  Unmap(const Unmap&) = delete;
  Unmap& operator=(const Unmap&) = delete;
  void written() {
    done_ = true;
    target_.unmap(true);
  }

 private:
  DeviceMapTarget& target_;
  bool done_ = false;
};

void set_override(Overrides& overrides, const std::string& key, const std::string& value) {
  overrides.erase(std::remove_if(overrides.begin(), overrides.end(), [&](const auto& kv) { return kv.first == key; }),
                  overrides.end());
  overrides.emplace_back(key, value);
}

// "a|b|c" from the end of a choice's doc ("... (a|b|c)"), as ParamBinder::choice writes it.
std::vector<std::string> choices_of(const std::string& doc) {
  std::vector<std::string> out;
  const auto open = doc.rfind('(');
  if (open == std::string::npos || doc.empty() || doc.back() != ')') return out;
  const std::string list = doc.substr(open + 1, doc.size() - open - 2);
  if (list.find('|') == std::string::npos) return out;
  std::size_t start = 0;
  for (std::size_t bar; (bar = list.find('|', start)) != std::string::npos; start = bar + 1)
    out.push_back(list.substr(start, bar - start));
  out.push_back(list.substr(start));
  return out;
}

std::string matcher_key(const Choice& c, bool cost_volume, bool passes) {
  nlohmann::json j = {c.method, c.backend, cost_volume, passes};
  for (const auto& [k, v] : c.overrides) j.push_back(k + "=" + v);
  return j.dump();
}

}  // namespace

ViewerState::ViewerState(ViewInput input, Choice choice, MatcherFactory factory)
    : input_(std::move(input)), choice_(std::move(choice)), factory_(std::move(factory)) {
  if (!factory_)
    factory_ = [](const Choice& c) { return create_matcher(c.method, c.backend, c.overrides); };
}

ViewerState::~ViewerState() = default;

DisparityRange ViewerState::range() const {
  const Scene& s = input_.current();
  return {choice_.levels > 0 || s.levels <= 0 ? choice_.min_disparity : s.min_disparity,
          choice_.levels > 0 ? choice_.levels : s.levels};
}

std::vector<std::string> ViewerState::methods() {
  std::vector<std::string> out;
  for (const MethodInfo& m : builtin_registry().methods()) out.push_back(m.name);
  return out;
}

std::vector<std::string> ViewerState::backends() const { return builtin_registry().backends(choice_.method); }

std::vector<ParamRow> ViewerState::params() const {
  const Registry& reg = builtin_registry();
  const nlohmann::json in_force = result_ ? result_->params : nlohmann::json::object();
  std::vector<ParamRow> rows;
  const auto add = [&](const std::string& table, bool option) {
    for (ParamDoc& d : parse_param_table(table)) {
      ParamRow row{d.key, d.value, d.doc, choices_of(d.doc), option};
      if (in_force.is_object() && in_force.contains(d.key)) row.value = in_force[d.key];
      rows.push_back(std::move(row));
    }
  };
  add(reg.method(choice_.method).describe_params(), false);
  const BackendEntry& entry = reg.find(choice_.method, choice_.backend);
  if (entry.describe_options) add(entry.describe_options(), true);
  return rows;
}

PassInspector* ViewerState::inspector() const { return passes_ && matcher_ ? matcher_->inspector() : nullptr; }

bool ViewerState::apply(const Change& c) {
  Attempt a{choice_, std::nullopt, cost_volume_, passes_};
  try {
    switch (c.what) {
      case Change::What::method: {
        (void)builtin_registry().method(c.key);  // throws, naming the known methods, for an unknown one
        const std::vector<std::string> names = builtin_registry().backends(c.key);
        a.choice.method = c.key;
        a.choice.overrides.clear();  // another method's keys mean nothing here
        if (std::find(names.begin(), names.end(), a.choice.backend) == names.end()) a.choice.backend = names.front();
        break;
      }
      case Change::What::backend:
        a.choice.backend = c.key;
        // The options of the backend left behind are not this one's; the method's parameters stay.
        a.choice.overrides.erase(std::remove_if(a.choice.overrides.begin(), a.choice.overrides.end(),
                                                [&](const auto& kv) {
                                                  for (const ParamRow& r : params())
                                                    if (r.key == kv.first) return r.backend_option;
                                                  return false;
                                                }),
                                 a.choice.overrides.end());
        break;
      case Change::What::levels:
        require(c.number > 0 && c.number <= MAX_LEVELS,
                "view: level count " + std::to_string(c.number) + " is outside 1.." + std::to_string(MAX_LEVELS),
                ErrorKind::invalid_argument);
        if (a.choice.levels == 0) a.choice.min_disparity = range().min;  // a scene's own smallest disparity stays
        a.choice.levels = static_cast<int>(c.number);
        break;
      case Change::What::min_disparity:
        require(c.number > std::numeric_limits<int>::min() / 2 && c.number < std::numeric_limits<int>::max() / 2,
                "view: smallest disparity " + std::to_string(c.number) + " is out of range", ErrorKind::invalid_argument);
        if (a.choice.levels == 0) a.choice.levels = range().count;  // the range is the user's from now on
        a.choice.min_disparity = static_cast<int>(c.number);
        break;
      case Change::What::param:
        set_override(a.choice.overrides, c.key, c.value);
        break;
      case Change::What::frame:
        require(c.number >= 0, "view: frame " + std::to_string(c.number) + " does not exist", ErrorKind::invalid_argument);
        input_.go_to(static_cast<std::size_t>(c.number));  // the frame shown; throws, unchanged, when it cannot be read
        a.new_views = true;
        break;
      case Change::What::open:
        a.input.emplace(ViewInput::open(c.key, c.value, choice_.levels, choice_.min_disparity, ""));
        break;
      case Change::What::cost_volume:
        a.cost_volume = c.number != 0;
        break;
      case Change::What::passes:
        a.passes = c.number != 0;
        break;
    }
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
  return run(std::move(a));
}

bool ViewerState::rerun() { return run({choice_, std::nullopt, cost_volume_, passes_}); }

bool ViewerState::step(bool loop) {
  std::size_t next = input_.frame() + 1;
  if (next >= input_.frame_count()) {
    if (!loop) return false;
    next = 0;
  }
  return apply(Change::frame(static_cast<long>(next)));
}

namespace {
// The figures `eval` prints by default, where the scene has ground truth and the map is on the
// host: the map as the format's benchmark received it, its bad pixels and error map.
void add_figures(ViewResult& r, const Scene& scene) {
  if (!r.disparity || !scene.has_ground_truth()) return;
  const ImageF scored = scored_map(*r.disparity, scene, ScoreProtocol::submitted);
  r.metrics = evaluate(scored, scene, scene.default_threshold);
  r.error_map = error_map(scored, scene, scene.default_threshold);
}
}  // namespace

bool ViewerState::can_play_pipelined() const {
  return input_.is_file_sequence() && matcher_ && result_ &&
         choice_.backend != "gl" && choice_.backend != "glcompute" && !cost_volume_ && !passes_;
}

void ViewerState::show_played(std::size_t index, Scene scene, const DisparityMap& map, Timing timing) {
  ViewResult r;
  const bool new_views = !scene.left.empty();
  input_.show(index, std::move(scene));
  const Scene& shown = input_.current();
  r.frame = index;
  r.range = range();
  r.width = map.width;
  r.height = map.height;
  r.timing = std::move(timing);
  r.disparity = map.to_float();
  if (new_views) add_figures(r, shown);
  // From the last run, not the matcher: the player's thread may be using it right now.
  r.device = result_ ? result_->device : std::string();
  r.params = result_ ? result_->params : nlohmann::json();
  r.serial = ++serial_;
  r.views_serial = new_views ? ++views_serial_ : views_serial_;
  r.scene_key = new_views || !result_ ? ++scene_keys_ : result_->scene_key;
  result_ = std::move(r);
  error_.clear();
}

bool ViewerState::run(Attempt a) {
  try {
    const ViewInput& in = a.input ? *a.input : input_;
    const Scene& scene = in.current();
    const DisparityRange range{a.choice.levels > 0 || scene.levels <= 0 ? a.choice.min_disparity : scene.min_disparity,
                               a.choice.levels > 0 ? a.choice.levels : scene.levels};
    const std::string key = matcher_key(a.choice, a.cost_volume, a.passes);
    std::unique_ptr<Matcher> fresh;
    std::string note = passes_note_;
    if (!matcher_ || key != matcher_key_) {
      fresh = factory_(a.choice);
      if (a.cost_volume) fresh->request_cost_volume(true);  // throws, naming the backend, where there is none
      note.clear();
      if (a.passes) {
        try {
          fresh->keep_passes(true);
        } catch (const Error& e) {
          note = e.what();  // not an error of the change: the panel says why it is empty
        }
      }
    }
    Matcher& m = fresh ? *fresh : *matcher_;
    ViewResult r;
    r.frame = in.frame();
    r.range = range;
    r.width = scene.left.width;
    r.height = scene.left.height;
    // The interop path keeps the map on the GPU; a cost volume comes with compute() only.
    if (a.choice.backend == "cuda" && device_target_ != nullptr && !a.cost_volume) {
      const DisparityView out = device_target_->map(scene.left.width, scene.left.height);
      Unmap unmap(*device_target_);
      r.timing = m.compute_into(ImageView(scene.left), ImageView(scene.right), range, out);
      unmap.written();
      r.on_device = true;
    } else {
      StereoResult sr = m.compute(scene.left, scene.right, range);
      r.timing = std::move(sr.timing);
      r.disparity = std::move(sr.disparity);
      r.dsi = std::move(sr.dsi);
    }
    r.views_serial = a.input || a.new_views || !result_ ? views_serial_ + 1 : views_serial_;
    // A key never given to another scene, even by an attempt that failed after using it.
    r.scene_key = r.views_serial != views_serial_ || !result_ ? ++scene_keys_ : result_->scene_key;
    if (r.on_device && scene.has_ground_truth()) {  // scored where the map is
      DeviceMapTarget::Figures f = device_target_->evaluate(scene, scene.default_threshold, r.scene_key);
      r.metrics = std::move(f.metrics);
      r.error_on_device = r.metrics.has_value();
      r.no_figures = std::move(f.why_none);
      r.figures_ms = f.pass_ms;
      r.figures_upload_ms = f.upload_ms;
    }
    add_figures(r, scene);
    r.device = m.device();
    r.params = m.params();
    r.serial = ++serial_;
    // Commit: nothing above changed the state.
    if (fresh) {
      matcher_ = std::move(fresh);
      matcher_key_ = key;
    }
    if (a.input) input_ = std::move(*a.input);
    choice_ = std::move(a.choice);
    cost_volume_ = a.cost_volume;
    passes_ = a.passes;
    passes_note_ = std::move(note);
    views_serial_ = r.views_serial;
    result_ = std::move(r);
    error_.clear();
    return true;
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
}

}  // namespace stereo::view
