#pragma once
/// \file reference/colour_difference.h
/// The colour distance that AD-Census's cross arms, scanline penalties and interpolation
/// (Mei et al. Sec. 2.2-2.4, D_c) and ESAW's max_rgb weight share. One definition here, one
/// CUDA twin in cuda/shared/colour_difference.cuh.

#include <algorithm>
#include <cstdlib>

#include "core/image.h"

namespace stereo::reference {

/// The largest absolute difference over the channels of pixels (x0, y0) and (x1, y1) of `image`
/// (both inside it): D_c of an RGB image, the grey difference of a grey one.
inline int max_channel_difference(const ImageU8& image, int x0, int y0, int x1, int y1) {
  int most = 0;
  for (int c = 0; c < image.channels; ++c)
    most = std::max(most, std::abs(int(image.at(x0, y0, c)) - int(image.at(x1, y1, c))));
  return most;
}

}  // namespace stereo::reference
