#pragma once
/// \file methods/salap/reference/salap.h
/// SA-LAP on the CPU, written for clarity: plain loops, double accumulation, one function
/// per stage with the same names as the GPU stages (methods/salap/cuda/stages.h), so tests can
/// compare stage against stage. Costs are normalised as methods/salap/params.h describes.
///
/// Stage order for one disparity d (paper Fig. 1, eq. 2-6):
///   D      = tad_cost(left, right, d)                      in [0,1]
///   C_L    = filter_horizontal(D, Side::left)              taps D[x-k],  k = 0..W
///   C_R    = filter_horizontal(D, Side::right)             taps D[x+k]
///   C0, C1 = filter_vertical(C_L, Side::down / Side::up)   taps C[y+l] / C[y-l]
///   C2, C3 = filter_vertical(C_R, Side::down / Side::up)
///   Cmin   = window_cost(C0, C1, C2, C3)                   eq. 3-4
/// and a winner-takes-all over d (the smallest d wins a tie).
///
/// Borders are clamp-to-edge for both images and all intermediates, as GL's
/// CLAMP_TO_EDGE samplers give.

#include <vector>

#include "core/disparity_range.h"
#include "core/image.h"
#include "methods/salap/model.h"
#include "methods/salap/params.h"

namespace stereo::reference {

/// Which one-sided half of the kernel (methods/salap/model.h); the GL tests name it here.
using salap::Side;

/// Rounds v in [0,1] to the 8-bit grid an RGBA8 texture stores: round(v * 255) / 255.
float quantize8(float v);

/// min(|I_L(x,y) - I_R(x-d,y)|, tau) / tau; I by params.cost. `quantize` 8 stores on the 8-bit grid.
ImageF tad_cost(const ImageU8& left, const ImageU8& right, int d, const SalapParams& params, int quantize = 0);

/// sum_k cost[x -/+ k] w[k] / F1, horizontal (Side::left/right); w = salap::kernel_weights,
/// F1 their sum.
ImageF filter_horizontal(const ImageF& cost, Side side, const SalapParams& params, int quantize = 0);

/// sum_l cost[y -/+ l] w[l] / F1, vertical (Side::up/down).
ImageF filter_vertical(const ImageF& cost, Side side, const SalapParams& params, int quantize = 0);

/// Eq. 3-4 on normalised quadrant costs: min(Ca, Cb, Cc) (9-window) or Cc (4-window).
ImageF window_cost(const ImageF& c0, const ImageF& c1, const ImageF& c2, const ImageF& c3,
                   const SalapParams& params);

/// Every stage for one disparity: window_cost of the four quadrant filters of tad_cost (eq. 2-4).
ImageF level_cost(const ImageU8& left, const ImageU8& right, int d, const SalapParams& params, int quantize = 0);

/// The whole method: winner-takes-all of window_cost over d = range.min .. range.max()
/// (a negative d reads I_R(x - d) clamped at the right edge, as a positive one at the left).
ImageF salap_disparity(const ImageU8& left, const ImageU8& right, DisparityRange range, const SalapParams& params,
                       int quantize = 0);
/// The same over 0 .. levels-1.
inline ImageF salap_disparity(const ImageU8& left, const ImageU8& right, int levels, const SalapParams& params,
                              int quantize = 0) {
  return salap_disparity(left, right, DisparityRange{0, levels}, params, quantize);
}

}  // namespace stereo::reference
