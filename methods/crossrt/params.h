#pragma once
/// \file methods/crossrt/params.h
/// Real-time high-resolution cross-based stereo: Q. Chang, T. Maruyama, "Real-Time
/// High-Quality Stereo Matching System on a GPU", IEEE ASAP 2018. Grey images scaled down by K = 2, AD + mini-census cost,
/// cross aggregation along x then y, WTA for both views, ground control points by cross-check,
/// median + bilateral fill, bilateral/linear scale-up. Parameters of every backend; the
/// defaults are the paper's Sec. V and Table II unless a comment says why not.

#include <string>

#include "core/error.h"
#include "stereo/crossrt.h"

namespace stereo {


/// stereo::crossrt::Params (stereo/crossrt.h) with its binding to the `--set` keys and
/// its range checks.
struct CrossRtParams : crossrt::Params {
  template <class B>
  void describe(B& b) {
    b.field("lambda_ad", lambda_ad, "AD fall-off, intensities on [0,1] (Chang & Maruyama Sec. V: 0.3)");
    b.field("lambda_mc", lambda_mc, "mini-census fall-off over the 0..6 Hamming distance (Sec. V: 2.3)");
    b.field("t", t, "bilateral fill: GCP disparities within T are interpolated (Sec. V: 3)");
    b.field("wx", wx, "longest horizontal arm on each side, pixels (Table II: window W_x = 21 = 2 * 10 + 1)");
    b.field("wy", wy, "longest vertical arm on each side, pixels (Table II: window W_y = 31 = 2 * 15 + 1)");
    b.field("tc", tc, "arm brightness threshold on 0..255 (Table II: TC = 13)");
    b.field("scale", scale, "scale-down factor K (eq. 2: 2; 1 runs without scale-down/up)");
    b.field("subpixel", subpixel, "1: parabola sub-pixel WTA before the post stages (our addition); 0: the paper's integer WTA");
  }

  void validate(const std::string& component) const {
    require(lambda_ad > 0.0f && lambda_mc > 0.0f, component + ": lambda_ad and lambda_mc must be > 0");
    require(t >= 0, component + ": t must be >= 0, got " + std::to_string(t));
    // The integer sums are sized for these limits (methods/crossrt/cuda/NOTES.md): a row sum of
    // 2 * 127 + 1 costs and a column sum of 2 * 127 + 1 rows fit in 32 bits with room.
    require(wx >= 0 && wx <= 127, component + ": wx must be in 0..127, got " + std::to_string(wx));
    require(wy >= 0 && wy <= 127, component + ": wy must be in 0..127, got " + std::to_string(wy));
    require(tc >= 0 && tc <= 256, component + ": tc must be in 0..256, got " + std::to_string(tc));
    require(subpixel == 0 || subpixel == 1, component + ": subpixel must be 0 or 1, got " + std::to_string(subpixel));
    require(scale == 1 || scale == 2, component + ": scale must be 1 or 2 (eq. 2's K), got " + std::to_string(scale));
  }
};

}  // namespace stereo
