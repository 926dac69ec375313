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

py::dict input_report(const InputImage& in) {
  py::dict d;
  d["source"] = in.source;
  d["memory"] = in.residence == Residence::cuda ? "cuda:" + std::to_string(in.device) : std::string("host");
  d["layout"] = in.layout();
  return d;
}

std::string size_text(const InputImage& in) { return std::to_string(in.width) + "x" + std::to_string(in.height); }

class PyMatcher {
 public:
  PyMatcher(std::string method, std::string backend, int levels, int min_disparity, std::optional<int> device,
            const py::kwargs& params)
      : method_(std::move(method)), backend_(std::move(backend)), range_{min_disparity, levels} {
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

  py::object compute(const py::handle& left_object, const py::handle& right_object, const std::string& out) {
    const std::string component = matcher_->component();
    require(out == "numpy" || out == "cuda", component + ": out must be 'numpy' or 'cuda', got '" + out + "'", INPUT);
    const bool cuda_backend = backend_ == "cuda";
    require(out == "numpy" || cuda_backend,
            component + ": out='cuda' keeps the map in CUDA memory, which needs a cuda backend", INPUT);
    // Both held (with what keeps their memory) until this call returns, released with the GIL.
    const InputImage left = read_input(left_object, component, "left", cuda_backend);
    const InputImage right = read_input(right_object, component, "right", cuda_backend);
    require(left.residence == right.residence,
            component + ": left is in " + (left.residence == Residence::cuda ? "CUDA" : "host") + " memory, right in " +
                (right.residence == Residence::cuda ? "CUDA" : "host") + " memory: give both in one",
            INPUT);
    InputTransfer transfer;
    StereoResult result;
    {
      const py::gil_scoped_release unlocked;
      // Python threads may share this object; the matcher itself is not reentrant.
      const std::lock_guard<std::mutex> lock(busy_);
      try {
        result = run(left, right, transfer);
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
      const std::lock_guard<std::mutex> timing_lock(timing_mutex_);
      last_timing_ = result.timing;
    }
    py::object map = out == "cuda" ? device_result(std::move(result.disparity),
                                                   matcher_->device_info().value("ordinal", 0), transfer)
                                   : py::object(to_numpy(std::move(result.disparity)));
    last_input_ = py::dict();
    last_input_["left"] = input_report(left);
    last_input_["right"] = input_report(right);
    last_input_["host_copy_bytes"] = transfer.host_copy_bytes;
    last_input_["device_to_host_bytes"] = transfer.device_to_host_bytes;
    last_input_["host_to_device_bytes"] = transfer.host_to_device_bytes;
    return map;
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
  [[nodiscard]] py::object last_input() const { return last_input_; }
  [[nodiscard]] const std::string& method() const { return method_; }
  [[nodiscard]] const std::string& backend() const { return backend_; }
  [[nodiscard]] int levels() const { return range_.count; }
  void set_levels(int levels) { range_.count = levels; }
  [[nodiscard]] int min_disparity() const { return range_.min; }
  void set_min_disparity(int min) { range_.min = min; }
  [[nodiscard]] const Matcher& matcher() const { return *matcher_; }

  /// Wall time (ms) of `runs` calls of Matcher::compute on the pair already in the C++ form a
  /// C++ caller holds (dense ImageU8), for the binding's overhead benchmark (tests/python/
  /// bench_overhead.py): the same call as compute() without the Python around it.
  std::vector<double> time_cpp_calls(const py::handle& left_object, const py::handle& right_object, int runs) {
    const std::string component = matcher_->component();
    const InputImage left = read_input(left_object, component, "left", false);
    const InputImage right = read_input(right_object, component, "right", false);
    std::vector<double> ms;
    const py::gil_scoped_release unlocked;
    const std::lock_guard<std::mutex> lock(busy_);
    const ImageU8 l = to_image(left), r = to_image(right);
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const StereoResult result = matcher_->compute(l, r, range_);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return ms;
  }

  [[nodiscard]] std::string repr() const {
    return "stereo.Matcher('" + method_ + "', backend='" + backend_ + "', levels=" + std::to_string(range_.count) +
           ", min_disparity=" + std::to_string(range_.min) + ")";
  }

 private:
  /// The match on the caller's pixels, without the GIL: host inputs become dense images (a
  /// copy until the matchers take image views), CUDA-resident ones come to the host (until the
  /// CUDA frame takes device-resident images: python/cuda_io.h).
  StereoResult run(const InputImage& left, const InputImage& right, InputTransfer& transfer) {
    if (left.residence == Residence::cuda) {
      const int ordinal = matcher_->device_info().value("ordinal", 0);
      require(left.device == ordinal && right.device == ordinal,
              matcher_->component() + ": the inputs are on CUDA device " + std::to_string(left.device) + " and " +
                  std::to_string(right.device) + ", the matcher on device " + std::to_string(ordinal),
              INPUT);
      const ImageU8 l = download_input(left, transfer), r = download_input(right, transfer);
      return matcher_->compute(l, r, range_);
    }
    const ImageU8 l = to_image(left), r = to_image(right);
    transfer.host_copy_bytes += left.bytes() + right.bytes();
    return matcher_->compute(l, r, range_);
  }

  std::unique_ptr<Matcher> matcher_;
  std::string method_, backend_;
  DisparityRange range_;
  std::mutex busy_;                   // held through a match
  mutable std::mutex timing_mutex_;   // held only to copy last_timing_ in or out
  std::optional<Timing> last_timing_;
  py::object last_input_ = py::none();
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

compute(left, right, out="numpy") matches a pair: uint8 arrays of shape (H, W) or (H, W, 3),
NumPy arrays of any strides or objects with __dlpack__ (PyTorch tensors; CUDA tensors on a
cuda backend), and returns the disparity of the left view in pixels as a float32 (H, W) NumPy
array, inf where the method gives none (as `stereo run` writes its PFM); out="cuda" keeps it
in CUDA memory (a stereo.DeviceArray). The GIL is released while it runs. last_timing holds
the run's timing (ms) and last_input what the call read and copied.

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
           R"doc(The disparity map of the pair (left is the reference view).

left, right: uint8 (H, W) grey or (H, W, 3) RGB, equal shapes; NumPy arrays (any strides),
objects with __dlpack__, or anything numpy.asarray takes. out: "numpy" (a float32 (H, W)
array, inf = no disparity) or "cuda" (a stereo.DeviceArray in the matcher's GPU memory; cuda
backends). Raises ValueError for a bad input, RuntimeError where the device or context is
unusable, MemoryError where the problem does not fit.)doc")
      .def_property_readonly("last_timing", &PyMatcher::last_timing,
                             "The last compute()'s timing: upload_ms, algorithm_ms, readback_ms, total_ms, "
                             "stages {name: ms} and the clock that measured them (None before the first call)")
      .def_property_readonly("last_input", &PyMatcher::last_input,
                             "What the last compute() read: per image its source, memory and layout, and the "
                             "bytes the binding copied (host_copy_bytes, device_to_host_bytes, host_to_device_bytes)")
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
      .def("_time_cpp_calls", &PyMatcher::time_cpp_calls, py::arg("left"), py::arg("right"), py::arg("runs"),
           "Wall ms of each of `runs` C++ Matcher::compute calls on the pair, converted once (the overhead "
           "benchmark's baseline)")
      .def("__repr__", &PyMatcher::repr);
}

}  // namespace stereo::python
