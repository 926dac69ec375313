#pragma once
/// \file methods/sgbm/include/stereo/sgbm.h
/// OpenCV's semi-global block matcher (cv::StereoSGBM), the peer users would otherwise pick:
/// H. Hirschmüller, "Stereo processing by semiglobal matching and mutual information", IEEE
/// TPAMI 30(2), 2008, as OpenCV implements it (Birchfield-Tomasi cost over a block instead of
/// mutual information). Backend `opencv`, built only where CMake finds OpenCV. Parameters of
/// that backend; the defaults are OpenCV's documented recommendations unless a comment says why.
///
/// The parameters as a typed struct (stereo::sgbm::Params): fields with the paper's defaults, each
/// citing where it comes from, and create() for it beside the string overrides (`--set`,
/// stereo/stereo.h's create(name, backend, overrides)); both bind the same keys.

#include <string>

#include "stereo/params.h"

namespace stereo {

namespace sgbm {

struct Params {
  int block_size = 5;          // matched block side, odd; OpenCV documents 3..11
  int p1 = 0;                  // 0 = OpenCV's recommended 8 x channels x block_size^2
  int p2 = 0;                  // 0 = OpenCV's recommended 32 x channels x block_size^2
  int uniqueness_ratio = 10;   // OpenCV's documented 5..15 range, its middle
  int disp12_max_diff = 1;     // left-right check tolerance in pixels (OpenCV samples use 1)
  int speckle_window = 100;    // OpenCV documents 50..200
  int speckle_range = 2;       // OpenCV documents 1 or 2 (x16 internally)
  int pre_filter_cap = 63;     // OpenCV's samples: the largest cap of the x-derivative prefilter
  std::string mode = "sgbm_3way";  // MODE_SGBM_3WAY: 3 directions, the fast mode users run
  std::string fill = "left";   // invalid pixels take the nearest valid disparity to their left
  int threads = 0;             // 0 = OpenCV's own default (cv::getNumThreads())
};

}  // namespace sgbm

class StereoMatcher;  // stereo/stereo.h, which a caller of create() includes

/// The matcher of sgbm on `backend` with `params`; `options` sets the backend's own knobs
/// (stereo::options("sgbm", backend)) and may name parameters too, which then win over
/// `params`. The map is the one create("sgbm", backend, overrides) gives for the same values.
/// Throws stereo::Error as that create() does (a value out of range names the key).
StereoMatcher create(const sgbm::Params& params, const std::string& backend, const Overrides& options = {});

}  // namespace stereo
