#pragma once
/// \file host/methods/symstereo.h
/// SymStereo, logN variant: V. Mota, G. Falcao, M. Antunes, J. Barreto, U. Nunes, "Using the
/// GPU for fast symmetry-based dense stereo matching in high resolution images", ICASSP 2014
/// (Sec. 2-3, Algorithm 1). The matching cost measures the symmetry of the signal formed by a
/// row of the left image and the mirrored row of the right image, with a bank of N 1-D
/// log-Gabor wavelets (eq. 1-7). Parameters of every backend; the defaults are the paper's
/// Fig. 3 setting where it gives one, else a choice whose reason is stated beside it.

#include <string>

#include "core/error.h"

namespace stereo {

struct SymStereoParams {
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

  template <class B>
  void describe(B& b) {
    b.field("wavelets", wavelets, "number of log-Gabor wavelets N (Mota et al. Fig. 3: 30)");
    b.field("ratio", ratio, "wavelength ratio m of eq. 1, lambda_k = m lambda_k-1 (Fig. 3: 1.05)");
    b.field("min_wavelength", min_wavelength,
            "smallest wavelength lambda_1 in pixels (a choice, 6: Middlebury v2 sweep, README; the paper defers to "
            "Antunes & Barreto 2011)");
    b.field("sigma_on_f", sigma_on_f,
            "log-Gabor bandwidth sigma/omega0 (a choice, 0.65: Middlebury v2 sweep, README)");
  }

  void validate(const std::string& component) const {
    require(wavelets >= 1 && wavelets <= 256,
            component + ": wavelets must be in 1..256, got " + std::to_string(wavelets));
    require(ratio >= 1.0f && ratio <= 4.0f, component + ": ratio m must be in [1, 4], got " + std::to_string(ratio));
    require(min_wavelength >= 2.0f,
            component + ": min_wavelength must be >= 2 px (Nyquist), got " + std::to_string(min_wavelength));
    require(sigma_on_f > 0.0f && sigma_on_f < 1.0f,
            component + ": sigma_on_f must be in (0, 1), got " + std::to_string(sigma_on_f));
  }
};

}  // namespace stereo
