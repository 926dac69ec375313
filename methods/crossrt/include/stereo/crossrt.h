#pragma once
/// \file methods/crossrt/include/stereo/crossrt.h
/// Real-time high-resolution cross-based stereo: Q. Chang, T. Maruyama, "Real-Time
/// High-Quality Stereo Matching System on a GPU", IEEE ASAP 2018. Grey images scaled down by K = 2, AD + mini-census cost,
/// cross aggregation along x then y, WTA for both views, ground control points by cross-check,
/// median + bilateral fill, bilateral/linear scale-up. Parameters of every backend; the
/// defaults are the paper's Sec. V and Table II unless a comment says why not.
///
/// The parameters as a typed struct (stereo::crossrt::Params): fields with the paper's defaults,
/// each citing where it comes from, and create() for it beside the string overrides (`--set`,
/// stereo/stereo.h's create(name, backend, overrides)); both bind the same keys.

#include <string>

#include "stereo/params.h"

namespace stereo {

namespace crossrt {

struct Params {
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
};

}  // namespace crossrt

class StereoMatcher;  // stereo/stereo.h, which a caller of create() includes

/// The matcher of crossrt on `backend` with `params`; `options` sets the backend's own knobs
/// (stereo::options("crossrt", backend)) and may name parameters too, which then win over
/// `params`. The map is the one create("crossrt", backend, overrides) gives for the same values.
/// Throws stereo::Error as that create() does (a value out of range names the key).
StereoMatcher create(const crossrt::Params& params, const std::string& backend, const Overrides& options = {});

}  // namespace stereo
