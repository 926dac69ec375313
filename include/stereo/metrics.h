#pragma once
/// \file include/stereo/metrics.h
/// Evaluation of a disparity map against ground truth.

#include <cstddef>
#include <cstdint>
#include <optional>

#include "stereo/dataset.h"
#include "stereo/image.h"

namespace stereo {

/// Percentages are of the evaluated pixels of each mask; a field the scene's format does not
/// define is empty. A pixel without a valid computed disparity counts as bad.
struct Metrics {
  double threshold = 1.0;              ///< |d - gt| > threshold is bad
  std::optional<double> bad_nonocc;    ///< % bad over non-occluded pixels
  std::optional<double> bad_all;       ///< % bad over all pixels with ground truth
  std::optional<double> bad_disc;      ///< % bad near discontinuities (Middlebury v2)
  std::optional<double> avg_error;     ///< mean |d - gt| over non-occluded (else all) valid pixels
  double density = 0.0;                ///< % of pixels with a finite computed disparity
  std::optional<double> d1_all;        ///< KITTI D1: % with error > 3 px and > 5% of gt, all valid gt
};

Metrics evaluate(const ImageF& disparity, const Scene& scene, double threshold);

/// Which of `scene`'s masks hold pixel `i`, as evaluate() and error_map() read them: a mask
/// holds a pixel where it is 255. Without a non-occluded mask the error picture counts every
/// pixel as non-occluded and the average error is taken over the all mask.
enum MaskFlag : std::uint8_t {
  MASK_NONOCC = 1,
  MASK_ALL = 2,
  MASK_DISC = 4,
  MASK_PICTURE_NONOCC = 8,  ///< error_map's "non-occluded": no such mask, or in it
  MASK_AVERAGED = 16,       ///< counts for the average error
};
std::uint8_t mask_flags(const Scene& scene, std::size_t i);

/// What evaluate() counts over a map (pixels with ground truth per mask, the bad ones among
/// them, the finite disparities, the sum of |d - gt| over `averaged` pixels); metrics_of() makes
/// the figures of them. A scorer elsewhere (the viewer's, on the GPU) fills the same counts.
struct MetricCounts {
  std::uint64_t nonocc = 0, nonocc_bad = 0, all = 0, all_bad = 0, disc = 0, disc_bad = 0, d1 = 0, d1_bad = 0;
  std::uint64_t finite = 0, averaged = 0, pixels = 0;
  double error_sum = 0.0;
};
Metrics metrics_of(const MetricCounts& counts, SceneKind kind, double threshold);

/// Share (0..1) of pixels whose integer disparities agree exactly (both non-finite counts as
/// agreement); the maps must have equal size.
double agreement(const ImageF& a, const ImageF& b);

/// Colour picture of a disparity map for people: a perceptual colour ramp over
/// [0, max_disparity], black where the disparity is unknown.
ImageU8 colorize_disparity(const ImageF& disparity, float max_disparity);

/// Error picture: grey (the left image, dimmed) where correct, red where bad over non-occluded
/// pixels, orange where bad in occluded regions, black where there is no ground truth.
ImageU8 error_map(const ImageF& disparity, const Scene& scene, double threshold);
/// The grey of a correct pixel at (x, y) of error_map: the left image's mean, dimmed.
std::uint8_t error_map_grey(const ImageU8& left, int x, int y);

}  // namespace stereo
