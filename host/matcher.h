#pragma once
/// \file matcher.h
/// The interface every (method, backend) implements, and the registry that maps a name
/// and a backend to a factory.

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "host/image.h"
#include "host/params.h"

namespace stereo {

/// Wall or device time of one run, split the way the paper's Table 2 splits it.
struct Timing {
  double upload_ms = 0.0;     ///< host -> device copies of the two images
  double algorithm_ms = 0.0;  ///< all matching work on the device
  double readback_ms = 0.0;   ///< device -> host copy of the disparity map
  std::vector<std::pair<std::string, double>> stages;  ///< named parts of algorithm_ms
  std::string clock;  ///< what measured it ("cuda events", "GL timer queries", "host clock")
  [[nodiscard]] double total_ms() const { return upload_ms + algorithm_ms + readback_ms; }
};

struct StereoResult {
  ImageF disparity;  ///< pixels; +inf where the method gives none
  Timing timing;
};

/// Texture-fetch accounting of a shader backend, for the bench's fetch-rate ceiling.
struct FetchStats {
  double fetches_per_run = 0.0;    ///< texel fetches (texture() calls) the passes issue per run
  double ceiling_gtexel_s = 0.0;   ///< a fetch-only pass of the same shape, measured now
  std::string ceiling_pass;        ///< what that pass is
};

class Matcher {
 public:
  virtual ~Matcher() = default;
  /// Disparity of `left` over levels 0..levels-1. Inputs are RGB or grey, equal sizes.
  virtual StereoResult compute(const ImageU8& left, const ImageU8& right, int levels) = 0;
  /// Every parameter in force, by key (the values a run used).
  [[nodiscard]] virtual nlohmann::json params() const = 0;
  /// Where it runs: the CPU, or the GPU's name.
  [[nodiscard]] virtual std::string device() const = 0;
  /// Shader backends measure their fetch ceiling for the bench; others return nothing.
  virtual std::optional<FetchStats> fetch_stats(int /*width*/, int /*height*/, int /*levels*/) {
    return std::nullopt;
  }
};

struct BackendEntry {
  std::string method;
  std::string backend;
  std::string summary;  ///< one line for `stereo list`
  /// Empty when usable here, else why not ("no CUDA device").
  std::function<std::optional<std::string>()> unavailable;
  std::function<std::unique_ptr<Matcher>(const Overrides&)> create;
};

class Registry {
 public:
  /// The registry with every method this build has.
  static const Registry& builtin();

  void add(BackendEntry entry);
  /// Throws stereo::Error naming the known methods/backends when there is no such entry.
  [[nodiscard]] const BackendEntry& find(const std::string& method, const std::string& backend) const;
  [[nodiscard]] const std::vector<BackendEntry>& entries() const { return entries_; }
  /// Backends of `method`, in registration order.
  [[nodiscard]] std::vector<std::string> backends(const std::string& method) const;

 private:
  std::vector<BackendEntry> entries_;
};

/// Creates the matcher, first checking availability (throws with the reason).
std::unique_ptr<Matcher> create_matcher(const std::string& method, const std::string& backend,
                                        const Overrides& overrides);

/// "CPU: <model name> (N threads)" from /proc/cpuinfo.
std::string cpu_name();

}  // namespace stereo
