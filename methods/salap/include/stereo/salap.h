#pragma once
/// \file methods/salap/include/stereo/salap.h
/// SA-LAP: variable centre-biased windowing over a truncated separable Laplacian kernel.
/// J. Lu, G. Lafruit, F. Catthoor, "Fast variable center-biased windowing for high-speed
/// stereo on programmable graphics hardware", ICIP 2007. Shared by every backend.
///
/// Units: every backend works on costs normalised by tau (TAD / tau in [0,1]) and by the
/// kernel weights (C_L / F1, C_i / F with F1 = sum of the W+1 one-sided weights, F = F1^2), so
/// the window costs of eq. 3 become Ca/tau, Cb/tau, Cc/tau. That is the range an RGBA8
/// texture stores (paper Sec. 3), and it leaves the winner of eq. 4 unchanged when alpha and
/// beta are given in units of tau, as the paper states them (0.02 tau, 0.04 tau).
///
/// The parameters as a typed struct (stereo::salap::Params): fields with the paper's defaults, each
/// citing where it comes from, and create() for it beside the string overrides (`--set`,
/// stereo/stereo.h's create(name, backend, overrides)); both bind the same keys.

#include <string>

#include "stereo/params.h"

namespace stereo {

namespace salap {

struct Params {
  float gamma = 5.0f;              // SA-LAP fall-off gamma_p, Lu et al. Sec. 4
  int window = 33;                 // N: N x N kernel, quadrants (W+1)^2 = 17 x 17, Sec. 4
  float tau = 20.0f;               // TAD truncation (intensity levels), Sec. 4
  float alpha = 0.02f;             // eq. 3 penalty of category b, in units of tau (0.02 tau), Sec. 4
  float beta = 0.04f;              // eq. 3 penalty of category c, in units of tau (0.04 tau), Sec. 4
  std::string windows = "9";       // "9": categories a, b, c (Table 1 "9-window"); "4": c only (Fig. 2 i-l)
  std::string cost = "rgb_mean";   // open in the paper: mean of per-channel |dRGB| reproduces Table 1 best
};

}  // namespace salap

class StereoMatcher;  // stereo/stereo.h, which a caller of create() includes

/// The matcher of salap on `backend` with `params`; `options` sets the backend's own knobs
/// (stereo::options("salap", backend)) and may name parameters too, which then win over
/// `params`. The map is the one create("salap", backend, overrides) gives for the same values.
/// Throws stereo::Error as that create() does (a value out of range names the key).
StereoMatcher create(const salap::Params& params, const std::string& backend, const Overrides& options = {});

}  // namespace stereo
