#include <algorithm>

#include "host/backends.h"
#include "host/error.h"

namespace stereo {

const Registry& Registry::builtin() {
  static const Registry registry = [] {
    Registry r;
    register_salap_cpu(r);
#ifdef STEREO_WITH_GL
    register_salap_gl(r);
    register_salap_glcompute(r);
#endif
#ifdef STEREO_WITH_CUDA
    register_salap_cuda(r);
#endif
    return r;
  }();
  return registry;
}

void Registry::add(BackendEntry entry) { entries_.push_back(std::move(entry)); }

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
