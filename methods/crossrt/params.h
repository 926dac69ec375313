#pragma once
/// \file host/methods/crossrt.h
/// Real-time high-resolution cross-based stereo: Q. Chang, T. Maruyama, "Real-Time
/// High-Quality Stereo Matching System on a GPU", IEEE ASAP 2018. Grey images scaled down by K = 2, AD + mini-census cost,
/// cross aggregation along x then y, WTA for both views, ground control points by cross-check,
/// median + bilateral fill, bilateral/linear scale-up. Parameters of every backend; the
/// defaults are the paper's Sec. V and Table II unless a comment says why not.

#include <string>

#include "core/error.h"

namespace stereo {

struct CrossRtParams {
  // Eq. 4 on intensities normalised to [0, 1] (|L - R| / 255): on 0..255 a fall-off of 0.3
  // would saturate the AD term at a difference of one grey level; on [0, 1] it falls to
  // 1 - 1/e at 0.3 * 255 = 76.5 grey levels, which is of the order of eq. 5's
  // 1 - exp(-MC / 2.3) over the 0..6 Hamming range, so the two terms weigh alike (the
  // reading under which the paper's two constants make sense together).
  float lambda_ad = 0.3f;   // lambda_AD, Sec. V
  float lambda_mc = 2.3f;   // lambda_MC, Sec. V
  int t = 3;                // T, disparity-difference threshold of eq. 11, Sec. V
  // W_x = 21 and W_y = 31 (Table I/II) read as full window widths 2 r + 1, so the arms reach
  // r = 10 and 15 pixels on each side: every value of Table I is odd (5, 9, 21, 41, 61, 141),
  // and Sec. V's windows for images twice the size, W_x = 41 and W_y = 61, are exactly the
  // doubled radii (2 * 10, 2 * 15) as widths, where a per-side reading would double to 42 and
  // 62. Sec. IV-B's loop "dx = 1 .. W_x" on each side reads per side instead: --set wx=21
  // --set wy=31 (README "crossrt" has both readings' figures).
  int wx = 10;              // longest horizontal arm on each side: (W_x - 1) / 2, W_x = 21
  int wy = 15;              // longest vertical arm on each side: (W_y - 1) / 2, W_y = 31
  int tc = 13;              // TC: brightness threshold of the arms (|L(p) - L(q)| < TC, 0..255), Table II
  int scale = 2;            // K of eq. 2: 2 = the paper; 1 = the same pipeline at full size
  // Our addition (not in the paper): the left map's WTA refined to a fraction of a level by a
  // parabola through the aggregated costs (reference::crossrt::wta_subpixel) before the median,
  // fill and scale-up; the GCP test still compares the integer WTA maps. At K = 2 one level is
  // two full-size pixels, so the paper's integer maps miss the 1 px threshold wherever the WTA
  // rounds the wrong way; README "crossrt" has the figures with and without it. 0 = the paper.
  int subpixel = 1;

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
    // The integer sums are sized for these limits (cuda/crossrt/NOTES.md): a row sum of
    // 2 * 127 + 1 costs and a column sum of 2 * 127 + 1 rows fit in 32 bits with room.
    require(wx >= 0 && wx <= 127, component + ": wx must be in 0..127, got " + std::to_string(wx));
    require(wy >= 0 && wy <= 127, component + ": wy must be in 0..127, got " + std::to_string(wy));
    require(tc >= 0 && tc <= 256, component + ": tc must be in 0..256, got " + std::to_string(tc));
    require(subpixel == 0 || subpixel == 1, component + ": subpixel must be 0 or 1, got " + std::to_string(subpixel));
    require(scale == 1 || scale == 2, component + ": scale must be 1 or 2 (eq. 2's K), got " + std::to_string(scale));
  }
};

}  // namespace stereo
