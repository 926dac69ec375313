#pragma once
/// \file
/// The 3x3 median filter that several methods end with (AD-Census's refinement, ESAW/ESMP,
/// Chang and Maruyama's post-processing). One definition here, one CUDA twin in
/// cuda/shared/median.h, tested against each other bit for bit.

#include "core/image.h"

namespace stereo::reference {

/// 3x3 median of a one-channel float map, clamp-to-edge at the borders. NaN-free input is
/// assumed; +inf sorts last, so an invalid pixel (+inf) survives only where five or more of
/// its window are invalid. Integer-valued maps stay integer-valued.
ImageF median_3x3(const ImageF& disparity);

}  // namespace stereo::reference
