// The photometric check of a ground truth (app/synth.h): the other view sampled where the
// ground truth sends each pixel, and the mean absolute difference.

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/synth.h"

namespace stereo {
namespace {

// Row `y` of `img`, channel `c`, sampled at x with linear interpolation (x in [0, width-1]).
double sample_row_linear(const ImageU8& img, double x, int y, int c) {
  const int x0 = static_cast<int>(std::floor(x));
  const double t = x - x0;
  const int x1 = std::min(x0 + 1, img.width - 1);
  return (1.0 - t) * img.at(x0, y, c) + t * img.at(x1, y, c);
}

// warp_error's precondition: ground truth, and both views and it of one size.
void require_warpable(const Scene& scene) {
  require(scene.has_ground_truth(), "warp_error: scene " + scene.name + " has no ground truth");
  const ImageU8& l = scene.left;
  const ImageU8& r = scene.right;
  require(l.same_size(r.width, r.height) && l.channels == r.channels && scene.gt.same_size(l.width, l.height),
          "warp_error: scene " + scene.name + ": views and ground truth differ in size or channels");
}

// The mean absolute difference over the channels between pixel (x, y) of `view` and `other`
// sampled at (x_other, y), linear along the row.
double pixel_warp_error(const ImageU8& view, int x, int y, const ImageU8& other, double x_other) {
  double e = 0.0;
  for (int c = 0; c < view.channels; ++c) e += std::abs(view.at(x, y, c) - sample_row_linear(other, x_other, y, c));
  return e / view.channels;
}

}  // namespace

double warp_error(const Scene& scene, double gt_factor, double gt_offset) {
  require_warpable(scene);
  const ImageU8& l = scene.left;
  const ImageU8& r = scene.right;
  const bool masked = !scene.mask_nonocc.empty();
  double sum = 0.0;
  std::size_t count = 0;
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x) {
      const float g = scene.gt.at(x, y);
      if (!std::isfinite(g) || (masked && scene.mask_nonocc.at(x, y) != 255)) continue;
      const double xr = x - (gt_factor * g + gt_offset);
      if (!(xr >= 0.0 && xr <= l.width - 1.0)) continue;
      sum += pixel_warp_error(l, x, y, r, xr);
      ++count;
    }
  return count ? sum / static_cast<double>(count) : std::numeric_limits<double>::infinity();
}

double warp_error_right_view(const Scene& scene, double gt_factor) {
  require_warpable(scene);
  const ImageU8& l = scene.left;
  const ImageU8& r = scene.right;
  double sum = 0.0;
  std::size_t count = 0;
  for (int y = 0; y < r.height; ++y)
    for (int x = 0; x < r.width; ++x) {
      const float g = scene.gt.at(x, y);
      if (!std::isfinite(g)) continue;
      const double xl = x + gt_factor * g;
      if (!(xl >= 0.0 && xl <= l.width - 1.0)) continue;
      sum += pixel_warp_error(r, x, y, l, xl);
      ++count;
    }
  return count ? sum / static_cast<double>(count) : std::numeric_limits<double>::infinity();
}

}  // namespace stereo
