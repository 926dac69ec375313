#pragma once
/// \file methods/esaw/cuda/esaw_inspect.h
/// The volumes esaw/cuda and esmp/cuda keep for the pass inspector. Their passes ping-pong two
/// or three buffers (ESAW slab by slab), so every stage's volume is overwritten by a later one;
/// while keep_passes(true) holds (FrameMatcher::keeping) the workspace holds one whole volume
/// more per kept stage, and each stage's output is copied there (device to device) as it is
/// made, a slab into its own planes. Off, no buffer is declared and nothing is copied or
/// launched differently. Named as the cpu backend shows the same quantity
/// (reference/esaw_matcher.cpp: "init_cost", "aggr_H.t<t>", "aggr_V.t<t>", "cost2msg.<n>");
/// ESMP's forward min-sum values, which the cpu backend never stores, as "aggr_H+.t<t>" and
/// "aggr_V+.t<t>".

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/disparity_range.h"
#include "cuda/stage_clock.h"
#include "cuda/stage_show.h"
#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {

/// A stage whose volume is kept: its name in the inspector and what it holds.
struct KeptStage {
  std::string name;
  std::string what;
  /// Written by its pass itself while keeping (the last, WTA pass stores its costs there), not copied.
  bool stored_by_pass = false;
};

/// Where a run copies its stages' volumes: the matcher's plan (what it keeps, in pipeline
/// order) and the workspace's kept volumes, one per plan entry, or none when not keeping.
class StageKeeper {
 public:
  /// With `clock`, each copy is followed by the lap KEEP_LAP, so no stage's time holds it.
  StageKeeper(std::string component, const std::vector<KeptStage>& plan, std::vector<DeviceVolume>& kept,
              StageClock* clock = nullptr)
      : component_(std::move(component)), plan_(plan), kept_(kept), clock_(clock) {}

  /// The Timing stage of the inspector's copies (only while keeping).
  static constexpr const char* KEEP_LAP = "keep_passes copies";

  [[nodiscard]] bool on() const { return !kept_.empty(); }
  /// Plane `first_plane` of stage `name`'s kept volume (a pass may write it there itself);
  /// null when not keeping. Throws stereo::Error for a name outside the plan.
  [[nodiscard]] std::uint16_t* slot(const std::string& name, int first_plane);
  /// Copies `planes` planes at `src` into stage `name`'s kept volume from `first_plane` on,
  /// enqueued on `stream`; nothing when not keeping.
  void copy(const std::string& name, const std::uint16_t* src, int first_plane, int planes, cudaStream_t stream);

 private:
  std::string component_;
  const std::vector<KeptStage>& plan_;
  std::vector<DeviceVolume>& kept_;
  StageClock* clock_;
};

/// Adds the kept volumes to `show`, one level layout each over `range` (plane k: disparity
/// range.min + k), fp16 read as float. `note` (how the copy was timed) is appended to the
/// `what` of every copied stage.
void show_kept(StageShow& show, const std::vector<KeptStage>& plan, const std::vector<DeviceVolume>& kept,
               DisparityRange range, const std::string& note);

}  // namespace stereo::cu::esaw
