// The lanes of `stereo compare` and the fields rows take from them (app/cli/compare_lane.h).

#include "app/cli/compare_lane.h"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "app/measure.h"
#include "app/parallel/device_pool.h"
#include "core/thread_pool.h"
#include "methods/builtin.h"

namespace stereo::cli::compare {
using nlohmann::json;

std::vector<Lane> make_lanes(const std::vector<const MethodInfo*>& methods, const std::vector<std::string>& backends,
                             json& docs) {
  const Registry& reg = builtin_registry();
  std::vector<Lane> lanes;
  for (const MethodInfo* m : methods)
    for (const std::string& b : reg.backends(m->name)) {
      if (!backends.empty() && std::find(backends.begin(), backends.end(), b) == backends.end()) continue;
      Lane lane;
      lane.info = m;
      lane.backend = b;
      lane.reason = unavailable(reg.find(m->name, b));
      if (!lane.reason) {
        try {
          lane.matcher = create_matcher(m->name, b, {});
          lane.params = lane.matcher->params();
          lane.device = lane.matcher->device();
          lane.device_info = lane.matcher->device_info();
        } catch (const std::exception& e) {
          lane.reason = std::string("could not be created: ") + e.what();
        }
      }
      docs.push_back({{"method", m->name}, {"backend", b}, {"available", !lane.reason},
                      {"reason", lane.reason ? json(*lane.reason) : json(nullptr)}, {"device", lane.device},
                      {"device_info", lane.device_info}, {"params", lane.params}});
      if (lane.reason) std::cerr << "compare: " << lane.label() << " not run: " << *lane.reason << "\n";
      lanes.push_back(std::move(lane));
    }
  return lanes;
}

std::vector<Lane> lane_per_device(const Lane& lane, const std::vector<int>& ordinals) {
  std::vector<std::unique_ptr<Matcher>> matchers =
      parallel::create_on_devices(ordinals, [&] { return create_matcher(lane.info->name, lane.backend, {}); });
  std::vector<Lane> copies;
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    Lane copy;
    copy.info = lane.info;
    copy.backend = lane.backend;
    copy.matcher = std::move(matchers[i]);
    copy.params = copy.matcher->params();
    copy.device = copy.matcher->device();
    copy.device_info = copy.matcher->device_info();
    copy.ordinal = ordinals[i];
    copies.push_back(std::move(copy));
  }
  return copies;
}

std::unique_ptr<Matcher> create_like(const Lane& lane, const Overrides& overrides) {
  const auto create = [&] { return create_matcher(lane.info->name, lane.backend, overrides); };
  if (lane.ordinal < 0) return create();
  return std::move(parallel::create_on_devices({lane.ordinal}, create).front());
}

json base_row(const Lane& lane, const char* kind, const std::string& input) {
  json row = {{"kind", kind}, {"method", lane.info->name}, {"backend", lane.backend}, {"input", input},
              {"status", "ok"}, {"reason", nullptr}, {"params", lane.params}, {"device", lane.device},
              {"device_info", lane.device_info}, {"cpu", nullptr}, {"cpu_threads", nullptr}};
  if (lane.on_cpu()) {
    // A CPU backend that takes a `threads` parameter says how many it used; 0 or none = all.
    const int asked = lane.params.is_object() && lane.params.contains("threads") && lane.params["threads"].is_number()
                          ? lane.params["threads"].get<int>()
                          : 0;
    row["cpu"] = lane.device;
    row["cpu_threads"] = asked > 0 ? unsigned(asked) : ThreadPool::hardware_threads();
  }
  return row;
}

void add_times(json& row, int width, int height, int levels, double total_ms) {
  row["mdes"] = mdes(width, height, levels, total_ms);
  row["ns_per_de"] = total_ms > 0 ? total_ms * 1e6 / (double(width) * double(height) * double(levels)) : 0.0;
}

std::string general(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace stereo::cli::compare
