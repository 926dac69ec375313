#pragma once
/// \file methods/sgbm/params.h
/// OpenCV's semi-global block matcher (cv::StereoSGBM), the peer users would otherwise pick:
/// H. Hirschmüller, "Stereo processing by semiglobal matching and mutual information", IEEE
/// TPAMI 30(2), 2008, as OpenCV implements it (Birchfield-Tomasi cost over a block instead of
/// mutual information). Backend `opencv`, built only where CMake finds OpenCV. Parameters of
/// that backend; the defaults are OpenCV's documented recommendations unless a comment says why.

#include <string>

#include "core/error.h"
#include "stereo/sgbm.h"

namespace stereo {


/// stereo::sgbm::Params (stereo/sgbm.h) with its binding to the `--set` keys and
/// its range checks.
struct SgbmParams : sgbm::Params {
  template <class B>
  void describe(B& b) {
    b.field("block_size", block_size, "matched block side, odd (OpenCV: 3..11; 5 chosen)");
    b.field("p1", p1, "penalty of a 1-level change; 0 = 8 x channels x block_size^2 (OpenCV's recommendation)");
    b.field("p2", p2, "penalty of larger changes; 0 = 32 x channels x block_size^2 (OpenCV's recommendation)");
    b.field("uniqueness_ratio", uniqueness_ratio, "winner margin in % (OpenCV: 5..15; 10 chosen)");
    b.field("disp12_max_diff", disp12_max_diff, "left-right check tolerance in px (< 0: off; OpenCV samples: 1)");
    b.field("speckle_window", speckle_window, "largest speckle region removed, px (OpenCV: 50..200; 0 = off)");
    b.field("speckle_range", speckle_range, "disparity variation within a speckle region (OpenCV: 1 or 2)");
    b.field("pre_filter_cap", pre_filter_cap, "cap of the prefiltered x-derivative (OpenCV samples: 63)");
    b.choice("mode", mode, {"sgbm", "sgbm_3way", "hh", "hh4"}, "StereoSGBM mode (MODE_SGBM_3WAY by default)");
    b.choice("fill", fill, {"left", "none"},
             "invalid pixels: nearest valid disparity to the left in the row (right if none), or none (+inf)");
    b.field("threads", threads, "OpenCV threads (0 = OpenCV's default)");
  }

  void validate(const std::string& component) const {
    require(block_size >= 1 && block_size % 2 == 1, component + ": block_size must be odd and >= 1, got " +
                                                        std::to_string(block_size));
    require(p1 >= 0 && p2 >= 0, component + ": p1 and p2 must be >= 0");
    require(uniqueness_ratio >= 0, component + ": uniqueness_ratio must be >= 0");
    require(speckle_window >= 0 && speckle_range >= 0, component + ": speckle_window and speckle_range must be >= 0");
    require(pre_filter_cap >= 1 && pre_filter_cap <= 63, component + ": pre_filter_cap must be in 1..63");
    require(threads >= 0, component + ": threads must be >= 0, got " + std::to_string(threads));
  }
};

}  // namespace stereo
