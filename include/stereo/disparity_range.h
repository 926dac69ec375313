#pragma once
/// \file include/stereo/disparity_range.h
/// The disparities a matcher searches.

namespace stereo {

/// min, min + 1, ..., min + count - 1 (OpenCV's minDisparity / numDisparities). A pixel (x, y)
/// of the left view is matched against (x - d, y) of the right view; min may be negative
/// (verging rigs, MiddEval3's vmin). Disparity maps hold d itself, not the index d - min.
struct DisparityRange {
  int min = 0;
  int count = 0;
  [[nodiscard]] int max() const { return min + count - 1; }
};

}  // namespace stereo
