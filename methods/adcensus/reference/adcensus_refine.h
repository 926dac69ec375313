#pragma once
/// \file methods/adcensus/reference/adcensus_refine.h
/// AD-Census multi-step disparity refinement on the CPU (Mei et al. ICCV-W 2011, Sec. 2.4),
/// one function per step, named as the CUDA stages in methods/adcensus/cuda/stages.h. Each step reads
/// its inputs and returns new maps (no step updates a pixel from a neighbour it has already
/// updated in the same pass), so a GPU kernel per pass gives the same result.
///
/// Order (the `refine` parameter stops after a step):
///   outliers            = left_right_check(D_L, D_R, range)               "lrc"
///   D, outliers         = region_voting(D, outliers, arms_L, ...) x 5     "vote"
///   D, outliers         = proper_interpolation(D, outliers, left_rgb)     "interp"
///   D                   = discontinuity_adjustment(D, C2_L)               "adjust"
///   D                   = subpixel_enhancement(D, C2_L)                   "subpixel"
///   D                   = median_3x3(D)                                   "full"
/// A map handed out before interpolation holds +inf at the pixels still marked as outliers
/// (with_outliers_as_inf).

#include <cstdint>

#include "core/disparity_range.h"
#include "core/image.h"
#include "methods/adcensus/model.h"
#include "methods/adcensus/reference/adcensus.h"
#include "reference/median.h"

namespace stereo::reference {

/// Per-pixel label of the LR check, one channel: values of adcensus::OutlierKind
/// (methods/adcensus/model.h).
using OutlierMap = Image<std::uint8_t>;

/// Sec. 2.4 outlier detection: p is reliable when x - D_L(p) lies inside the right map and
/// D_R(x - D_L(p), y) == D_L(p) exactly (integer WTA maps). An outlier is a mismatch when
/// some d of `range` with x - d inside the image has D_R(x - d, y) == d; else an occlusion
/// where the whole epipolar line (x - d for every d of `range`) lies inside the right image,
/// and a mismatch where part of it leaves the image: there "no intersection" is not
/// established (it may lie outside), so p is not taken to be hidden behind a nearer surface.
/// Non-finite values are never consistent.
OutlierMap left_right_check(const ImageF& left_disparity, const ImageF& right_disparity, DisparityRange range);

/// `disparity` with +inf at every pixel `outliers` does not mark reliable.
ImageF with_outliers_as_inf(const ImageF& disparity, const OutlierMap& outliers);

/// The maps one refinement step hands on.
struct RefinedDisparity {
  ImageF disparity;
  OutlierMap outliers;
};

/// One region-voting iteration (eq. 6). For each outlier p, a histogram (range.count bins) of
/// the disparities of the reliable pixels in p's cross region (the horizontal arms of the
/// pixels on p's vertical arm, the left image's arms, p excluded since it is an outlier);
/// S_p = their number, d* = the fullest bin (the smallest d on a tie). p takes d* and becomes
/// reliable when S_p > tau_S and H_p(d*) / S_p > tau_H. Every pixel reads the input maps only
/// (pixels filled in this iteration vote from the next one on).
RefinedDisparity region_voting_iteration(const ImageF& disparity, const OutlierMap& outliers, const CrossArms& arms,
                                         DisparityRange range, const AdCensusParams& params);

/// params.voting_iterations (5, Sec. 2.4) iterations of region_voting_iteration.
RefinedDisparity region_voting(const ImageF& disparity, const OutlierMap& outliers, const CrossArms& arms,
                               DisparityRange range, const AdCensusParams& params);

/// Sec. 2.4 proper interpolation: for each outlier p, the first reliable pixel (by the input
/// map) along each of the 16 directions of adcensus::INTERPOLATION_DIRECTIONS (model.h), up to
/// the image border. An occlusion takes the smallest of their disparities; a mismatch the
/// disparity of the one whose colour is closest to p's (D_c = max over RGB of |difference|);
/// ties go to the earlier direction. Filled pixels become reliable; a pixel with no reliable
/// pixel in any direction stays an outlier.
RefinedDisparity proper_interpolation(const ImageF& disparity, const OutlierMap& outliers, const ImageU8& rgb);

/// Sec. 2.4 depth discontinuity adjustment over all the edges of the disparity image. p lies
/// on an edge crossed horizontally when |D(p) - D(q)| >= 1 for its left or right neighbour q,
/// and then offers p1 = (x-1, y), p2 = (x+1, y); on one crossed vertically (upper or lower
/// neighbour) p1 = (x, y-1), p2 = (x, y+1); on both, all four (neighbours inside the image).
/// D(p) becomes the candidate disparity with the smallest C2(p, .) when that cost is strictly
/// smaller than C2(p, D(p)) (the earlier of left, right, up, down on a tie). Integer
/// disparities inside cost.range; other values are left alone. A level whose match p - d falls
/// outside the right image holds out_of_image_cost, a constant, not a matching cost (not in the
/// paper, which does not say what a match outside the image costs): such a candidate is not
/// offered, and a pixel whose own D(p) is such a level is left alone (there is no C2(p, D(p))
/// to undercut).
ImageF discontinuity_adjustment(const ImageF& disparity, const CostVolume& cost);

/// Eq. 7: d* = d - (C2(d+1) - C2(d-1)) / (2 (C2(d+1) + C2(d-1) - 2 C2(d))) at the integer d =
/// D(p), applied only where C2(d) < C2(d-1) and C2(d) < C2(d+1): eq. 7 interpolates a cost
/// minimum (the vertex then lies within half a level of d), and after voting, interpolation
/// and adjustment d need not be one. d stays where d-1 or d+1 lies outside the range or its
/// match p - (d +- 1) outside the right image (a constant there, not a cost), and non-finite
/// values stay.
ImageF subpixel_enhancement(const ImageF& disparity, const CostVolume& cost);

}  // namespace stereo::reference
