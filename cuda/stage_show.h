#pragma once
/// \file cuda/stage_show.h
/// What a CUDA matcher hands the frame's pass inspector (FrameMatcher::show_stages,
/// cuda/matcher_frame.h): per stage, the workspace buffer that holds its output once a frame is
/// done, and its layout. The frame owns keep_passes(), inspector() and the table; a method
/// only names its buffers here. Nothing is copied until a pass is read: each read copies the
/// slice asked for from the workspace to the host (cuda/shared/inspect_reads.h), after the
/// device has finished the frame.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/pass_table.h"
#include "cuda/common.h"
#include "cuda/shared/inspect_reads.h"

namespace stereo::cu {

/// How a device image's element type reads in a PassLayout's storage line, and its channels.
template <class T>
struct DeviceElement {
  static_assert(std::is_arithmetic_v<T>, "DeviceElement: add the element type");
  static constexpr int CHANNELS = 1;
  static const char* name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
    else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
    else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
    else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
    else return "int32";
  }
};
template <>
struct DeviceElement<uchar2> {
  static constexpr int CHANNELS = 2;
  static const char* name() { return "uchar2"; }
};
template <>
struct DeviceElement<uchar4> {
  static constexpr int CHANNELS = 4;
  static const char* name() { return "uchar4"; }
};

/// The stages of the frame the workspace holds, added to the frame's table in pipeline order.
class StageShow {
 public:
  StageShow(PassTable& table, int ordinal) : table_(table), ordinal_(ordinal) {}

  /// Stage `name`'s output is `image` (one component or uchar2/uchar4 per pixel), one slice.
  template <class T>
  void image(const std::string& name, const std::string& what, const DeviceImage<T>& image) {
    constexpr int channels = DeviceElement<T>::CHANNELS;
    const DeviceImage<T>* held = &image;
    table_.add(image_layout(name, what, std::string(DeviceElement<T>::name()) + " device image", image.width,
                            image.height, channels),
               [held, ordinal = ordinal_](int) {
                 if constexpr (channels == 1) {
                   return host_image(*held, ordinal);
                 } else {
                   const std::vector<T> cells = host_copy(*held, ordinal);
                   ImageF out(held->width, held->height, channels);
                   for (std::size_t i = 0; i < cells.size(); ++i) {
                     float* px = &out.data[i * channels];
                     px[0] = float(cells[i].x);
                     px[1] = float(cells[i].y);
                     if constexpr (channels == 4) {
                       px[2] = float(cells[i].z);
                       px[3] = float(cells[i].w);
                     }
                   }
                   return out;
                 }
               });
  }

  /// Anything else: a layout and its reader (called after the frame, with the device current
  /// through the helpers of cuda/shared/inspect_reads.h).
  void add(PassLayout layout, PassTable::Reader read) { table_.add(std::move(layout), std::move(read)); }

  /// The table itself, for a method whose layouts are written out in a file of their own.
  [[nodiscard]] PassTable& table() { return table_; }
  /// The matcher's device: what the readers copy from.
  [[nodiscard]] int ordinal() const { return ordinal_; }

 private:
  PassTable& table_;
  int ordinal_ = 0;
};

}  // namespace stereo::cu
