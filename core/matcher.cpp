// The Matcher interface's own code: validation before every match, the compact disparity form, the
// validation every streamed frame gets, and the frame-by-frame default that lets every method stream.

#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/matcher.h"
#include "core/validate.h"

namespace stereo {

StereoResult Matcher::compute(const ImageU8& left, const ImageU8& right, DisparityRange range) {
  validate_pair(left, right, range, component());
  return match(left, right, range);
}

DisparityMap DisparityMap::allocate(Form form, int width, int height, DisparityRange range) {
  DisparityMap m;
  m.form = form;
  m.width = width;
  m.height = height;
  m.range = range;
  const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  switch (form) {
    case Form::pixels_f32: m.pixels = ImageF(width, height, 1, std::numeric_limits<float>::infinity()); break;
    case Form::index_u8:
      require(range.count <= 256, "disparity map: 8-bit indices hold 256 levels, the range has " +
                                      std::to_string(range.count));
      m.index8.assign(n, 0);
      break;
    case Form::index_u16:
      require(range.count <= 65536, "disparity map: 16-bit indices hold 65536 levels, the range has " +
                                        std::to_string(range.count));
      m.index16.assign(n, 0);
      break;
  }
  return m;
}

void DisparityMap::to_float(ImageF& out) const {
  if (out.width != width || out.height != height || out.channels != 1) out = ImageF(width, height, 1);
  const std::size_t n = out.data.size();
  // Level indices and range.min are whole numbers far below 2^24, so min + index is exact in
  // float and the widened map equals the float map the same backend would have returned.
  const auto d_min = static_cast<float>(range.min);
  switch (form) {
    case Form::pixels_f32: out.data = pixels.data; break;
    case Form::index_u8:
      for (std::size_t i = 0; i < n; ++i) out.data[i] = d_min + static_cast<float>(index8[i]);
      break;
    case Form::index_u16:
      for (std::size_t i = 0; i < n; ++i) out.data[i] = d_min + static_cast<float>(index16[i]);
      break;
  }
}

ImageF DisparityMap::to_float() const {
  ImageF out;
  to_float(out);
  return out;
}

DisparityMap Matcher::compute_compact(const ImageU8& left, const ImageU8& right, DisparityRange range,
                                      Timing* timing) {
  validate_pair(left, right, range, component());
  Timing local;
  DisparityMap map = match_compact(left, right, range, timing != nullptr ? *timing : local);
  return map;
}

DisparityMap DisparityMap::of_pixels(ImageF pixels, DisparityRange range) {
  DisparityMap map;
  map.form = Form::pixels_f32;
  map.width = pixels.width;
  map.height = pixels.height;
  map.range = range;
  map.pixels = std::move(pixels);
  return map;
}

DisparityMap Matcher::match_compact(const ImageU8& left, const ImageU8& right, DisparityRange range, Timing& timing) {
  StereoResult r = match(left, right, range);
  timing = std::move(r.timing);
  return DisparityMap::of_pixels(std::move(r.disparity), range);
}

// Each view entry point hands the backend RGB views only (as_rgb): a BGR pair is read through
// one RGB copy each, an RGB or grey pair as it is.
StereoResult Matcher::compute(const ImageView& left, const ImageView& right, DisparityRange range) {
  validate_pair(left, right, range, component());
  ImageU8 left_rgb, right_rgb;
  return match_view(as_rgb(left, left_rgb, component()), as_rgb(right, right_rgb, component()), range);
}

DisparityMap Matcher::compute_compact(const ImageView& left, const ImageView& right, DisparityRange range,
                                      Timing* timing) {
  validate_pair(left, right, range, component());
  Timing local;
  ImageU8 left_rgb, right_rgb;
  return match_compact_view(as_rgb(left, left_rgb, component()), as_rgb(right, right_rgb, component()), range,
                            timing != nullptr ? *timing : local);
}

Timing Matcher::compute_into(const ImageView& left, const ImageView& right, DisparityRange range,
                             const DisparityView& out) {
  validate_pair(left, right, range, component());
  validate_output(out, left.width, left.height, component());
  ImageU8 left_rgb, right_rgb;
  return match_into(as_rgb(left, left_rgb, component()), as_rgb(right, right_rgb, component()), range, out);
}

void Matcher::not_in_host_memory(const char* what) const {
  throw Error(component() + ": " + what + " is in CUDA device memory; this backend reads and writes host memory only");
}

StereoResult Matcher::match_view(const ImageView& left, const ImageView& right, DisparityRange range) {
  if (left.memory != Memory::host) not_in_host_memory("the image pair");
  return match(to_image(left), to_image(right), range);
}

DisparityMap Matcher::match_compact_view(const ImageView& left, const ImageView& right, DisparityRange range,
                                         Timing& timing) {
  StereoResult r = match_view(left, right, range);
  timing = std::move(r.timing);
  return DisparityMap::of_pixels(std::move(r.disparity), range);
}

Timing Matcher::match_into(const ImageView& left, const ImageView& right, DisparityRange range,
                           const DisparityView& out) {
  if (out.memory != Memory::host) not_in_host_memory("the disparity view");
  StereoResult r = match_view(left, right, range);
  const auto t0 = std::chrono::steady_clock::now();
  copy_rows(r.disparity, out);
  r.timing.readback_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r.timing;
}

void Matcher::match_stream(DisparityRange range, const FrameSource& next, const FrameSink& done) {
  FramePair pair;
  for (std::size_t index = 0; next(pair); ++index) {
    FrameResult result;
    result.index = index;
    result.disparity = match_compact(pair.left, pair.right, range, result.timing);
    done(std::move(result));
  }
}

void Matcher::match_sequence(DisparityRange range, const FrameSource& next, const FrameSink& done) {
  // The backend sees only pairs that compute() would accept, all of the first pair's shape, so
  // a pipelined override never has to reallocate in the middle of a sequence.
  std::size_t index = 0;
  int width = 0, height = 0, channels = 0;
  const FrameSource checked = [&](FramePair& pair) -> bool {
    if (!next(pair)) return false;
    const std::string frame = component() + ": frame " + std::to_string(index);
    validate_pair(pair.left, pair.right, range, frame);
    if (index == 0) {
      width = pair.left.width;
      height = pair.left.height;
      channels = pair.left.channels;
    } else {
      require(pair.left.width == width && pair.left.height == height, [&] {
        return frame + ": size " + std::to_string(pair.left.width) + "x" + std::to_string(pair.left.height) +
               " differs from the sequence's " + std::to_string(width) + "x" + std::to_string(height);
      });
      require(pair.left.channels == channels && pair.right.channels == channels, [&] {
        return frame + ": " + std::to_string(pair.left.channels) + " channels where the sequence has " +
               std::to_string(channels);
      });
    }
    ++index;
    return true;
  };
  match_stream(range, checked, done);
}

}  // namespace stereo
