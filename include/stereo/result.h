#pragma once
/// \file include/stereo/result.h
/// What a matcher gives back: the disparity map of a pair with its timing (StereoResult,
/// Timing), the map in its smallest exact form (DisparityMap), the cost volume where asked
/// for (DisparitySpaceImage), and the frames of a sequence (FramePair, FrameResult, FrameSource,
/// FrameSink). Declared here, public, and used alike by the library's matchers.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stereo/disparity_range.h"
#include "stereo/image.h"

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

/// A method's cost volume (disparity space image), for users who want it rather than the map
/// (`stereo run --dsi`). Raw layout: float32, x fastest, then y, then level; level k is
/// disparity range.min + k. `better` says which way a value is a better match.
struct DisparitySpaceImage {
  int width = 0;
  int height = 0;
  DisparityRange range;
  std::string meaning;  ///< what a value is ("joint energy E = E_A x E_S, eq. 7")
  std::string better;   ///< "higher" or "lower"
  std::vector<float> data;  ///< index (k * height + y) * width + x
};

struct StereoResult {
  ImageF disparity;  ///< pixels; +inf where the method gives none
  Timing timing;
  /// The cost volume, only after Matcher::request_cost_volume(true) on a backend that has one.
  std::optional<DisparitySpaceImage> dsi;
};

/// A disparity map in the smallest form that holds it exactly. Methods whose every pixel gets
/// a whole level (SA-LAP's winner-takes-all) give level indices, disparity = range.min +
/// index: 8 bits when range.count <= 256, 16 bits otherwise, a quarter or half of a float
/// map's bytes to read back. Methods with sub-pixel values or pixels without a disparity give
/// floats. to_float() widens on the host, only when a float map is asked for.
struct DisparityMap {
  enum class Form { pixels_f32, index_u8, index_u16 };
  Form form = Form::pixels_f32;
  int width = 0;
  int height = 0;
  DisparityRange range;
  ImageF pixels;                      ///< Form::pixels_f32: disparity in pixels, +inf = none
  std::vector<std::uint8_t> index8;   ///< Form::index_u8: row-major level indices
  std::vector<std::uint16_t> index16; ///< Form::index_u16: row-major level indices

  /// The index form for `levels`: index_u8 up to 256 levels, index_u16 above.
  [[nodiscard]] static Form index_form(int levels) { return levels <= 256 ? Form::index_u8 : Form::index_u16; }
  /// A pixels_f32 map that takes over `pixels` (disparity in pixels, +inf = none).
  static DisparityMap of_pixels(ImageF pixels, DisparityRange range);
  /// A map of `form` and this size, every index 0 (every pixel +inf for pixels_f32).
  static DisparityMap allocate(Form form, int width, int height, DisparityRange range);
  /// Disparity in pixels as compute() returns it (range.min + index, exactly, as float).
  [[nodiscard]] ImageF to_float() const;
  /// to_float() into `out` (resized when its size differs), without a new allocation when it fits.
  void to_float(ImageF& out) const;
};

/// One pair of a sequence, as a FrameSource fills it.
struct FramePair {
  ImageU8 left;
  ImageU8 right;
};

/// The result of frame `index` (0-based, in the order the source gave the pairs).
struct FrameResult {
  std::size_t index = 0;
  DisparityMap disparity;
  /// Device or host time of this frame's upload, matching and read-back. In a pipelined
  /// sequence these overlap with other frames' work; the sum is the frame's own cost, not
  /// the interval between results.
  Timing timing;
};

/// Fills `pair` with the next pair of the sequence and returns true, or returns false at the
/// end. Throws (stereo::Error naming the frame) on bad input; frames it gave before are
/// still completed and delivered.
using FrameSource = std::function<bool(FramePair& pair)>;
/// Receives each frame's result, in frame order, once it is complete.
using FrameSink = std::function<void(FrameResult&& result)>;

}  // namespace stereo
