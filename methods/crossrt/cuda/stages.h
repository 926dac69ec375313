#pragma once
/// \file methods/crossrt/cuda/stages.h
/// Chang and Maruyama's real-time cross-based stereo on the GPU, one .cu per stage, named as
/// in reference/crossrt.h so a test can compare each stage with its CPU twin. The timed
/// stages are the paper's Table II columns:
///
///   scale_down.cu        scale_down            SD      grey + eq. 2 (3x3 mean at even pixels)
///   arms.cu              arms_x, arms_y        arms x, arms y   brightness runs, once per view
///   cost_aggregate_x.cu  cost_aggregate_x      C+CA_x  eq. 3-7 fused: the cost is never stored
///   aggregate_y.cu       aggregate_y_wta       CA      eq. 8-9 fused: CA is never stored
///   wta_gcp.cu           gcp                   CC      eq. 10
///   post.cu              bilateral_fill        Post    cu::median_3x3 (cuda/shared) + eq. 11
///   scale_up.cu          scale_up              SU      Sec. IV-H
///   memory.cu            uploads/downloads of images and arms for tests
///   crossrt_cuda.cpp     the matcher ("crossrt", "cuda")
///
/// Precision (methods/crossrt/cuda/NOTES.md): costs are the integers of methods/crossrt/model.h (two
/// quantised terms from crossrt::cost_tables, 0..2 * COST_SCALE), as the reference's; CA_x is
/// stored as uint16 (at most 255 costs of 256 = 65280) and CA summed in uint32, so every stage
/// up to the GCPs is bit-exact with the reference; the fill and the scale-up use the same float
/// operations in the same order (one IEEE division, no fused multiply-add), so they are
/// bit-exact too.
///
/// Layouts: images are row-major and dense; CA_x is disparity fastest, index
/// (y * W + x) * D + k, like reference::crossrt::Volume. Arms are uchar2 (.x = left/up,
/// .y = right/down). All launches go on `stream`.

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/common.h"
#include "core/disparity_range.h"
#include "core/image.h"
#include "methods/crossrt/model.h"
#include "methods/crossrt/params.h"

namespace stereo::cu::crossrt {

/// A uint16 volume on the device, disparity fastest (CA_x of one view).
struct DeviceVolume16 {
  int width = 0;
  int height = 0;
  DisparityRange range;
  DeviceBuffer<std::uint16_t> data;

  DeviceVolume16() = default;
  DeviceVolume16(int w, int h, DisparityRange r, const std::string& component, const std::string& what)
      : width(w), height(h), range(r),
        data(make_device_buffer<std::uint16_t>(cells(w, h, r.count), component, what)) {}
  [[nodiscard]] static std::size_t cells(int w, int h, int levels) {
    return static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(levels);
  }
  [[nodiscard]] std::size_t count() const { return cells(width, height, range.count); }
  [[nodiscard]] std::uint16_t* get() { return data.get(); }
  [[nodiscard]] const std::uint16_t* get() const { return data.get(); }
};

/// The cost tables of eq. 4-5 as the kernels take them: the model's, so both backends hold the
/// same integers.
using DeviceTables = stereo::crossrt::CostTables;
/// stereo::crossrt::cost_tables(params) (methods/crossrt/model.h), computed on the host.
inline DeviceTables make_tables(const CrossRtParams& params) { return stereo::crossrt::cost_tables(params); }

// ---- test and set-up helpers (synchronous) ---------------------------------------------

DeviceImage<std::uint8_t> upload_u8(const ImageU8& image);
ImageU8 download_u8(const DeviceImage<std::uint8_t>& image);
DeviceImage<uchar2> upload_arms(const Image<std::uint8_t>& arms);  // 2 channels
Image<std::uint8_t> download_arms(const DeviceImage<uchar2>& arms);
ImageF download_f32(const DeviceImage<float>& image);

// ---- stages ------------------------------------------------------------------------------

/// Grey (integer BT.601 luma, cuda/shared/grey.cuh; a 1-channel input as is) of an
/// interleaved 1-, 3- or 4-channel image at `raw` of grey_full's size, written to
/// `grey_full` (the full-size grey the scale-up compares brightness in), and eq. 2 at
/// `scale` (1 or 2) into `scaled`, of size ceil(W / scale) x ceil(H / scale).
void scale_down(const std::uint8_t* raw, int channels, int scale, DeviceImage<std::uint8_t>& grey_full,
                DeviceImage<std::uint8_t>& scaled, cudaStream_t stream);

/// reference::crossrt::arms_x / arms_y.
void arms_x(const DeviceImage<std::uint8_t>& grey, int limit, int tc, DeviceImage<uchar2>& arms, cudaStream_t stream);
void arms_y(const DeviceImage<std::uint8_t>& grey, int limit, int tc, DeviceImage<uchar2>& arms, cudaStream_t stream);

/// The widest scaled row cost_aggregate_x holds whole (one prefix) in shared memory on device
/// `ordinal`; wider rows are processed in segments of columns.
int max_cost_width(int ordinal);

/// True when cost_aggregate_x can process rows of `width` with arms of up to `max_arm` on
/// device `ordinal` (whole, or in segments: their rows of grey, census and arms must still fit).
bool cost_aggregate_x_supports(int width, int max_arm, int ordinal);

/// What cost_aggregate_x reads: both views' scaled grey images and horizontal arms (all of one
/// size) and the cost tables.
struct CostAggregateXInputs {
  const DeviceImage<std::uint8_t>& left;
  const DeviceImage<std::uint8_t>& right;
  const DeviceImage<uchar2>& arms_x_left;
  const DeviceImage<uchar2>& arms_x_right;
  const DeviceTables& tables;
};

/// Eq. 3-7 fused, one block per (row, 32 levels): the left view's cost row of each level is
/// computed once into a shared-memory prefix sum, and both views' CA_x are read from it
/// (the right view at x + d, eq. 6); = reference aggregate_x(cost(...), arms, false/true).
/// Both outputs must have the images' size and `range`. Rows wider than max_cost_width() go
/// in segments of columns that each read `max_arm` columns beyond their ends: every arm must be
/// at most `max_arm` (the matcher passes W_x). `segment_cols` > 0 forces segments of that many
/// columns (tests), 0 = only where needed.
void cost_aggregate_x(const CostAggregateXInputs& in, DisparityRange range, DeviceVolume16& cax_left,
                      DeviceVolume16& cax_right, int ordinal, cudaStream_t stream, int max_arm = 255,
                      int segment_cols = 0);

/// The tallest column aggregate_y_wta holds whole in shared memory on device `ordinal`; taller
/// images are processed in segments of rows.
int max_column_height(int ordinal);

/// True when aggregate_y_wta can process columns of `height` with arms of up to `max_arm`.
bool aggregate_y_supports(int height, int max_arm, int ordinal);

/// Eq. 8-9 fused, one block per column (or per segment of a column): disparity = reference
/// wta(aggregate_y(cax, arms_y)); with `refined`, also refined = reference
/// wta_subpixel(aggregate_y(cax, arms_y)). A column taller than max_column_height() is split into
/// segments that each read `max_arm` rows beyond their ends: every arm must be at most
/// `max_arm` (the matcher passes W_y). `segment_rows` > 0 forces segments of that many rows
/// (tests), 0 = only where needed.
void aggregate_y_wta(const DeviceVolume16& cax, const DeviceImage<uchar2>& arms_y, DeviceImage<float>& disparity,
                     int ordinal, cudaStream_t stream, DeviceImage<float>* refined = nullptr, int max_arm = 255,
                     int segment_rows = 0);

/// Eq. 10: = reference gcp.
void gcp(const DeviceImage<float>& left_disparity, const DeviceImage<float>& right_disparity,
         DeviceImage<std::uint8_t>& gcp_mask, cudaStream_t stream);

/// Sec. III-E: = reference bilateral_fill. `out` must differ from `disparity`.
void bilateral_fill(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& gcp_mask,
                    const DeviceImage<std::uint8_t>& grey, int t, DeviceImage<float>& out, cudaStream_t stream);

/// Sec. IV-H: = reference scale_up (clamped to the full-size `range`); `out` has grey_full's size.
void scale_up(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& grey_full, int t,
              DisparityRange range, DeviceImage<float>& out, cudaStream_t stream);

}  // namespace stereo::cu::crossrt
