#include <algorithm>
#include <cctype>

#include "host/backends.h"
#include "host/dataset.h"
#include "host/error.h"
#include "host/methods/adcensus.h"
#include "host/methods/crossrt.h"
#include "host/methods/esaw.h"
#include "host/methods/salap.h"
#include "host/methods/symstereo.h"
#include "host/methods/sgbm.h"

namespace stereo {

namespace {

// A backend without its method's MethodInfo would reach `eval` and `bench` with no paper to
// compare against; a MethodInfo without a backend would be listed but could not run. Checked
// on the finished builtin registry rather than in add(), so that a test may build a registry
// of one backend hook alone.
void check_complete(const Registry& r) {
  for (const BackendEntry& e : r.entries()) {
    const auto& methods = r.methods();
    require(std::any_of(methods.begin(), methods.end(), [&](const MethodInfo& m) { return m.name == e.method; }),
            "registry: backend " + e.method + "/" + e.backend + " is registered without a MethodInfo for '" +
                e.method + "' (add_method it in register_" + e.method + ", host/registry.cpp)");
  }
  for (const MethodInfo& m : r.methods())
    require(!r.backends(m.name).empty(), "registry: method '" + m.name + "' has no backend in this build");
}

}  // namespace

// One hook per method (host/backends.h): its MethodInfo, then every backend this build has.
void register_salap(Registry& r) {
  r.add_method(salap_method_info());
  register_salap_cpu(r);
#ifdef STEREO_WITH_GL
  register_salap_gl(r);
  register_salap_glcompute(r);
#endif
#ifdef STEREO_WITH_CUDA
  register_salap_cuda(r);
#endif
}

void register_adcensus(Registry& r) {
  r.add_method(adcensus_method_info());
  register_adcensus_cpu(r);
#ifdef STEREO_WITH_CUDA
  register_adcensus_cuda(r);
#endif
}

void register_crossrt(Registry& r) {
  r.add_method(crossrt_method_info());
  register_crossrt_cpu(r);
#ifdef STEREO_WITH_CUDA
  register_crossrt_cuda(r);
#endif
}

// The cpu backend needs FFTW (fftw3f); a build without it has the CUDA backend alone, and a
// build with neither has no symstereo at all (CMake says why at configure time).
void register_symstereo(Registry& r) {
#if defined(STEREO_WITH_FFTW) || defined(STEREO_WITH_CUDA)
  r.add_method(symstereo_method_info());
#endif
#ifdef STEREO_WITH_FFTW
  register_symstereo_cpu(r);
#endif
#ifdef STEREO_WITH_CUDA
  register_symstereo_cuda(r);
#endif
}

// ESAW and ESMP share one paper, one reference and one CUDA directory: one hook for both.
void register_esaw(Registry& r) {
  r.add_method(esaw_method_info());
  r.add_method(esmp_method_info());
  register_esaw_cpu(r);
  register_esmp_cpu(r);
#ifdef STEREO_WITH_CUDA
  register_esaw_cuda(r);
  register_esmp_cuda(r);
#endif
}

// The OpenCV peer has no backend without OpenCV, so without it the method is not registered.
void register_sgbm([[maybe_unused]] Registry& r) {
#ifdef STEREO_WITH_OPENCV
  r.add_method(sgbm_method_info());
  register_sgbm_opencv(r);
#endif
}

const Registry& Registry::builtin() {
  static const Registry registry = [] {
    Registry r;
    register_salap(r);
    register_adcensus(r);
    register_crossrt(r);
    register_symstereo(r);
    register_esaw(r);
    register_sgbm(r);
    check_complete(r);
    return r;
  }();
  return registry;
}

void Registry::add(BackendEntry entry) {
  for (const BackendEntry& e : entries_)
    require(e.method != entry.method || e.backend != entry.backend,
            "registry: backend " + entry.method + "/" + entry.backend + " registered twice");
  entries_.push_back(std::move(entry));
}

void Registry::add_method(MethodInfo info) {
  for (const MethodInfo& m : methods_)
    require(m.name != info.name, "registry: method '" + info.name + "' registered twice");
  methods_.push_back(std::move(info));
}

const MethodInfo& Registry::method(const std::string& name) const {
  for (const MethodInfo& m : methods_)
    if (m.name == name) return m;
  std::string names;
  for (const MethodInfo& m : methods_) names += (names.empty() ? "" : ", ") + m.name;
  throw Error("unknown method '" + name + "' (this build has: " + names + ")");
}

std::optional<PaperAccuracy> MethodInfo::paper_accuracy(const std::string& scene, const nlohmann::json& params) const {
  std::string lower = scene;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const auto as_text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  for (const PaperAccuracy& row : accuracy) {
    if (row.scene != lower) continue;
    // A row applies when every condition it names holds; a row with none applies only when
    // no other row's conditions hold (the defaults), so check conditioned rows first.
    if (row.when.empty()) continue;
    bool holds = true;
    for (const auto& [key, value] : row.when)
      holds = holds && params.contains(key) && as_text(params[key]) == value;
    if (holds) return row;
  }
  for (const PaperAccuracy& row : accuracy)
    if (row.scene == lower && row.when.empty()) return row;
  return std::nullopt;
}

StereoResult Matcher::compute(const ImageU8& left, const ImageU8& right, DisparityRange range) {
  validate_pair(left, right, range, component());
  return match(left, right, range);
}

const BackendEntry& Registry::find(const std::string& method, const std::string& backend) const {
  bool method_known = false;
  for (const BackendEntry& e : entries_) {
    if (e.method != method) continue;
    method_known = true;
    if (e.backend == backend) return e;
  }
  if (!method_known) {
    std::string names;
    for (const BackendEntry& e : entries_)
      if (names.find(e.method) == std::string::npos) names += (names.empty() ? "" : ", ") + e.method;
    throw Error("unknown method '" + method + "' (this build has: " + names + ")");
  }
  std::string list;
  for (const std::string& b : backends(method)) list += (list.empty() ? "" : ", ") + b;
  throw Error(method + ": unknown backend '" + backend + "' (this build has: " + list + ")");
}

std::vector<std::string> Registry::backends(const std::string& method) const {
  std::vector<std::string> out;
  for (const BackendEntry& e : entries_)
    if (e.method == method) out.push_back(e.backend);
  return out;
}

std::unique_ptr<Matcher> create_matcher(const std::string& method, const std::string& backend,
                                        const Overrides& overrides) {
  const BackendEntry& entry = Registry::builtin().find(method, backend);
  if (const auto reason = entry.unavailable ? entry.unavailable() : std::nullopt)
    throw Error(method + "/" + backend + " is not available here: " + *reason);
  return entry.create(overrides);
}

}  // namespace stereo
