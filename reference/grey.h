#pragma once
/// \file reference/grey.h
/// The CPU references' grey conversion: AD-Census's census input, ESAW's rgb2grey (eq. 3's I),
/// SymStereo's and the cross-based method's grey images all use this one luma.

#include "core/image.h"

namespace stereo::reference {

/// Integer BT.601 luma, (77 R + 150 G + 29 B + 128) >> 8; a grey input is returned as is.
/// Throws stereo::Error for 2 channels.
ImageU8 grey_image(const ImageU8& image);

}  // namespace stereo::reference
