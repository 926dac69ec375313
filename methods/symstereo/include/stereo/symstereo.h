#pragma once
/// \file methods/symstereo/include/stereo/symstereo.h
/// SymStereo, logN variant: V. Mota, G. Falcao, M. Antunes, J. Barreto, U. Nunes, "Using the
/// GPU for fast symmetry-based dense stereo matching in high resolution images", ICASSP 2014
/// (Sec. 2-3, Algorithm 1). The matching cost measures the symmetry of the signal formed by a
/// row of the left image and the mirrored row of the right image, with a bank of N 1-D
/// log-Gabor wavelets (eq. 1-7). Parameters of every backend; the defaults are the paper's
/// Fig. 3 setting where it gives one, else a choice whose reason is stated beside it.
///
/// The parameters as a typed struct (stereo::symstereo::Params): fields with the paper's defaults,
/// each citing where it comes from, and create() for it beside the string overrides (`--set`,
/// stereo/stereo.h's create(name, backend, overrides)); both bind the same keys.

#include <string>

#include "stereo/params.h"

namespace stereo {

namespace symstereo {

struct Params {
  int wavelets = 30;             // N, Fig. 3 (a), (b): N = 30
  float ratio = 1.05f;           // m of eq. 1, lambda_k = m lambda_(k-1); Fig. 3: m = 1.05
  // The filter shape is not in this paper, which defers to Antunes & Barreto (ICCV-W 2011; not
  // in the suite): both values below are choices, from a small sweep on the Middlebury v2
  // scenes (README, "SymStereo"; average bad > 1 nonocc 23.3 % here against 37.7 % with the
  // usual log-Gabor values lambda_1 = 3, sigma/omega0 = 0.55 of Kovesi's phase-congruency
  // banks). With N = 30 and m = 1.05 the wavelengths then span 6 .. 24.8 px: longer filters
  // are the only support a per-pixel cost without aggregation has, and Fig. 3's smooth maps
  // ("less noise ... more blurred edges") point the same way.
  float min_wavelength = 6.0f;  // lambda_1 in pixels
  // sigma / omega0 of the log-Gabor, exp(-ln(w/w0)^2 / (2 ln(sigma/omega0)^2)): 0.65 is about
  // 1.5 octaves of bandwidth (0.55, the common value, about 2).
  float sigma_on_f = 0.65f;
};

}  // namespace symstereo

class StereoMatcher;  // stereo/stereo.h, which a caller of create() includes

/// The matcher of symstereo on `backend` with `params`; `options` sets the backend's own knobs
/// (stereo::options("symstereo", backend)) and may name parameters too, which then win over
/// `params`. The map is the one create("symstereo", backend, overrides) gives for the same values.
/// Throws stereo::Error as that create() does (a value out of range names the key).
StereoMatcher create(const symstereo::Params& params, const std::string& backend, const Overrides& options = {});

}  // namespace stereo
