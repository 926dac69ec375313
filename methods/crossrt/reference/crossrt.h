#pragma once
/// \file methods/crossrt/reference/crossrt.h
/// Chang and Maruyama's real-time cross-based stereo on the CPU, written for clarity: one
/// function per stage, named as the CUDA stages in methods/crossrt/cuda/stages.h, so tests compare
/// stage against stage. Q. Chang, T. Maruyama, "Real-Time High-Quality Stereo Matching System
/// on a GPU" (Sec. III; parameters Sec. V and Table II).
///
/// Pipeline (K = params.scale):
///   L, R        = scale_down(grey(left)), scale_down(grey(right))   eq. 2, 3x3 mean at (Kx, Ky)
///   C           = cost(L, R, range_K)                               eq. 3-5, left view only
///   arms_x(L), arms_x(R), arms_y(L), arms_y(R)                      once per view
///   CAx_L       = aggregate_x(C, arms_x(L), left)                   eq. 7
///   CAx_R       = aggregate_x(C, arms_x(R), right)                  eq. 6-7: C_R(x,y,d) = C(x+d,y,d)
///   CA_L, CA_R  = aggregate_y(CAx_*, arms_y(*))                     eq. 8
///   D_L, D_R    = wta(CA_L, range_K), wta(CA_R, range_K)            eq. 9
///   G           = gcp(D_L, D_R, range_K)                            eq. 10
///   D           = bilateral_fill(median_3x3(D_L), G, L, T)          Sec. III-E, eq. 11
///   out         = scale_up(D, grey(left), T, range)                 Sec. IV-H (K = 2 only)
///
/// Precision: every cost is an integer. Each of the two terms of eq. 3 is quantised to
/// round(COST_SCALE * (1 - exp(-x / lambda))) by the tables of methods/crossrt/model.h, so a
/// cost is 0..2 * COST_SCALE and the sums of eq. 7-8 are exact integers; the GPU reads the same
/// tables, so the integer stages agree bit for bit.

#include <cstdint>
#include <vector>

#include "core/disparity_range.h"
#include "core/image.h"
#include "methods/crossrt/model.h"
#include "reference/cost_volume.h"

namespace stereo::reference::crossrt {

/// reference/cost_volume.h's volume (disparity fastest), here holding integer costs.
template <class T>
using Volume = reference::Volume<T>;

using stereo::crossrt::scaled_range;  // methods/crossrt/model.h; the cpu matcher names it here

/// Eq. 2 with K = 2, m = 1: the rounded mean of the 3x3 block around (2x, 2y) (clamp to
/// edge), (sum + 4) / 9; the result is ceil(W / 2) x ceil(H / 2). scale = 1 returns the input.
ImageU8 scale_down(const ImageU8& grey, int scale);

/// The 6-bit mini-census of every pixel: bit i is set when neighbour i
/// (crossrt::mini_census_offset, methods/crossrt/model.h) is darker than the centre.
/// Clamp-to-edge.
ImageU8 mini_census(const ImageU8& grey);

/// Eq. 3-5 for the left view: C(x, y, k) = ad[|L(x,y) - R(x-d,y)|] + mc[popcount(MC_L ^ MC_R)]
/// with crossrt::cost_tables(params), d = range.min + k; crossrt::COST_OUTSIDE where x - d lies
/// outside the image. The right view's cost is read from this volume (aggregate_x), never
/// computed again.
Volume<std::uint16_t> cost(const ImageU8& left, const ImageU8& right, DisparityRange range,
                           const CrossRtParams& params);

/// Horizontal arms (Sec. III-C, IV-B): channel 0 = m (left), 1 = n (right), the number of
/// consecutive pixels q beyond p with |I(q) - I(p)| < tc, at most `limit` (W_x), stopping at
/// the image border.
Image<std::uint8_t> arms_x(const ImageU8& grey, int limit, int tc);

/// Vertical arms (Sec. III-C, IV-D): channel 0 = M (up), 1 = N (down), as arms_x along y with
/// limit W_y.
Image<std::uint8_t> arms_y(const ImageU8& grey, int limit, int tc);

/// Eq. 7: CA_x(x, y, k) = sum over dx = -m .. n of C_view(x + dx, y, k), with the view's own
/// arms. The left view reads C_view = C; the right view reads C_view(x, y, k) = C(x + d, y, k)
/// (eq. 6), crossrt::COST_OUTSIDE where x + d lies outside the image. At most 2 * 127 + 1 costs
/// of at most 256: fits 16 bits.
Volume<std::uint16_t> aggregate_x(const Volume<std::uint16_t>& cost, const Image<std::uint8_t>& arms_x,
                                  bool right_view);

/// Eq. 8: CA(x, y, k) = sum over dy = -M .. N of CA_x(x, y + dy, k).
Volume<std::uint32_t> aggregate_y(const Volume<std::uint16_t>& cax, const Image<std::uint8_t>& arms_y);

/// Eq. 9: range.min + the k of the smallest CA (the smallest k on a tie, the paper's strict <).
ImageF wta(const Volume<std::uint32_t>& ca);

/// Sub-pixel refinement of eq. 9 (our addition, not in the paper; CrossRtParams::subpixel): the
/// WTA level k plus the vertex of the parabola through the aggregated costs of k - 1, k, k + 1,
/// (C(k-1) - C(k+1)) / (2 (C(k-1) - 2 C(k) + C(k+1))), in [-0.5, 0.5]; k itself at either end of
/// the range or where the three costs are equal. Computed as float(numerator) / float(denominator)
/// of exact integers and one float addition, so the GPU's IEEE operations give the same float.
/// Why: at K = 2 a level is two full-size pixels, so an integer WTA is wrong by more than one
/// full-size pixel wherever it rounds a true half-size disparity of n + 0.5 + e the wrong way.
ImageF wta_subpixel(const Volume<std::uint32_t>& ca);

/// Eq. 10: 1 where D_L(x, y) = D_R(x - k, y) = k with x - k inside the image, else 0
/// (reference/lr_consistency.h, the test AD-Census's left_right_check makes).
Image<std::uint8_t> gcp(const ImageF& left_disparity, const ImageF& right_disparity);

/// Sec. III-E: every GCP keeps `disparity`; every other pixel takes the closest GCPs to its
/// left (x - i) and right (x + j) on its row: where |D(x-i) - D(x+j)| <= t, the linear
/// interpolation (D(x-i) * j + D(x+j) * i) / (i + j) (eq. 11 as printed has the sign of the
/// slope reversed; the text says linear), else the disparity of the one closer in brightness
/// |L(q) - L(x)| (a tie takes the smaller disparity, the occlusion side of Fig. 5b). With a GCP
/// on one side only, that one; with none on the row, the pixel keeps its own value. Disparities
/// may be fractional (wta_subpixel): the interpolation is computed in double (the products are
/// exact) and rounded once to float.
ImageF bilateral_fill(const ImageF& disparity, const Image<std::uint8_t>& gcp, const ImageU8& grey, int t);

/// Sec. IV-H, K = 2: a half-size sample (x, y) lands on (2x, 2y) with its disparity doubled.
/// Along x (rows 2y) the odd column between samples a = D(x) and b = D(x+1) takes (a + b)
/// when |a - b| <= t (the doubled mean), else 2a or 2b, whichever's full-size pixel is closer in
/// brightness to its own (a tie takes the smaller); then each odd row is the mean of the rows
/// above and below. A column or row past the last sample copies its neighbour. The x pass
/// clamps to `range`, the full-size range searched: doubling the scaled range's ends
/// (floor(min/2) * 2, ceil(max/2) * 2) can step one level outside it.
ImageF scale_up(const ImageF& disparity, const ImageU8& grey_full, int t, DisparityRange range);

}  // namespace stereo::reference::crossrt
