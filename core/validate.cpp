// The input contract every matcher checks before it runs.

#include "core/validate.h"

#include <string>

#include "core/error.h"

namespace stereo {
namespace {

// Every broken input contract is the caller's argument, not a failure of the matcher.
constexpr ErrorKind INPUT = ErrorKind::invalid_argument;

// The messages are made only when a check fails (every call validates its inputs; building each
// text every time cost more than the checks).
void check_sizes_and_channels(int lw, int lh, int lc, int rw, int rh, int rc, const std::string& component) {
  require(lw == rw && lh == rh, [&] {
    return component + ": left is " + std::to_string(lw) + "x" + std::to_string(lh) + " but right is " +
           std::to_string(rw) + "x" + std::to_string(rh);
  }, INPUT);
  require(lc == rc, [&] {
    return component + ": left has " + std::to_string(lc) + " channels, right " + std::to_string(rc);
  }, INPUT);
  require(lc == 1 || lc == 3, [&] {
    return component + ": inputs must be grey or RGB, got " + std::to_string(lc) + " channels";
  }, INPUT);
}

void check_range(int width, DisparityRange range, const std::string& component) {
  require(range.count >= 1, [&] {
    return component + ": disparity levels must be >= 1, got " + std::to_string(range.count);
  }, INPUT);
  if (range.min == 0)
    require(range.count < width, [&] {
      return component + ": disparity levels " + std::to_string(range.count) + " must be below the image width " +
             std::to_string(width);
    }, INPUT);
  const long long lo = range.min, hi = static_cast<long long>(range.min) + range.count - 1;
  require(lo > -width && hi < width, [&] {
    return component + ": disparity range " + std::to_string(lo) + ".." + std::to_string(hi) +
           " leaves no overlap for an image " + std::to_string(width) +
           " wide (every disparity must satisfy -width < d < width)";
  }, INPUT);
}

void check_pitch(const ImageView& view, const char* side, const std::string& component) {
  require(view.pitch >= view.row_bytes(), [&] {
    return component + ": the " + side + " view's pitch " + std::to_string(view.pitch) + " bytes is below its row of " +
           std::to_string(view.row_bytes()) + " bytes (width x channels)";
  }, INPUT);
}

}  // namespace

void validate_pair(const ImageU8& left, const ImageU8& right, DisparityRange range, const std::string& component) {
  require(!left.empty() && !right.empty(), [&] { return component + ": empty input image"; }, INPUT);
  check_sizes_and_channels(left.width, left.height, left.channels, right.width, right.height, right.channels,
                           component);
  require(left.data.size() == left.pixel_count() * static_cast<std::size_t>(left.channels) &&
              right.data.size() == right.pixel_count() * static_cast<std::size_t>(right.channels),
          [&] { return component + ": image data does not match its size"; }, INPUT);
  check_range(left.width, range, component);
}

void validate_pair(const ImageView& left, const ImageView& right, DisparityRange range, const std::string& component) {
  require(left.width > 0 && left.height > 0 && right.width > 0 && right.height > 0,
          [&] { return component + ": empty input image"; }, INPUT);
  require(left.data != nullptr && right.data != nullptr,
          [&] { return component + ": an input view has no memory (null data)"; }, INPUT);
  check_sizes_and_channels(left.width, left.height, left.channels, right.width, right.height, right.channels,
                           component);
  check_pitch(left, "left", component);
  check_pitch(right, "right", component);
  require(left.memory == right.memory, [&] {
    return component + ": the left view is in " + to_string(left.memory) + " memory, the right in " +
           to_string(right.memory) + " memory";
  }, INPUT);
  if (left.memory == Memory::cuda)
    require(left.device >= 0 && left.device == right.device, [&] {
      return component + ": the views are on CUDA devices " + std::to_string(left.device) + " and " +
             std::to_string(right.device) + "; both must be on the matcher's device";
    }, INPUT);
  check_range(left.width, range, component);
}

}  // namespace stereo
