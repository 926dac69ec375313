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

struct MethodInfo;  // host/matcher.h

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

/// The value an out-of-image match (x - d < 0) gets in the DSI: below every joint energy
/// (E_A and E_S lie in [-1, 1], so E does too), so it never wins the maximum.
constexpr float SYMSTEREO_OUT_OF_IMAGE = -2.0f;

/// Added to the denominators of eq. 5-6 (sums over k of response magnitudes, in grey levels:
/// the bank is normalised so that a sinusoid of amplitude 1 at f0 answers about 1). A flat
/// band would otherwise divide FFT round-off (about 1e-4 grey levels per response in fp32) by
/// itself and give energies of pure noise; 0.1 grey levels summed over all N wavelets is below
/// what 8-bit images can hold, and negligible beside textured pixels (sums in the hundreds).
constexpr float SYMSTEREO_EPSILON = 0.1f;

/// Row length the FFTs run at for rows of `width` pixels: width plus a symmetric extension of
/// at least twice the longest wavelength (lambda_1 m^(N-1)), rounded up to a length whose only
/// prime factors are 2, 3, 5 and 7 (fast in FFTW and cuFFT), and never more than 2 x width:
/// the row and its mirror image are the row's even extension, periodic with period 2W, whose
/// circular filtering is exact for any wavelength (README, "SymStereo"), so a bank whose
/// longest wavelength exceeds the row costs 2W samples, not millions. Not in the paper, whose
/// filters span the epipolar line itself: a row's FFT is circular, so without the extension
/// the last pixels' responses would mix in the first ones' (and the right view's clamped
/// border), which costs every pixel within a filter's reach of either end of the row.
int symstereo_padded_length(int width, const SymStereoParams& params);

/// SymStereo's entry for the registry: the citation, the paper's Tables 2 and 3 timing grids
/// and the SymStereoParams table (host/methods/symstereo.cpp).
MethodInfo symstereo_method_info();

}  // namespace stereo
