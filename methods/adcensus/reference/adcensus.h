#pragma once
/// \file methods/adcensus/reference/adcensus.h
/// AD-Census on the CPU, written for clarity: plain loops, one function per stage with the
/// same name as the CUDA stage in methods/adcensus/cuda/stages.h, so tests compare stage against
/// stage. X. Mei, X. Sun, M. Zhou, S. Jiao, H. Wang, X. Zhang, "On building an accurate stereo
/// matching system on graphics hardware", ICCV Workshops 2011 (Sec. 2; parameters Table 1).
///
/// Pipeline for one view (the right view runs the same stages with right_view = true, where
/// the right image is the reference and p is matched with p + d, so D_R comes from the same
/// code):
///   grey         = grey_image(rgb)                         integer BT.601 luma
///   census       = census_transform(grey)                  9x7, 62 bits in a uint64
///   C            = ad_census_cost(...)                     eq. 1-3, CostVolume
///   arms         = cross_arms(rgb)                         enhanced rules, Sec. 2.2
///   C1           = aggregate_cost(C, arms, other_arms, iteration) x 4
///                                                          H-then-V in 1 and 3, V-then-H in 2 and 4,
///                                                          over the combined region of p and pd
///   C2           = scanline_optimize(C1, ...)              eq. 4-5, 4 directions, mean of the paths
///   D            = winner_takes_all(C2)
/// then refinement on D_L with D_R (Sec. 2.4): left_right_check, region_voting,
/// proper_interpolation, discontinuity_adjustment, subpixel_enhancement, median_3x3.
///
/// Integer stages (grey, census, arms, WTA, LR check, voting, interpolation, median on
/// integer maps) must match the CUDA stages bit for bit; float stages within the tolerance
/// their tests state.

#include <cstdint>

#include "core/disparity_range.h"
#include "core/image.h"
#include "reference/cost_volume.h"
#include "reference/grey.h"  // grey_image, the pipeline's first stage

namespace stereo {
struct AdCensusParams;  // methods/adcensus/params.h
}

namespace stereo::reference {

/// Support-region arms of every pixel: how many pixels the region reaches beyond p to the
/// left, right, up and down (0 = the arm is p alone). Channels in that order.
using CrossArms = Image<std::uint8_t>;  // 4 channels: left, right, up, down

using CensusImage = Image<std::uint64_t>;

/// 9x7 census (9 wide, 7 high) of a grey image: bit i set when neighbour i (row-major over the
/// window, centre skipped) is darker than the centre; 62 bits (0..61; 63 window pixels less the
/// centre), the paper's "64-bit string" being its storage. Neighbours outside the image
/// read the nearest edge pixel (clamp-to-edge).
CensusImage census_transform(const ImageU8& grey);

/// The two views' images the cost (eq. 1-3) reads: RGB and census codes, all of one size (as
/// cu::adcensus::CostImages on the device).
struct CostImages {
  const ImageU8& left_rgb;
  const ImageU8& right_rgb;
  const CensusImage& left_census;
  const CensusImage& right_census;
};

/// Eq. 1-3: C(p, d) = rho(Hamming(census_L(p), census_R(p - d)), lambda_census)
///                  + rho(mean |RGB_L(p) - RGB_R(p - d)|, lambda_AD).
/// A match p - d outside the right image gets the documented out-of-image cost (see AdCensusParams,
/// docs/methods/adcensus.md "Readings and choices"). `right_view` computes the right view's volume:
/// p + d instead.
CostVolume ad_census_cost(const CostImages& images, DisparityRange range, const AdCensusParams& params,
                          bool right_view = false);

/// Enhanced cross construction (Sec. 2.2, rules 1-3 with L1, L2, tau1, tau2).
CrossArms cross_arms(const ImageU8& rgb, const AdCensusParams& params);

/// One aggregation iteration (1-based): iterations 1 and 3 sum horizontally then vertically,
/// 2 and 4 vertically then horizontally; each 1D sum over the arm with a 1D integral, the
/// result normalised by the pixel count of the region.
CostVolume aggregate_cost(const CostVolume& cost, const CrossArms& arms, int iteration);

/// The same over Zhang et al.'s combined support region ([23] of the paper, whose aggregation
/// Sec. 2.2 builds on): at level d every arm is the shorter of p's arm (`arms`, the reference
/// view) and pd's arm (`other_arms`, the other view; pd = p - d, or p + d with `right_view`),
/// so a region stops at an edge of either image. The pixel count that normalises it is then
/// per (p, d). Where pd lies outside the other image the region is p alone: such a cell keeps
/// its cost (out_of_image_cost), and no matched cell's region reaches one (pd's arms stop at
/// the other image's border). The matcher aggregates with this one, the left view only: the
/// right view's region at (x, d) is the left view's at (x + d, d), and so is its cost
/// (right_view_from_left).
CostVolume aggregate_cost(const CostVolume& cost, const CrossArms& arms, const CrossArms& other_arms, int iteration,
                          bool right_view);

/// The right view's volume from the left view's, cost or aggregated: C_R(x, y, d) =
/// C_L(x + d, y, d) where x + d lies inside the image (the same pair of pixels, and over the
/// combined region the same region), else `out_of_image_cost`. Exact for every iteration of
/// the combined-region aggregation (test: AdCensusReference.RightViewIsTheLeftViewSkewed).
CostVolume right_view_from_left(const CostVolume& left, float out_of_image_cost);

/// Eq. 4-5: four scanline directions (left-right, right-left, top-bottom, bottom-top), P1/P2
/// from D1 (reference image, p vs p - r) and D2 (other image, pd vs pd - r) against tau_SO;
/// the result is the mean of the four path costs. `right_view` swaps which image is which
/// and takes pd = p + d. A colour difference >= tau_SO is an edge: no edge P1 = Pi1, P2 = Pi2;
/// one Pi1/4, Pi2/4; both Pi1/10, Pi2/10 (the paper's case 4 prints Pi1/10 for P2). Where pd or
/// pd - r lies outside the other image, D2 counts as no edge. A path starts with C1.
CostVolume scanline_optimize(const CostVolume& cost, const ImageU8& left_rgb, const ImageU8& right_rgb,
                             const AdCensusParams& params, bool right_view = false);

/// Disparity of the smallest cost per pixel (the smallest d wins a tie), as range.min + k.
ImageF winner_takes_all(const CostVolume& cost);

}  // namespace stereo::reference
