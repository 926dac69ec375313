#pragma once
/// \file methods/symstereo/cuda/symstereo_inspect.h
/// symstereo/cuda's pass inspector: what the workspace holds once a frame is done, named
/// "<timed stage>[.<buffer>]" after Timing::stages, read when asked, nothing kept beyond the
/// run's own buffers:
///
///   flip + grey.left/right   the float grey rows as the FFT reads them (the right one
///                            mirrored, step 4), the image's W columns of each padded row
///   energy                   the DSI, joint energy E = E_A x E_S per level (eq. 7; higher is better)
///   wta                      the map
/// The spectra and the N filtered complex images (fft, filtering stages) are not shown.

#include "core/disparity_range.h"
#include "core/image.h"
#include "core/pass_table.h"
#include "cuda/common.h"

namespace stereo::cu::symstereo {

/// The buffers of the last frame; the pointers stay the workspace's.
struct KeptFrame {
  const float* d_grey = nullptr;  // 2H rows of `padded` floats: left, then the mirrored right
  int padded = 0;
  const float* d_dsi = nullptr;   // level slowest: (k H + y) W + x
  const DeviceImage<float>* disparity = nullptr;
  DisparityRange range;
};

/// Fills `table` with the passes of the frame the workspace holds (the table is cleared first);
/// its readers copy from the workspace when asked, after the device has finished the frame.
void show_frame(PassTable& table, const KeptFrame& frame, int ordinal);

}  // namespace stereo::cu::symstereo
