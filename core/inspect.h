#pragma once
/// \file core/inspect.h
/// What a backend's passes or stages hold after a run: the contract behind `stereo view`'s pass
/// inspector and `stereo view --dump-passes`. A pass is named as the backend names the stage
/// (the names Timing::stages uses where the stage is timed), described in one line, and laid
/// out as the GPU holds it: a shader pass as its render target (one RGBA texel = four
/// disparities, a slice per disparity quad), a CUDA stage as its buffer (a slice per disparity
/// level where it keeps a volume, one slice where it keeps an image). read() widens one slice
/// to float without changing a value (a unorm8 texel reads as the shader reads it, k/255).
///
/// Inspection is asked for before the run (Matcher::keep_passes(true)): a backend that
/// overwrites a pass's target for each quad, or reuses one buffer for two stages, keeps what
/// the inspector shows only when asked, so a plain run pays nothing for it.

#include <string>
#include <vector>

#include "core/image.h"

namespace stereo {

/// One pass's target or one stage's buffer, as the backend holds it.
struct PassLayout {
  std::string name;     ///< the stage's name in the backend ("tad", "aggregate_h", "select.depth")
  std::string what;     ///< one line: what the pass computes, in the paper's terms
  std::string storage;  ///< how it is held: "rgba8 texture", "r32f image", "float device buffer"
  int width = 0;
  int height = 0;
  int channels = 1;  ///< per texel as stored; 4 for RGBA
  int slices = 1;    ///< disparity quads, disparity levels, or 1 for a plane
  /// Disparities one slice holds: 4 for an RGBA quad (channel c of slice s is disparity
  /// first_disparity + 4 s + c), 1 for a level slice, 0 for a plane that is not per disparity.
  int disparities_per_slice = 0;
  int first_disparity = 0;  ///< the disparity of slice 0, channel 0 (the range's min)

  /// The disparity that (slice, channel) holds, or -1 where the pass is not per disparity.
  [[nodiscard]] int disparity(int slice, int channel) const {
    if (disparities_per_slice == 0) return -1;
    return first_disparity + slice * disparities_per_slice + (disparities_per_slice == 1 ? 0 : channel);
  }
  /// "aggregate_h, disparities 8..11" / "cost, disparity 37" / "select.depth": what a view of
  /// that slice shows, for a panel title or a file name's reader.
  [[nodiscard]] std::string label(int slice) const {
    if (disparities_per_slice == 0) return name;
    const int d0 = disparity(slice, 0);
    if (disparities_per_slice == 1) return name + ", disparity " + std::to_string(d0);
    return name + ", disparities " + std::to_string(d0) + ".." + std::to_string(d0 + disparities_per_slice - 1);
  }
};

/// The passes of a matcher's last run, for a matcher that was asked to keep them.
class PassInspector {
 public:
  virtual ~PassInspector() = default;
  /// The passes of the last run, in pipeline order; empty before the first run.
  [[nodiscard]] virtual std::vector<PassLayout> passes() const = 0;
  /// Slice `slice` of pass `name` from the last run: width x height x channels floats, the
  /// stored values widened without rounding. Throws stereo::Error (invalid_argument) for an
  /// unknown pass or a slice out of range.
  [[nodiscard]] virtual ImageF read(const std::string& name, int slice) = 0;
};

}  // namespace stereo
