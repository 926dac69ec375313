#pragma once
/// \file core/image_view.h
/// ImageView and DisparityView are public: declared in include/stereo/image_view.h, which users include.

#include "stereo/image_view.h"

#include <string>

namespace stereo {

/// `view` as the RGB view every method reads: the view itself where it is grey or RGB, else
/// (a BGR host view) a dense view of `storage`, which receives the RGB copy and must outlive
/// the returned view. A BGR view in CUDA memory is refused (stereo::Error naming `component`):
/// reverse its channels on the device first.
ImageView as_rgb(const ImageView& view, ImageU8& storage, const std::string& component);

}  // namespace stereo
