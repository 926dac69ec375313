// The input contract every matcher checks before it runs.

#include "core/validate.h"

#include <string>

#include "core/error.h"

namespace stereo {

void validate_pair(const ImageU8& left, const ImageU8& right, DisparityRange range, const std::string& component) {
  constexpr ErrorKind INPUT = ErrorKind::invalid_argument;
  require(!left.empty() && !right.empty(), component + ": empty input image", INPUT);
  require(left.same_size(right.width, right.height),
          component + ": left is " + std::to_string(left.width) + "x" + std::to_string(left.height) +
              " but right is " + std::to_string(right.width) + "x" + std::to_string(right.height), INPUT);
  require(left.channels == right.channels,
          component + ": left has " + std::to_string(left.channels) + " channels, right " +
              std::to_string(right.channels), INPUT);
  require(left.channels == 1 || left.channels == 3,
          component + ": inputs must be grey or RGB, got " + std::to_string(left.channels) + " channels", INPUT);
  require(left.data.size() == left.pixel_count() * static_cast<std::size_t>(left.channels) &&
              right.data.size() == right.pixel_count() * static_cast<std::size_t>(right.channels),
          component + ": image data does not match its size", INPUT);
  require(range.count >= 1, component + ": disparity levels must be >= 1, got " + std::to_string(range.count), INPUT);
  if (range.min == 0)
    require(range.count < left.width, component + ": disparity levels " + std::to_string(range.count) +
                                          " must be below the image width " + std::to_string(left.width), INPUT);
  const long long lo = range.min, hi = static_cast<long long>(range.min) + range.count - 1;
  require(lo > -left.width && hi < left.width,
          component + ": disparity range " + std::to_string(lo) + ".." + std::to_string(hi) +
              " leaves no overlap for an image " + std::to_string(left.width) +
              " wide (every disparity must satisfy -width < d < width)", INPUT);
}

}  // namespace stereo
