#pragma once
/// \file include/stereo/image_view.h
/// Images in the caller's memory, borrowed rather than copied: a numpy array, an OpenCV
/// cv::Mat, a row of a larger frame buffer, a CUDA allocation. A view names where the first
/// pixel is, the size, the channel count and the row pitch in bytes; it owns nothing, so the
/// memory must stay valid and unchanged for the call that reads it.
///
/// Which layouts each backend reads in place and which it copies first (Matcher::compute on
/// views, core/matcher.h):
///   - cpu and opencv backends: every view is copied once into a dense ImageU8 (their stages
///     take images); the ImageU8 overloads copy nothing;
///   - gl, glcompute: the upload writes the view into its pixel buffer row by row, as it
///     writes an ImageU8 (one copy in both cases, none added for a pitch);
///   - CUDA (every method's cuda backend): host views of any pitch are copied to the device
///     by one cudaMemcpy2DAsync each (salap/cuda: through its pinned staging, row by row),
///     no host copy; views in CUDA device memory are copied device to device into the
///     matcher's workspace, never through the host.
/// Device views are read only by the CUDA backends; every other backend refuses them.

#include <cstddef>
#include <cstdint>
#include <string>

#include "stereo/image.h"

namespace stereo {

/// Where a view's bytes are.
enum class Memory {
  host,  ///< host memory the CPU reads (pageable or pinned)
  cuda,  ///< CUDA device memory of ImageView::device / DisparityView::device
};

/// The order of a colour view's three bytes per pixel. Every method reads RGB; OpenCV's
/// cv::imread and cv::Mat hand out BGR, which a matcher would read as other colours (and match
/// to another map) unless the view says so.
enum class ChannelOrder {
  rgb,  ///< red, green, blue: PNG/stb, PIL, NumPy images, the suite's own ImageU8
  bgr,  ///< blue, green, red: OpenCV
};

/// `height` rows of `width` pixels of `channels` interleaved bytes (1 = grey, 3 = colour in
/// `order`); row y starts at data + y * pitch. Borrowed: nothing here keeps the memory alive.
struct ImageView {
  const std::uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 1;
  std::size_t pitch = 0;  ///< bytes from one row's start to the next's, >= width * channels
  Memory memory = Memory::host;
  int device = -1;  ///< Memory::cuda: the CUDA device ordinal the memory belongs to
  /// Memory::cuda: the cudaStream_t (as an integer) on which the caller's pending writes of
  /// the image are queued; the matcher waits for that stream's work (an event, not the host)
  /// before it reads. 0 = the default stream, where most libraries (PyTorch, CuPy) write.
  std::uintptr_t stream = 0;
  /// A 3-channel view's byte order. Matcher::compute reads a BGR host view through one RGB
  /// copy (as_rgb, core/image_view.h); grey views ignore it.
  ChannelOrder order = ChannelOrder::rgb;

  ImageView() = default;
  /// A host view; `pitch` 0 means dense (width * channels).
  ImageView(const std::uint8_t* pixels, int w, int h, int c, std::size_t row_pitch = 0)
      : data(pixels), width(w), height(h), channels(c), pitch(row_pitch != 0 ? row_pitch : dense_pitch(w, c)) {}
  /// A dense host view of `image` (which must outlive the view).
  explicit ImageView(const ImageU8& image) : ImageView(image.data.data(), image.width, image.height, image.channels) {}

  /// A view of CUDA device memory on device `ordinal`; `pitch` 0 means dense. `ready_on`: the
  /// stream the image's writes are queued on (see `stream`).
  static ImageView cuda(const void* d_pixels, int w, int h, int c, std::size_t row_pitch, int ordinal,
                        std::uintptr_t ready_on = 0) {
    ImageView v(static_cast<const std::uint8_t*>(d_pixels), w, h, c, row_pitch);
    v.memory = Memory::cuda;
    v.device = ordinal;
    v.stream = ready_on;
    return v;
  }

  /// Bytes of one row's pixels (width * channels).
  [[nodiscard]] std::size_t row_bytes() const { return dense_pitch(width, channels); }
  /// True when the rows follow each other without a gap (pitch == row_bytes()).
  [[nodiscard]] bool dense() const { return pitch == row_bytes(); }
  [[nodiscard]] const std::uint8_t* row(int y) const { return data + static_cast<std::size_t>(y) * pitch; }

  [[nodiscard]] static std::size_t dense_pitch(int w, int c) {
    return static_cast<std::size_t>(w < 0 ? 0 : w) * static_cast<std::size_t>(c < 0 ? 0 : c);
  }
};

/// Where a float disparity map goes in the caller's memory: `height` rows of `width` floats,
/// row y at (bytes) data + y * pitch. Memory::cuda only for backends of the CUDA frame.
struct DisparityView {
  float* data = nullptr;
  int width = 0;
  int height = 0;
  std::size_t pitch = 0;  ///< bytes from one row's start to the next's, >= width * 4
  Memory memory = Memory::host;
  int device = -1;  ///< Memory::cuda: the device ordinal

  DisparityView() = default;
  /// A host map; `pitch` 0 means dense (width * sizeof(float)).
  DisparityView(float* pixels, int w, int h, std::size_t row_pitch = 0)
      : data(pixels), width(w), height(h),
        pitch(row_pitch != 0 ? row_pitch : static_cast<std::size_t>(w < 0 ? 0 : w) * sizeof(float)) {}
  /// A dense host view of `map` (which must outlive the view).
  explicit DisparityView(ImageF& map) : DisparityView(map.data.data(), map.width, map.height) {}
  /// A map in CUDA device memory on device `ordinal`; `pitch` 0 means dense.
  static DisparityView cuda(float* d_pixels, int w, int h, std::size_t row_pitch, int ordinal) {
    DisparityView v(d_pixels, w, h, row_pitch);
    v.memory = Memory::cuda;
    v.device = ordinal;
    return v;
  }

  [[nodiscard]] std::size_t row_bytes() const { return static_cast<std::size_t>(width < 0 ? 0 : width) * sizeof(float); }
  [[nodiscard]] float* row(int y) const {
    return reinterpret_cast<float*>(reinterpret_cast<std::uint8_t*>(data) + static_cast<std::size_t>(y) * pitch);
  }
};

/// "host" or "cuda".
const char* to_string(Memory memory);

/// A dense copy of a host view: what a backend whose stages take an ImageU8 reads.
ImageU8 to_image(const ImageView& view);

/// Copies `map` (width x height, one channel) into the host view `out` of the same size, row by row.
void copy_rows(const ImageF& map, const DisparityView& out);

/// Checks an output view before a matcher writes into it: non-null, `width` x `height`, pitch
/// >= width * 4 and 4-byte aligned; messages start with `component`.
void validate_output(const DisparityView& out, int width, int height, const std::string& component);

}  // namespace stereo
