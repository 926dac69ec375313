#pragma once
/// \file methods/symstereo/model.h
/// What SymStereo (Mota et al., ICASSP 2014) specifies, or the suite chose where the paper is
/// silent, and both the CPU reference (FFTW) and the CUDA stages (cuFFT) use: the DSI value of
/// a match outside the image, the energy's flat-band guard and the row length the FFTs run at.
/// Both backends include this header and neither includes the other; only tests see both.

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "methods/symstereo/params.h"

namespace stereo {

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
/// circular filtering is exact for any wavelength (docs/methods/symstereo.md), so a bank whose
/// longest wavelength exceeds the row costs 2W samples, not millions. Not in the paper, whose
/// filters span the epipolar line itself: a row's FFT is circular, so without the extension
/// the last pixels' responses would mix in the first ones' (and the right view's clamped
/// border), which costs every pixel within a filter's reach of either end of the row.
inline int symstereo_padded_length(int width, const SymStereoParams& params) {
  require(width >= 1 && width <= (1 << 23),
          "symstereo: rows of " + std::to_string(width) + " pixels are outside 1..8388608");
  // The cap, 2W: the row followed by its mirror image is the row's even extension, periodic
  // with period 2W, so the circular FFT of that length filters the infinitely mirrored row
  // exactly, whatever the wavelengths (an LTI filter of a 2W-periodic signal only samples its
  // response at multiples of 1 / 2W, the bins of that FFT). Rows longer than 2W add nothing
  // but constant stretches; N = 256 at m = 1.05 would otherwise ask for 3 million samples.
  const long exact = 2L * long(width);
  const double reach = 2.0 * double(params.min_wavelength) *
                       std::pow(double(params.ratio), double(params.wavelets - 1));  // twice the longest
  if (!(reach < double(width))) return int(exact);  // also catches inf / NaN
  const long minimum = long(width) + std::max(2L, long(std::ceil(reach)));
  // Below the cap a 2-3-5-7 length keeps cuFFT and FFTW on their fast radices; if none lies
  // below 2W, 2W itself (cuFFT and FFTW take any length).
  for (long n = minimum; n < exact; ++n) {
    long r = n;
    for (long p : {2L, 3L, 5L, 7L})
      while (r % p == 0) r /= p;
    if (r == 1) return int(n);
  }
  return int(exact);
}

}  // namespace stereo
