#pragma once
/// \file core/matcher.h
/// The interface every (method, backend) implements: a pair of images and a disparity range in,
/// a disparity map and its timing out. The registry that names them is core/registry.h.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/disparity_range.h"
#include "core/error.h"
#include "core/image.h"
#include "core/image_view.h"
#include "core/inspect.h"
#include "core/params.h"
#include "stereo/result.h"

namespace stereo {

/// Texture-fetch accounting of a shader backend, for the bench's fetch-rate ceiling.
struct FetchStats {
  double fetches_per_run = 0.0;    ///< texel fetches (texture() calls) the passes issue per run
  double ceiling_gtexel_s = 0.0;   ///< a fetch-only pass of the same shape, measured now
  std::string ceiling_pass;        ///< what that pass is
};

/// Device-memory accounting of a backend, for the bench's per-stage bandwidth figures.
struct MemoryStats {
  /// Bytes each named stage (as in Timing::stages) moves through device memory at the least:
  /// its inputs read once and its outputs written once.
  std::vector<std::pair<std::string, double>> stage_bytes;
  double copy_gb_s = 0.0;  ///< a large device-to-device copy measured now, bytes read + written per second
};

/// Device memory a GPU matcher holds, for the bench.
struct DeviceMemoryUse {
  /// Measured: what the matcher's allocations took from the device (its buffers, FFT plans and
  /// their work areas, at the driver's page granularity), as the drop of the device's free
  /// memory across each allocation, summed over what it holds now.
  double bytes = 0.0;
  /// Declared: the sizes its buffers request and its plans estimate, summed (no rounding).
  double declared_bytes = 0.0;
};

/// One reading of the energy counter of the device a matcher runs on.
struct EnergyReading {
  /// The counter in millijoules from a fixed origin (only differences mean anything); empty
  /// where the device has none or it cannot be read.
  std::optional<double> millijoules;
  std::string unavailable;  ///< why there is none ("no NVML (libnvidia-ml.so.1 not found)")
};

class Matcher {
 public:
  virtual ~Matcher() = default;
  /// Disparity of `left` over `range`, in pixels (range.min + the winning index); +inf where
  /// the method gives none. Inputs are RGB or grey, equal sizes. Validates, then match().
  StereoResult compute(const ImageU8& left, const ImageU8& right, DisparityRange range);
  /// The same over 0 .. levels-1.
  StereoResult compute(const ImageU8& left, const ImageU8& right, int levels) {
    return compute(left, right, DisparityRange{0, levels});
  }
  /// The same map as compute(), in its smallest exact form (DisparityMap): what a backend
  /// that reads back level indices hands over without widening them.
  DisparityMap compute_compact(const ImageU8& left, const ImageU8& right, DisparityRange range,
                               Timing* timing = nullptr);

  /// compute() on views of the caller's memory (core/image_view.h: any row pitch; CUDA device
  /// memory on the CUDA backends, which then never copy the images through the host). The map
  /// is the one compute() gives for the same pixels as an ImageU8. Which layouts a backend
  /// copies first is listed in core/image_view.h. Validates the views (validate_pair).
  StereoResult compute(const ImageView& left, const ImageView& right, DisparityRange range);
  /// compute_compact() on views.
  DisparityMap compute_compact(const ImageView& left, const ImageView& right, DisparityRange range,
                               Timing* timing = nullptr);
  /// compute() with the float map written into the caller's `out` (the images' size, any
  /// 4-byte-aligned pitch): host memory on every backend, CUDA device memory on the CUDA
  /// backends (then the map never reaches the host: Timing::readback_ms is the device copy
  /// into `out`, and with device views Timing::upload_ms the device copies of the images into
  /// the workspace). Returns when `out` is written. Backends that make the map on the host
  /// copy it into `out` row by row, inside readback_ms.
  Timing compute_into(const ImageView& left, const ImageView& right, DisparityRange range, const DisparityView& out);

  /// Matches a sequence: every pair `next` gives, over `range`, each result handed to `done`
  /// in frame order. Every map is identical to compute() on the same pair. Every pair must
  /// have the first pair's size and channel count (a size change is an error naming the
  /// frame). Backends that can overlap frames (CUDA streams, GL pixel buffer objects)
  /// override match_stream(); every other method streams through its default, which calls
  /// match_compact() frame by frame, so no method needs a loop of its own. On an error
  /// (from `next`, validation, the method or `done`) the frames already given are finished
  /// and delivered first where they can be, then the error propagates. The matcher is busy
  /// until match_sequence returns: `next` and `done` must not call it (its slots hold the
  /// frames in flight); use another matcher for work beside a sequence.
  void match_sequence(DisparityRange range, const FrameSource& next, const FrameSink& done);
  /// Every parameter in force, by key (the values a run used).
  [[nodiscard]] virtual nlohmann::json params() const = 0;
  /// "method/backend", the prefix of every error message it throws ("salap/cuda").
  [[nodiscard]] virtual std::string component() const = 0;
  /// Where it runs: the CPU, or the GPU's name.
  [[nodiscard]] virtual std::string device() const = 0;
  /// What identifies the device in a result: {"name"} at least; GPU backends add "uuid"
  /// (nvidia-smi's "GPU-..." form, so CUDA and GL runs can be matched to one GPU) and more.
  [[nodiscard]] virtual nlohmann::json device_info() const { return {{"name", device()}}; }
  /// Shader backends measure their fetch ceiling for the bench; others return nothing.
  virtual std::optional<FetchStats> fetch_stats(int /*width*/, int /*height*/, int /*levels*/) {
    return std::nullopt;
  }
  /// Asks every later compute() to return its cost volume in StereoResult::dsi (not timed:
  /// the read-back is outside Timing). Backends without one throw, naming themselves.
  virtual void request_cost_volume(bool keep) {
    if (keep) throw Error(component() + ": this backend exposes no cost volume (--dsi)");
  }
  /// Asks every later run to keep what each pass or stage computed, for inspector()
  /// (core/inspect.h: the viewer's pass inspector, `view --dump-passes`). Backends without
  /// passes to show throw, naming themselves.
  virtual void keep_passes(bool keep) {
    if (keep) throw Error(component() + ": this backend has no pass inspector", ErrorKind::invalid_argument);
  }
  /// The passes of the last run when keep_passes(true) was asked, or nullptr where the backend
  /// has none. Owned by the matcher; valid while it lives.
  virtual PassInspector* inspector() { return nullptr; }
  /// GPU backends that account their stages' bytes return them with a copy rate measured now.
  virtual std::optional<MemoryStats> memory_stats(int /*width*/, int /*height*/, DisparityRange /*range*/) {
    return std::nullopt;
  }
  /// The device memory the matcher holds now, for the bench; nullopt where not known (backends
  /// that do not measure it: cpu, gl).
  [[nodiscard]] virtual std::optional<DeviceMemoryUse> device_memory() const { return std::nullopt; }
  /// The energy counter of the matcher's device now; no value, with the reason, where the
  /// backend reads none or the device has none.
  virtual EnergyReading energy_counter() {
    return {std::nullopt, "the " + component() + " backend reads no energy counter"};
  }

 protected:
  /// The method itself, on a pair compute() has validated against `range`.
  virtual StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) = 0;
  /// compute_compact()'s work on a validated pair. Default: match() in float form. Backends
  /// that produce level indices override it (and then may implement match() through it).
  virtual DisparityMap match_compact(const ImageU8& left, const ImageU8& right, DisparityRange range, Timing& timing);
  /// compute() on validated views. Default: host views copied into ImageU8s (to_image), then
  /// match(); CUDA memory refused (not_in_host_memory). Backends that read views in place
  /// override it.
  virtual StereoResult match_view(const ImageView& left, const ImageView& right, DisparityRange range);
  /// compute_compact() on validated views. Default: match_view()'s float map; a backend whose
  /// match_compact() hands over level indices overrides this as well.
  virtual DisparityMap match_compact_view(const ImageView& left, const ImageView& right, DisparityRange range,
                                          Timing& timing);
  /// compute_into() on validated views and a validated `out`. Default: match_view(), then the
  /// map copied into `out` (host memory only) inside readback_ms.
  virtual Timing match_into(const ImageView& left, const ImageView& right, DisparityRange range,
                            const DisparityView& out);
  /// The error of a backend that reads host memory only, for a view or map in CUDA memory.
  [[noreturn]] void not_in_host_memory(const char* what) const;
  /// match_sequence()'s work. `next` here gives only validated pairs of one size. Default:
  /// match_compact() per frame, in the caller's thread. Overrides keep several frames in
  /// flight; they must deliver in order and, when `next` throws, deliver the frames in
  /// flight before rethrowing.
  virtual void match_stream(DisparityRange range, const FrameSource& next, const FrameSink& done);
};

/// "CPU: <model name> (N threads)" from /proc/cpuinfo.
std::string cpu_name();

}  // namespace stereo
