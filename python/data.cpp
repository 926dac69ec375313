// The registry's tables and the data layer in Python: stereo.methods(), stereo.params(),
// scenes (load_scene, load_dataset, load_pair), evaluate() and error_map() as `stereo eval`
// scores, and the image files the CLI reads and writes.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/dataset.h"
#include "app/image_io.h"
#include "app/listing.h"
#include "app/measure.h"
#include "app/metrics.h"
#include "app/protocol.h"
#include "app/revision.h"
#include "core/error.h"
#include "methods/builtin.h"
#include "python/arrays.h"

namespace stereo::python {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
constexpr ErrorKind INPUT = ErrorKind::invalid_argument;

/// One "key = value  (doc)" line of a parameter table (Params::describe) as (key, default, doc);
/// the value is the JSON the binder prints, so a string default may hold anything but "  (".
std::optional<std::pair<std::string, py::dict>> parse_param_line(const std::string& line) {
  const auto eq = line.find(" = ");
  if (eq == std::string::npos) return std::nullopt;
  for (auto open = line.find("  (", eq + 3); open != std::string::npos; open = line.find("  (", open + 1)) {
    const json value = json::parse(line.substr(eq + 3, open - eq - 3), nullptr, false);
    if (value.is_discarded()) continue;
    std::string doc = line.substr(open + 3);
    if (!doc.empty() && doc.back() == ')') doc.pop_back();
    py::dict entry;
    entry["default"] = to_python(value);
    entry["doc"] = doc;
    return std::pair{line.substr(0, eq), entry};
  }
  return std::nullopt;
}

py::dict param_table(const json& lines) {
  py::dict table;
  for (const json& line : lines)
    if (auto row = parse_param_line(line.get<std::string>())) table[py::str(row->first)] = row->second;
  return table;
}

py::dict params_dict(const std::string& method) {
  const json j = cli::params_json(builtin_registry(), method);
  py::dict out;
  out["method"] = j["method"].get<std::string>();
  out["title"] = j["title"].get<std::string>();
  out["citation"] = j["citation"].get<std::string>();
  out["params"] = param_table(j["params"]);
  py::list backends;
  for (const json& b : j["backends"]) {
    py::dict row;
    row["backend"] = b["backend"].get<std::string>();
    row["available"] = b["available"].get<bool>();
    row["options"] = param_table(b["options"]);
    backends.append(row);
  }
  out["backends"] = backends;
  return out;
}

/// An image of the scene as a NumPy array over the scene's own memory (kept alive by `owner`).
template <class T>
py::object view(const Image<T>& image, const py::handle& owner) {
  if (image.empty()) return py::none();
  std::vector<py::ssize_t> shape{image.height, image.width};
  std::vector<py::ssize_t> strides{py::ssize_t(sizeof(T)) * image.width * image.channels,
                                   py::ssize_t(sizeof(T)) * image.channels};
  if (image.channels > 1) {
    shape.push_back(image.channels);
    strides.push_back(sizeof(T));
  }
  return py::array_t<T>(shape, strides, image.data.data(), owner);
}

ScoreProtocol protocol_of(const std::string& name) {
  require(name == "submitted" || name == "float",
          "evaluate: protocol must be 'submitted' or 'float', got '" + name + "'", INPUT);
  return parse_protocol(name);
}

/// The scene evaluate() and error_map() score against: a Scene as loaded, or a plain one made
/// of a ground-truth array (+inf or nan = unknown) and an optional mask of non-occluded pixels.
std::shared_ptr<const Scene> ground_truth_scene(const py::handle& ground_truth, const py::object& mask) {
  if (py::isinstance<Scene>(ground_truth)) {
    require(mask.is_none(), "evaluate: mask is for a ground-truth array; a Scene brings its own masks", INPUT);
    return ground_truth.cast<std::shared_ptr<Scene>>();
  }
  auto scene = std::make_shared<Scene>();
  scene->name = "ground_truth";
  scene->gt = to_image_f(ground_truth, "evaluate: ground_truth");
  scene->mask_all = ImageU8(scene->gt.width, scene->gt.height, 1);
  for (std::size_t i = 0; i < scene->gt.data.size(); ++i)
    scene->mask_all.data[i] = std::isfinite(scene->gt.data[i]) ? 255 : 0;
  if (!mask.is_none()) {
    const ImageF m = to_image_f(mask, "evaluate: mask");
    require(m.same_size(scene->gt.width, scene->gt.height),
            "evaluate: mask is " + std::to_string(m.width) + "x" + std::to_string(m.height) + ", ground truth " +
                std::to_string(scene->gt.width) + "x" + std::to_string(scene->gt.height),
            INPUT);
    scene->mask_nonocc = ImageU8(m.width, m.height, 1);
    for (std::size_t i = 0; i < m.data.size(); ++i) scene->mask_nonocc.data[i] = m.data[i] != 0.0f ? 255 : 0;
  }
  return scene;
}

py::object optional(const std::optional<double>& v) { return v ? py::object(py::float_(*v)) : py::none(); }

py::dict evaluate_py(const py::handle& disparity, const py::handle& ground_truth, const py::object& mask,
                     std::optional<double> threshold, const std::string& protocol) {
  const ScoreProtocol p = protocol_of(protocol);
  const ImageF map = to_image_f(disparity, "evaluate: disparity");
  const std::shared_ptr<const Scene> scene = ground_truth_scene(ground_truth, mask);
  Metrics m;
  {
    const py::gil_scoped_release unlocked;
    m = evaluate(scored_map(map, *scene, p), *scene, threshold.value_or(scene->default_threshold));
  }
  py::dict out;
  out["threshold"] = m.threshold;
  out["nonocc"] = optional(m.bad_nonocc);
  out["all"] = optional(m.bad_all);
  out["disc"] = optional(m.bad_disc);
  out["avg_error"] = optional(m.avg_error);
  out["density"] = m.density;
  out["d1_all"] = optional(m.d1_all);
  out["protocol"] = protocol;
  out["submission_rule"] = submission_rule(*scene).text;
  return out;
}

std::shared_ptr<Scene> load_scene_py(const fs::path& path) {
  const py::gil_scoped_release unlocked;
  return std::make_shared<Scene>(load_scene(resolve_dataset(path.string())));
}

}  // namespace

void bind_data(py::module_& m) {
  m.def(
      "methods", [] { return to_python(cli::list_json(builtin_registry())["methods"]); },
      R"doc(Every method of this build, as `stereo list --json` gives them: name, title, citation, the
paper's accuracy and speed figures, the parameter table and "backends" (backend, summary,
available, reason). Checking a GL backend's availability makes the process's GL context on
the calling thread (GL backends then run on that thread only).)doc");
  m.def("params", &params_dict, py::arg("method"),
        R"doc(The parameter table `stereo params -m METHOD` prints: method, title, citation, "params"
{key: {"default", "doc"}} (the paper's parameters, every backend binds them) and "backends",
each with "backend", "available" and its own "options" {key: {"default", "doc"}}. Any key of
either goes to stereo.Matcher(method, backend, key=value).)doc");

  py::class_<Scene, std::shared_ptr<Scene>>(m, "Scene", R"doc(
One rectified pair with the ground truth its format carries (stereo.load_scene). Images are
NumPy arrays over the scene's memory: left and right uint8 (H, W, 3); gt float32 (H, W) in
pixels, inf = unknown (None without ground truth); masks uint8 (H, W), 255 = evaluated (None
where the format has none).)doc")
      .def_readonly("name", &Scene::name)
      .def_property_readonly("kind", [](const Scene& s) { return std::string(to_string(s.kind)); },
                             "middlebury-v2, middlebury-v3, kitti or plain")
      .def_property_readonly("left", [](const py::object& self) { return view(self.cast<const Scene&>().left, self); })
      .def_property_readonly("right", [](const py::object& self) { return view(self.cast<const Scene&>().right, self); })
      .def_property_readonly("gt", [](const py::object& self) { return view(self.cast<const Scene&>().gt, self); })
      .def_property_readonly("mask_nonocc",
                             [](const py::object& self) { return view(self.cast<const Scene&>().mask_nonocc, self); })
      .def_property_readonly("mask_all",
                             [](const py::object& self) { return view(self.cast<const Scene&>().mask_all, self); })
      .def_property_readonly("mask_disc",
                             [](const py::object& self) { return view(self.cast<const Scene&>().mask_disc, self); })
      .def_readonly("levels", &Scene::levels, "disparity levels searched (min_disparity .. min_disparity+levels-1)")
      .def_readonly("min_disparity", &Scene::min_disparity)
      .def_readonly("default_threshold", &Scene::default_threshold, "the bad-pixel threshold of the format's evaluation")
      .def_property_readonly("submission_rule", [](const Scene& s) { return submission_rule(s).text; },
                             "how the format's benchmark received a map (the submitted protocol)")
      .def_property_readonly("has_ground_truth", &Scene::has_ground_truth)
      .def("__repr__", [](const Scene& s) {
        return "<stereo.Scene " + s.name + " (" + to_string(s.kind) + ") " + std::to_string(s.left.width) + "x" +
               std::to_string(s.left.height) + ", disparities " + cli::range_text(s.range()) + ">";
      });

  m.def("load_scene", &load_scene_py, py::arg("path"),
                    "One scene folder (Middlebury v2 or MiddEval3, KITTI), its layout detected from its files: a path, or a "
        "name under the data root (\"middlebury-v2/tsukuba\", installed by `stereo data get middlebury-v2`).");
  m.def(
      "load_dataset",
      [](const fs::path& path) {
        std::vector<Scene> scenes;
        {
          const py::gil_scoped_release unlocked;
          scenes = load_dataset(resolve_dataset(path.string()));
        }
        std::vector<std::shared_ptr<Scene>> out;
        for (Scene& s : scenes) out.push_back(std::make_shared<Scene>(std::move(s)));
        return out;
      },
      py::arg("path"),
      "A scene folder gives one scene; a folder of scene folders gives each, sorted by name. A path, or a name "
      "under the data root (\"middlebury-v2\").");
  m.def(
      "load_pair",
      [](const fs::path& left, const fs::path& right, int levels) {
        return std::make_shared<Scene>(load_pair(left, right, levels));
      },
      py::arg("left"), py::arg("right"), py::arg("levels"), "A plain pair of image files (no ground truth).");
  m.def("data_root", [] { return data_root().string(); },
        "The data root, where `stereo data get` installs datasets and names are looked up: $STEREO_DATA, else "
        "$XDG_DATA_HOME/stereo, else ~/.local/share/stereo.");
  m.def("evaluate", &evaluate_py, py::arg("disparity"), py::arg("ground_truth"), py::arg("mask") = py::none(),
        py::arg("threshold") = py::none(), py::arg("protocol") = "submitted",
        R"doc(Bad-pixel percentages of a disparity map, as `stereo eval` scores and prints them.

disparity: a float (H, W) map in pixels, inf = none. ground_truth: a stereo.Scene (its masks
and format: nonocc, all, disc for Middlebury v2, D1 for KITTI) or a float (H, W) array (inf or
nan = unknown; "all" counts every known pixel, "nonocc" the pixels where mask is non-zero).
threshold: |d - gt| > threshold is bad; None takes the format's (v2: 1, MiddEval3: 2).
protocol: "submitted" scores the map as the format's benchmark received it (Middlebury v2
rounded to its 8-bit scale), "float" as computed; `stereo eval` defaults to "submitted".
Returns threshold, nonocc, all, disc, avg_error, density, d1_all (None where the format has
no such figure), protocol and submission_rule.)doc");
  m.def(
      "error_map",
      [](const py::handle& disparity, const py::handle& ground_truth, std::optional<double> threshold,
         const std::string& protocol) {
        const ScoreProtocol p = protocol_of(protocol);
        const ImageF map = to_image_f(disparity, "error_map: disparity");
        const std::shared_ptr<const Scene> scene = ground_truth_scene(ground_truth, py::none());
        return to_numpy(error_map(scored_map(map, *scene, p), *scene, threshold.value_or(scene->default_threshold)));
      },
      py::arg("disparity"), py::arg("ground_truth"), py::arg("threshold") = py::none(),
      py::arg("protocol") = "submitted",
      "The error picture `stereo eval --out` writes (uint8 (H, W, 3)): grey where correct, red where bad over "
      "non-occluded pixels, orange where bad elsewhere, black without ground truth.");
  m.def(
      "read_image",
      [](const fs::path& path, bool rgb) {
        ImageU8 image = read_image(path);
        return to_numpy(rgb ? to_rgb(image) : std::move(image));
      },
      py::arg("path"), py::arg("rgb") = false,
      "An 8-bit image file (PNG, PPM/PGM, JPEG, BMP, TGA) as uint8 (H, W) or (H, W, 3); rgb=True expands grey to "
      "RGB as `stereo run` does.");
  m.def(
      "read_pfm", [](const fs::path& path) { return to_numpy(read_pfm(path)); }, py::arg("path"),
      "A PFM disparity map (as `stereo run -o` writes it) as float32 (H, W), inf = none.");
  m.def(
      "write_pfm",
      [](const fs::path& path, const py::handle& disparity) { write_pfm(path, to_image_f(disparity, "write_pfm")); },
      py::arg("path"), py::arg("disparity"), "Writes a float (H, W) map as PFM (non-finite values as inf).");
  m.def("revision", &source_revision, "The source revision the module was built from (git describe).");
}

}  // namespace stereo::python
