#pragma once
/// \file include/stereo/io.h
/// Image and disparity-map files (app/image_io.h, the suite's data layer): what a program
/// around a matcher reads and writes.
///  - read_image(path): PNG, PPM/PGM, JPEG, BMP, TGA as an ImageU8 of 1 (grey) or 3 (RGB)
///    channels, alpha dropped;
///  - write_pfm(path, map): a float disparity map as little-endian grey PFM, +inf = unknown
///    (Middlebury v3's convention); read_pfm(path) reads either endianness and colour PFMs;
///  - write_png / write_png16 / write_disparity_png16 (KITTI: round(d * 256), 0 = none) and
///    read_png16 / read_disparity_png16.
/// Every reader and writer throws stereo::Error naming the file; writers never leave a
/// half-written file behind.

#include "app/image_io.h"
#include "core/error.h"
#include "core/image.h"
