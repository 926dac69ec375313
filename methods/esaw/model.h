#pragma once
/// \file methods/esaw/model.h
/// What ESAW and ESMP (Yu et al., TCSVT 2010) specify, or the suite chose where the paper is
/// silent, and both the CPU reference and the CUDA kernels use: how a pass treats a sample
/// outside the image, the factors of the adaptive weight (eq. 5-6, "computed as in [17]") and
/// the sRGB and CIELab constants of the lab readings of Delta_c. Both backends include this
/// header and neither includes the other; only the tests see both
/// (tests/test_esaw_model.cpp checks it against the paper and the colour standards).
///
/// Each function is written once, in the precision the reference evaluates it in; the CUDA
/// backend fills its tables with these very functions, so both hold the same floats.

#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace stereo::esaw {

/// What a pass does with a sample p +- s outside the image: drop it (weight 0, the others
/// renormalised) or read the nearest edge pixel (a clamp-addressed texture, as the paper's first
/// GPU version reads the costs, Sec. IV).
enum class Border { drop, clamp };

/// The step of iteration t (1-based), eq. 4: round(b^(t-1)), halves away from zero. Computed in
/// double from the float parameter, so every backend gets the same integer.
inline int esaw_step(float base, int t) { return int(std::lround(std::pow(double(base), double(t - 1)))); }

/// The spatial factor of a side sample's weight, exp(-step / gamma_p), in float.
inline float spatial_factor(int step, float gamma_p) { return std::exp(-float(step) / gamma_p); }

/// The colour factor of a side sample's weight, exp(-Delta_c / gamma_c), in float.
inline float colour_factor(float delta_c, float gamma_c) { return std::exp(-delta_c / gamma_c); }

/// The squared distances two lab8 colours (8-bit CIELab: L* x 255/100, a* + 128, b* + 128, each
/// a byte) can have: 0 .. 3 x 255^2.
inline constexpr int LAB8_SQUARED_DISTANCES = 3 * 255 * 255 + 1;

/// The Delta_c of two lab8 colours whose channel differences square to `squared`: sqrt of the
/// exact integer sum, correctly rounded in float (a float holds every such sum exactly).
inline float lab8_distance(int squared) {
  require(squared >= 0 && squared < LAB8_SQUARED_DISTANCES, [&] {
    return "esaw: lab8_distance: " + std::to_string(squared) + " is no squared distance of two lab8 colours";
  });
  return std::sqrt(float(squared));
}

/// sRGB's transfer curve undone (IEC 61966-2-1): an 8-bit code to linear light in [0, 1], in
/// double.
inline double srgb_to_linear(std::uint8_t code) {
  const double v = double(code) / 255.0;
  return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

/// sRGB's matrix from linear RGB to CIE XYZ (IEC 61966-2-1), row by row. Scalars, so that
/// kernels can read them too.
inline constexpr double SRGB_XR = 0.4124, SRGB_XG = 0.3576, SRGB_XB = 0.1805;
inline constexpr double SRGB_YR = 0.2126, SRGB_YG = 0.7152, SRGB_YB = 0.0722;
inline constexpr double SRGB_ZR = 0.0193, SRGB_ZG = 0.1192, SRGB_ZB = 0.9505;
/// The D65 white of that matrix (its rows summed, left to right; Y's is 1), so that a grey
/// maps to a* = b* = 0.
inline constexpr double WHITE_X = SRGB_XR + SRGB_XG + SRGB_XB;
inline constexpr double WHITE_Z = SRGB_ZR + SRGB_ZG + SRGB_ZB;
/// CIE 1976's f(t) is the cube root above LAB_DELTA^3 and linear below.
inline constexpr double LAB_DELTA = 6.0 / 29.0;

}  // namespace stereo::esaw
