// stereo.Matcher (python/matcher.h).

#include "python/matcher.h"

#include <pybind11/stl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/measure.h"
#include "core/error.h"
#include "core/gpu_select.h"
#include "core/matcher.h"
#include "methods/builtin.h"
#include "python/arrays.h"
#include "python/cuda_io.h"
#include "python/views.h"

namespace stereo::python {
namespace {

constexpr ErrorKind INPUT = ErrorKind::invalid_argument;

/// A keyword argument as the text `--set key=value` would carry: bools as true/false (NumPy's
/// too), numbers as str() writes them (the shortest text that reads back to the same value).
std::string override_text(const std::string& component, const std::string& key, const py::handle& value) {
  if (py::isinstance<py::bool_>(value) || py::isinstance(value, py::module_::import("numpy").attr("bool_")))
    return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  const py::object numbers = py::module_::import("numbers");
  if (py::isinstance(value, numbers.attr("Integral")) || py::isinstance(value, numbers.attr("Real")))
    return py::str(value).cast<std::string>();
  throw py::type_error(component + ": parameter " + key + " must be a number, a bool or a str, got " +
                       py::str(py::type::of(value)).cast<std::string>());
}

/// What one compute() read of an image, kept as plain values: last_input builds its dict only
/// when asked, so a call pays for no Python objects beyond its result.
struct InputRecord {
  std::string source;
  Pixels pixels;
  bool copied = false;
};

struct CallRecord {
  InputRecord left, right;
  std::size_t host_copy_bytes = 0, device_copy_bytes = 0;
};

py::dict input_report(const InputRecord& in) {
  py::dict d;
  d["source"] = in.source;
  d["memory"] = in.pixels.residence == Residence::cuda ? "cuda:" + std::to_string(in.pixels.device) : std::string("host");
  d["layout"] = in.pixels.layout();
  d["copied"] = in.copied;
  return d;
}

std::string size_text(const InputImage& in) { return std::to_string(in.width) + "x" + std::to_string(in.height); }

class PyMatcher {
 public:
  PyMatcher(std::string method, std::string backend, int levels, int min_disparity, std::optional<int> device,
            const py::kwargs& params)
      : method_(std::move(method)), backend_(std::move(backend)), range_{min_disparity, levels} {
    check_levels(levels);  // at construction, as `stereo run -d 0` fails before any work
    Overrides overrides;
    for (const auto& [key, value] : params) {
      const std::string k = py::str(key).cast<std::string>();
      overrides.emplace_back(k, override_text(method_ + "/" + backend_, k, value));
    }
    // The GPU of the process, as the CLI's --device sets it (CUDA matchers read it when made,
    // the GL context when it is made, once per process); left as it was when no matcher comes.
    const char* before = std::getenv(GPU_ENV);
    const std::optional<std::string> previous = before ? std::optional<std::string>(before) : std::nullopt;
    if (device) request_gpu(*device);
    try {
      const py::gil_scoped_release unlocked;
      matcher_ = create_matcher(method_, backend_, overrides);
    } catch (...) {
      if (device) previous ? (void)setenv(GPU_ENV, previous->c_str(), 1) : (void)unsetenv(GPU_ENV);
      throw;
    }
  }

  py::object compute(const py::handle& left_object, const py::handle& right_object, const std::string& out,
                     const std::string& order) {
    const auto entered = std::chrono::steady_clock::now();
    const std::string component = check_out(out);
    const ChannelOrder channel_order = check_order(order, component);
    // Both held (with what keeps their memory) until this call returns, released with the GIL.
    const InputImage left = read_input(left_object, component, "left");
    const InputImage right = read_input(right_object, component, "right");
    std::unique_ptr<DeviceArray> device_map;
    StereoResult result;
    std::chrono::steady_clock::time_point call_start, call_end;
    CallRecord record{{left.source, left, false}, {right.source, right, false}};
    {
      const py::gil_scoped_release unlocked;
      // Python threads may share this object; the matcher itself is not reentrant.
      const std::lock_guard<std::mutex> lock(busy_);
      InputView l = view_input(left, backend_ == "cuda", component + ": left");
      InputView r = view_input(right, backend_ == "cuda", component + ": right");
      l.view.order = r.view.order = channel_order;
      record.left.copied = l.host_copy_bytes + l.device_copy_bytes != 0;
      record.right.copied = r.host_copy_bytes + r.device_copy_bytes != 0;
      record.host_copy_bytes = l.host_copy_bytes + r.host_copy_bytes;
      record.device_copy_bytes = l.device_copy_bytes + r.device_copy_bytes;
      guard_host_memory(left, [&] {
        if (out == "cuda") device_map = std::make_unique<DeviceArray>(left.height, left.width, ordinal());
        // The C++ call alone, timed for the overhead benchmark (stereo._testing.last_call_phases).
        call_start = std::chrono::steady_clock::now();
        if (device_map)
          result.timing = matcher_->compute_into(l.view, r.view, range_, device_map->view());
        else
          result = matcher_->compute(l.view, r.view, range_);
        call_end = std::chrono::steady_clock::now();
      });
      const std::lock_guard<std::mutex> timing_lock(timing_mutex_);
      last_timing_ = result.timing;
    }
    py::object map = device_map ? py::cast(std::move(device_map)) : py::object(to_numpy(std::move(result.disparity)));
    last_input_ = std::move(record);
    const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    last_phases_ = {ms(entered, call_start), ms(call_start, call_end), ms(call_end, std::chrono::steady_clock::now()),
                    left.producer_ms + right.producer_ms};
    return map;
  }

  /// Wall time (ms) of `runs` C++ calls of what compute() calls (Matcher::compute on the views,
  /// or compute_into one DeviceArray for out="cuda") over the same buffers, the views made once:
  /// the overhead benchmark's baseline (tests/python/bench_overhead.py), measured in the same
  /// process as the Python calls.
  std::vector<double> time_cpp(const py::handle& left_object, const py::handle& right_object, int runs,
                               const std::string& out) {
    const std::string component = check_out(out);
    const InputImage left = read_input(left_object, component, "left");
    const InputImage right = read_input(right_object, component, "right");
    std::vector<double> ms;
    const py::gil_scoped_release unlocked;
    const std::lock_guard<std::mutex> lock(busy_);
    const InputView l = view_input(left, backend_ == "cuda", component + ": left");
    const InputView r = view_input(right, backend_ == "cuda", component + ": right");
    const std::unique_ptr<DeviceArray> device_map =
        out == "cuda" ? std::make_unique<DeviceArray>(left.height, left.width, ordinal()) : nullptr;
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      if (device_map)
        (void)matcher_->compute_into(l.view, r.view, range_, device_map->view());
      else
        (void)matcher_->compute(l.view, r.view, range_);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return ms;
  }

  [[nodiscard]] py::object last_timing() const {
    std::optional<Timing> timing;
    {
      const std::lock_guard<std::mutex> lock(timing_mutex_);
      timing = last_timing_;
    }
    if (!timing) return py::none();
    return to_python(cli::timing_json(*timing));
  }
  [[nodiscard]] py::object last_input() const {
    if (!last_input_) return py::none();
    py::dict d;
    d["left"] = input_report(last_input_->left);
    d["right"] = input_report(last_input_->right);
    d["host_copy_bytes"] = last_input_->host_copy_bytes;
    d["device_copy_bytes"] = last_input_->device_copy_bytes;
    return d;
  }
  [[nodiscard]] const std::string& method() const { return method_; }
  /// The last compute() in ms, timed in C++: its binding work before the Matcher call (reading
  /// the arrays, the views, the GIL release, an out="cuda" allocation), the Matcher call alone,
  /// and the binding work after it (the GIL taken back, the map wrapped).
  struct Phases {
    double before = 0.0, call = 0.0, after = 0.0;
    double producer = 0.0;  ///< of `before`: the inputs' producers' own protocol calls
  };
  [[nodiscard]] const Phases& last_phases() const { return last_phases_; }
  [[nodiscard]] const std::string& backend() const { return backend_; }
  [[nodiscard]] int levels() const { return range_.count; }
  void set_levels(int levels) {
    check_levels(levels);
    range_.count = levels;
  }
  [[nodiscard]] int min_disparity() const { return range_.min; }
  void set_min_disparity(int min) { range_.min = min; }
  [[nodiscard]] const Matcher& matcher() const { return *matcher_; }

  [[nodiscard]] std::string repr() const {
    return "stereo.Matcher('" + method_ + "', backend='" + backend_ + "', levels=" + std::to_string(range_.count) +
           ", min_disparity=" + std::to_string(range_.min) + ")";
  }

 private:
  void check_levels(int levels) const {
    require(levels >= 1, method_ + "/" + backend_ + ": disparity levels must be >= 1, got " + std::to_string(levels),
            ErrorKind::invalid_argument);
  }

  /// The component, after checking `out` against the backend.
  std::string check_out(const std::string& out) const {
    std::string component = matcher_->component();
    require(out == "numpy" || out == "cuda",
            [&] { return component + ": out must be 'numpy' or 'cuda', got '" + out + "'"; }, INPUT);
    require(out == "numpy" || backend_ == "cuda",
            [&] { return component + ": out='cuda' keeps the map in CUDA memory, which needs a cuda backend"; },
            INPUT);
    return component;
  }

  /// compute()'s `order` as the views carry it: "rgb" or "bgr" (OpenCV's cv2.imread).
  static ChannelOrder check_order(const std::string& order, const std::string& component) {
    require(order == "rgb" || order == "bgr",
            [&] { return component + ": order must be 'rgb' or 'bgr', got '" + order + "'"; }, INPUT);
    return order == "bgr" ? ChannelOrder::bgr : ChannelOrder::rgb;
  }

  /// The CUDA ordinal the matcher runs on (cuda backends).
  [[nodiscard]] int ordinal() const { return matcher_->device_info().value("ordinal", 0); }

  /// Runs `match`, a host allocation that fails (a CPU backend's volume) turned into the
  /// out-of-memory error that names the problem's size.
  template <class F>
  void guard_host_memory(const InputImage& left, F&& match) const {
    const std::string component = matcher_->component();
    try {
      match();
    } catch (const std::bad_alloc&) {
      const double volume_mib = double(left.width) * double(left.height) * double(range_.count) * 4.0 / (1024.0 * 1024.0);
      char text[64];
      std::snprintf(text, sizeof text, "%.1f", volume_mib);
      throw Error(component + ": out of host memory for " + size_text(left) + " with " + std::to_string(range_.count) +
                      " levels (a float32 volume of that size takes " + text + " MiB)",
                  ErrorKind::out_of_memory);
    } catch (const std::length_error&) {
      throw Error(component + ": " + size_text(left) + " with " + std::to_string(range_.count) +
                      " levels needs more host memory than an allocation can hold",
                  ErrorKind::out_of_memory);
    }
  }

  std::unique_ptr<Matcher> matcher_;
  std::string method_, backend_;
  DisparityRange range_;
  std::mutex busy_;                   // held through a match
  mutable std::mutex timing_mutex_;   // held only to copy last_timing_ in or out
  std::optional<Timing> last_timing_;
  std::optional<CallRecord> last_input_;
  Phases last_phases_;
};

/// The class docstring: the constructor, then every method's parameters from the registry.
std::string matcher_doc() {
  std::string doc = R"doc(Matcher(method, backend="cpu", levels=64, min_disparity=0, device=None, **params)

One stereo method on one backend, searching disparities min_disparity .. min_disparity+levels-1.

  method         a method name (stereo.methods(); `stereo list`)
  backend        "cpu", "gl", "glcompute", "cuda" or "opencv", as the method has them
  levels         the number of disparities searched
  min_disparity  the smallest disparity searched (may be negative)
  device         the GPU (a CUDA ordinal) for cuda and GL backends; sets STEREO_DEVICE for the
                 process as the CLI's --device does (the GL context, made once per process,
                 stays on the GPU it was made on)
  **params       the method's parameters and the backend's options, as `stereo run --set
                 key=value` takes them (stereo.params(method) lists both, with defaults)

compute(left, right, out="numpy", order="rgb") matches a pair: uint8 arrays of shape (H, W) or (H, W, 3),
NumPy arrays of any strides, objects with __dlpack__ or __cuda_array_interface__ (PyTorch and
CuPy arrays; CUDA memory on a cuda backend, which reads it in place), and returns the
disparity of the left view in pixels as a float32 (H, W) NumPy array, inf where the method
gives none (as `stereo run` writes its PFM); out="cuda" writes it into CUDA memory (a
stereo.DeviceArray; cuda backends). Interleaved pixels with any row pitch are read where they
lie; other layouts are copied once. The GIL is released while it runs. last_timing holds the
run's timing (ms) and last_input what the call read and copied.

Errors raise ValueError (shapes, dtypes, ranges, sizes, parameters), RuntimeError (no device
or context, or a GL matcher used from a thread other than the one that made the process's GL
context) and MemoryError (a volume that does not fit), with the text the CLI prints.

Parameters of each method (key = default  (source)):
)doc";
  for (const MethodInfo& info : builtin_registry().methods()) {
    doc += "\n" + info.name + " (" + info.title + "):\n";
    if (info.describe_params) doc += info.describe_params();
  }
  doc += "\nBackend options: stereo.params(method)[\"backends\"].\n";
  return doc;
}

}  // namespace

void bind_matcher(py::module_& m) {
  py::class_<PyMatcher>(m, "Matcher", matcher_doc().c_str())
      .def(py::init([](std::string method, std::string backend, int levels, int min_disparity,
                       std::optional<int> device, const py::kwargs& params) {
             return std::make_unique<PyMatcher>(std::move(method), std::move(backend), levels, min_disparity, device,
                                                params);
           }),
           py::arg("method"), py::arg("backend") = "cpu", py::arg("levels") = 64, py::arg("min_disparity") = 0,
           py::arg("device") = py::none())
      .def("compute", &PyMatcher::compute, py::arg("left"), py::arg("right"), py::arg("out") = "numpy",
           py::arg("order") = "rgb",
           R"doc(The disparity map of the pair (left is the reference view).

left, right: uint8 (H, W) grey or (H, W, 3) colour, equal shapes, both in host or both in CUDA
memory; NumPy arrays (any strides), objects with __dlpack__ or __cuda_array_interface__, or
anything numpy.asarray takes. Read in place where the pixels are interleaved (rows of any
pitch), else copied once (docs/python.md lists the layouts). out: "numpy" (a float32 (H, W)
array, inf = no disparity) or "cuda" (a stereo.DeviceArray in the matcher's GPU memory,
written there by the GPU, never through the host; cuda backends). Raises ValueError for a bad
input, RuntimeError where the device or context is unusable or the backend cannot read the
inputs' memory, MemoryError where the problem does not fit.
order: the colour images' channel order, "rgb" (PIL, imageio, stereo.load_scene) or "bgr"
(OpenCV's cv2.imread); every method matches RGB, so a BGR pair passed as "rgb" gives another
map. "bgr" costs one host copy per image; BGR in CUDA memory is refused (flip it first).)doc")
      .def_property_readonly("last_timing", &PyMatcher::last_timing,
                             "The last compute()'s timing: upload_ms, algorithm_ms, readback_ms, total_ms, "
                             "stages {name: ms} and the clock that measured them (None before the first call)")
      .def_property_readonly("last_input", &PyMatcher::last_input,
                             "What the last compute() read: per image its source, memory, layout and whether "
                             "the binding copied it, and the bytes it copied (host_copy_bytes, device_copy_bytes)")
      .def_property_readonly("method", &PyMatcher::method)
      .def_property_readonly("backend", &PyMatcher::backend)
      .def_property("levels", &PyMatcher::levels, &PyMatcher::set_levels, "the number of disparities searched")
      .def_property("min_disparity", &PyMatcher::min_disparity, &PyMatcher::set_min_disparity,
                    "the smallest disparity searched")
      .def_property_readonly(
          "params", [](const PyMatcher& p) { return to_python(p.matcher().params()); },
          "every parameter and option in force, by key (as `stereo run` prints them)")
      .def_property_readonly(
          "component", [](const PyMatcher& p) { return p.matcher().component(); }, "\"method/backend\"")
      .def_property_readonly(
          "device", [](const PyMatcher& p) { return p.matcher().device(); }, "where it runs: the CPU or the GPU's name")
      .def_property_readonly(
          "device_info", [](const PyMatcher& p) { return to_python(p.matcher().device_info()); },
          "what identifies the device (name; GPU backends add uuid and more)")
      .def("__repr__", &PyMatcher::repr);
}

void bind_testing(py::module_& testing) {
  testing.def("input_copies", &input_copies,
              "The inputs the binding has copied in this process (layouts no image view expresses: a column "
              "step, a channel stride, negative steps); read before and after a call");
  testing.def("image_copies", &frame_image_copies,
              "The image copies the CUDA frames have issued in this process, {host_to_device, device_to_device} "
              "(stereo::testing::image_copies, stereo/testing.h), or None without the CUDA backends");
  testing.def(
      "last_call_phases",
      [](const PyMatcher& matcher) {
        py::dict d;
        d["before"] = matcher.last_phases().before;
        d["call"] = matcher.last_phases().call;
        d["after"] = matcher.last_phases().after;
        d["producer"] = matcher.last_phases().producer;
        return d;
      },
      py::arg("matcher"),
      "The last matcher.compute() in ms, timed in C++: {before, call, after} = the binding's work before "
      "the Matcher call, the call, the binding's work after it (the rest of the wall time is Python's "
      "and pybind11's dispatch); producer = the part of `before` spent in the inputs' own protocol calls "
      "(__dlpack_device__, __dlpack__, __cuda_array_interface__)");
  testing.def(
      "time_cpp",
      [](PyMatcher& matcher, const py::handle& left, const py::handle& right, int runs, const std::string& out) {
        return matcher.time_cpp(left, right, runs, out);
      },
      py::arg("matcher"), py::arg("left"), py::arg("right"), py::arg("runs"), py::arg("out") = "numpy",
      "Wall ms of each of `runs` C++ calls of what matcher.compute(left, right, out=out) calls, over the "
      "same buffers (the overhead benchmark's baseline)");
}

}  // namespace stereo::python
