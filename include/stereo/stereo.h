#pragma once
/// \file include/stereo/stereo.h
/// The stereo suite as a C++ library: every method x backend this build has, behind one
/// interface. Include this header, link `stereo::stereo` (CMake: `find_package(stereo CONFIG)`)
/// or `pkg-config --static --libs stereo`.
///
/// \code
///   #include <stereo/io.h>
///   #include <stereo/stereo.h>
///
///   stereo::ImageU8 left = stereo::read_image("im2.png"), right = stereo::read_image("im6.png");
///   auto matcher = stereo::create("salap", "cuda", {{"gamma", "5"}});   // throws stereo::Error
///   stereo::StereoResult r = matcher->compute(left, right, stereo::DisparityRange{0, 64});
///   stereo::write_pfm("disparity.pfm", r.disparity);                     // +inf = no disparity
/// \endcode
///
/// What it gives (each declared in the header named, documented there):
///  - list(), params(), options(), method_info(), create(): the registry of this build;
///  - Matcher (core/matcher.h): compute() on ImageU8s or on ImageViews that borrow the
///    caller's memory with a row pitch (core/image_view.h, which says which layouts each
///    backend copies; CUDA backends also read and write device memory), compute_compact(),
///    compute_into(), match_sequence(), params(), device();
///  - Timing (core/matcher.h): upload, algorithm and read-back milliseconds and the stages,
///    with the clock that measured them;
///  - Error (core/error.h): the one exception type; its message names the component and the
///    offending values ("salap/cuda: disparity levels 300 must be below the image width 256").
/// Image files and the datasets' scenes and metrics are stereo/io.h and stereo/data.h.
///
/// Threads: a matcher is used from one thread at a time; GL matchers from the thread that
/// created the first of them (the shared context's). Different matchers may run in parallel
/// (CUDA ones on their own streams).

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/disparity_range.h"
#include "core/error.h"
#include "core/image.h"
#include "core/image_view.h"
#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "methods/builtin.h"

namespace stereo {

/// One method on one backend of this build.
struct Backend {
  std::string method;   ///< "salap"
  std::string backend;  ///< "cpu", "gl", "glcompute", "cuda", "opencv"
  std::string summary;  ///< one line, as `stereo list` prints it
  bool available = false;          ///< usable on this machine now
  std::string unavailable_reason;  ///< why not, where not available ("no CUDA device: ...")
};

/// Every method x backend this build has, in registration order, and whether each can run
/// here (a GPU backend asks its driver, which may take a moment the first time).
inline std::vector<Backend> list() {
  std::vector<Backend> out;
  for (const BackendEntry& e : builtin_registry().entries()) {
    const std::optional<std::string> why = e.unavailable ? e.unavailable() : std::nullopt;
    out.push_back(Backend{e.method, e.backend, e.summary, !why.has_value(), why.value_or("")});
  }
  return out;
}

/// One parameter: key, default value, meaning (core/params.h).
using Param = ParamDoc;

/// The paper's parameters of `method` at their defaults, each with the table or section its
/// default comes from (what `stereo params -m <method>` prints). Throws stereo::Error naming
/// the known methods for an unknown one.
inline std::vector<Param> params(const std::string& method) {
  const MethodInfo& info = builtin_registry().method(method);
  return info.describe_params ? parse_param_table(info.describe_params()) : std::vector<Param>{};
}

/// The knobs of `backend` itself for `method` (its Options: threads, precision, paths), at
/// their defaults; empty where it has none. Set like parameters, through create()'s overrides.
inline std::vector<Param> options(const std::string& method, const std::string& backend) {
  const BackendEntry& e = builtin_registry().find(method, backend);
  return e.describe_options ? parse_param_table(e.describe_options()) : std::vector<Param>{};
}

/// What the suite knows of `method`: its paper's citation, accuracy table and speed settings.
inline const MethodInfo& method_info(const std::string& method) { return builtin_registry().method(method); }

/// The matcher of `method` on `backend`, its parameters and options set from `overrides`
/// ({"key", "value"} pairs, as `--set key=value`; an unknown key or a bad value throws).
/// Throws stereo::Error "<method>/<backend> is not available here: <reason>" where the
/// backend cannot run (no CUDA device, no OpenGL 4.5 context).
inline std::unique_ptr<Matcher> create(const std::string& method, const std::string& backend,
                                       const Overrides& overrides = {}) {
  return create_matcher(method, backend, overrides);
}

}  // namespace stereo
