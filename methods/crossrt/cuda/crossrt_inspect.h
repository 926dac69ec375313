#pragma once
/// \file methods/crossrt/cuda/crossrt_inspect.h
/// crossrt/cuda's pass inspector: what the workspace holds once a frame is done, named
/// "<timed stage>.<buffer>" after Timing::stages (the paper's Table II columns), read when asked
/// (a CA_x level copied device -> host per read), nothing kept beyond the run's own buffers:
///
///   SD.left/right          the scaled grey images (eq. 2)
///   arms x.left/right      horizontal arms, uchar2 (left, right); arms y.left/right (up, down)
///   C+CA_x.left/right      CA_x per scaled level, uint16 (eq. 3-7)
///   CA.left/right          the winner-takes-all maps of eq. 8-9 (CA itself is never stored)
///   CC                     the GCP mask (eq. 10)
///   Post.median, Post      the median-filtered and the filled map (eq. 11)
///   SU                     the full-size map (Sec. IV-H), at scale 2
/// Dump file names replace the spaces (app/passes.h).

#include "core/image.h"
#include "core/pass_table.h"
#include "cuda/common.h"
#include "methods/crossrt/cuda/stages.h"

namespace stereo::cu::crossrt {

/// The buffers of the last frame; the pointers stay the workspace's.
struct KeptFrame {
  const DeviceImage<std::uint8_t>* scaled[2] = {nullptr, nullptr};  // left, right
  const DeviceImage<uchar2>* arms_x[2] = {nullptr, nullptr};
  const DeviceImage<uchar2>* arms_y[2] = {nullptr, nullptr};
  const DeviceVolume16* cax[2] = {nullptr, nullptr};
  const DeviceImage<float>* disparity[2] = {nullptr, nullptr};
  const DeviceImage<std::uint8_t>* gcp_mask = nullptr;
  const DeviceImage<float>* median = nullptr;
  const DeviceImage<float>* filled = nullptr;
  const DeviceImage<float>* full = nullptr;  // null at scale 1
};

/// Fills `table` with the passes of the frame the workspace holds (the table is cleared first);
/// its readers copy from the workspace when asked, after the device has finished the frame.
void show_frame(PassTable& table, const KeptFrame& frame, int ordinal);

}  // namespace stereo::cu::crossrt
