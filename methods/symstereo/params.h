#pragma once
/// \file methods/symstereo/params.h
/// SymStereo, logN variant: V. Mota, G. Falcao, M. Antunes, J. Barreto, U. Nunes, "Using the
/// GPU for fast symmetry-based dense stereo matching in high resolution images", ICASSP 2014
/// (Sec. 2-3, Algorithm 1). The matching cost measures the symmetry of the signal formed by a
/// row of the left image and the mirrored row of the right image, with a bank of N 1-D
/// log-Gabor wavelets (eq. 1-7). Parameters of every backend; the defaults are the paper's
/// Fig. 3 setting where it gives one, else a choice whose reason is stated beside it.

#include <string>

#include "core/error.h"
#include "stereo/symstereo.h"

namespace stereo {


/// stereo::symstereo::Params (stereo/symstereo.h) with its binding to the `--set` keys and
/// its range checks.
struct SymStereoParams : symstereo::Params {
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
    require(ratio >= 1.0f && ratio <= 4.0f, component + ": ratio m must be in [1, 4], got " + number_text(ratio));
    require(min_wavelength >= 2.0f,
            component + ": min_wavelength must be >= 2 px (Nyquist), got " + number_text(min_wavelength));
    require(sigma_on_f > 0.0f && sigma_on_f < 1.0f,
            component + ": sigma_on_f must be in (0, 1), got " + number_text(sigma_on_f));
  }
};

}  // namespace stereo
