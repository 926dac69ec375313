#pragma once
/// \file methods/adcensus/cuda/adcensus_inspect.h
/// adcensus/cuda's pass inspector: what the workspace holds once a frame is done, read slice
/// by slice (a volume's level copied device -> host when read() asks for it), nothing kept
/// beyond the run's own buffers and nothing re-run. Named "<timed stage>.<buffer>" after
/// Timing::stages ("census", "cross", "cost+aggregate", "scanline+wta"):
///
///   census.left/right          the 64-bit census strings, 4 channels of 16 bits (bits 0-15 first)
///   cross.left/right           the arms as stored, uchar4 (left, right, up, down)
///   cost+aggregate.right       C1 of the right view (the left one's, skewed), with refinement on
///   scanline+wta.lr/rl/tb/bt   the left view's four path costs L_r (eq. 4), fp16
///   scanline+wta               C2, the mean of the paths (eq. 5), fp16: it replaced the left C1
///   scanline+wta.left/right    the winner-takes-all maps of both views (right: with refinement)
///
/// Not shown, because no buffer holds them after the run: C (computed inside the first
/// aggregation pass, never stored), the left view's C1 (overwritten in place by C2), the
/// refinement's intermediates (the map of the run is compute()'s).

#include "core/image.h"
#include "core/pass_table.h"
#include "cuda/common.h"
#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {

/// The buffers of the last frame; the pointers stay the workspace's.
struct KeptFrame {
  const DeviceImage<std::uint64_t>* census[2] = {nullptr, nullptr};  // left, right
  const DeviceImage<uchar4>* arms[2] = {nullptr, nullptr};
  const DeviceVolume* cost_right = nullptr;  // null without refinement (nothing computed it)
  const PathVolumes* paths = nullptr;
  const DeviceVolume* mean = nullptr;        // C2
  const DeviceImage<float>* disparity[2] = {nullptr, nullptr};  // right null without refinement
};

/// Fills `table` with the passes of the frame the workspace holds (the table is cleared first);
/// its readers copy from the workspace when asked, after the device has finished the frame.
void show_frame(PassTable& table, const KeptFrame& frame, int ordinal);

}  // namespace stereo::cu::adcensus
