#pragma once
/// \file core/validate.h
/// The input contract of every matcher, checked by Matcher::compute() and for every streamed
/// frame before a method sees the pair.

#include <string>

#include "core/disparity_range.h"
#include "core/image.h"
#include "core/image_view.h"

namespace stereo {

/// Checks a pair before a method runs: non-empty, equal sizes and channel counts (1 or 3), count >= 1,
/// and every searched disparity leaves some overlap of the two views (-width < d < width).
void validate_pair(const ImageU8& left, const ImageU8& right, DisparityRange range, const std::string& component);
/// The same over 0 .. levels-1 (1 <= levels < width).
inline void validate_pair(const ImageU8& left, const ImageU8& right, int levels, const std::string& component) {
  validate_pair(left, right, DisparityRange{0, levels}, component);
}
/// The same for views (core/image_view.h), whose data the check does not read: non-empty and
/// not null, equal sizes and channel counts (1 or 3), each pitch >= width * channels, both in
/// the same memory (and for CUDA memory, on the same device), and the range as above.
void validate_pair(const ImageView& left, const ImageView& right, DisparityRange range, const std::string& component);

}  // namespace stereo
