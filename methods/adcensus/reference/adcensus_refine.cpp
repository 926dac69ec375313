// AD-Census refinement steps (Mei et al. ICCV-W 2011, Sec. 2.4). Every step reads its input
// maps and writes new ones, pixel by pixel, so a GPU kernel per pass gives the same maps.

#include "methods/adcensus/reference/adcensus_refine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "methods/adcensus/params.h"
#include "core/thread_pool.h"
#include "reference/colour_difference.h"
#include "reference/lr_consistency.h"

namespace stereo::reference {
namespace {

using adcensus::OutlierKind;  // methods/adcensus/model.h

constexpr float INF = std::numeric_limits<float>::infinity();

bool is_reliable(const OutlierMap& outliers, int x, int y) {
  return outliers.at(x, y) == std::uint8_t(OutlierKind::reliable);
}

// The index k of an integer disparity d inside `range`, or -1.
int level_index(float d, DisparityRange range) {
  if (!std::isfinite(d) || d != std::floor(d)) return -1;
  const int k = int(d) - range.min;
  return k >= 0 && k < range.count ? k : -1;
}

// Whether the left-view pixel x matches a pixel of the right image at level k (x - d inside
// 0..width-1). Outside it the volume holds out_of_image_cost (cost_initialization), a constant
// that measures nothing: the adjustment and eq. 7 do not compare it.
bool matched_in_image(int x, int k, DisparityRange range, int width) {
  const int xm = x - (range.min + k);
  return xm >= 0 && xm < width;
}

void require_same_size(const ImageF& disparity, const OutlierMap& outliers, const std::string& stage) {
  require(disparity.channels == 1 && outliers.channels == 1 && outliers.same_size(disparity.width, disparity.height),
          [&] { return "adcensus: " + stage + " needs a one-channel disparity map and outlier map of one size"; });
}

}  // namespace

OutlierMap left_right_check(const ImageF& left_disparity, const ImageF& right_disparity, DisparityRange range) {
  require(left_disparity.channels == 1 && right_disparity.channels == 1 &&
              right_disparity.same_size(left_disparity.width, left_disparity.height),
          "adcensus: left_right_check needs two one-channel maps of one size");
  const int width = left_disparity.width;
  OutlierMap outliers(width, left_disparity.height, 1, std::uint8_t(OutlierKind::reliable));
  // D_R(xr, y) == d: the right view sees the same match at xr = x - d.
  const auto consistent = [&](int x, int y, float d) { return lr_consistent(right_disparity, x, y, d); };
  for (int y = 0; y < left_disparity.height; ++y)
    for (int x = 0; x < width; ++x) {
      if (consistent(x, y, left_disparity.at(x, y))) continue;
      // Hirschmueller's classification (TPAMI 2008, Sec. 3.4 of [2]): p is a mismatch when the
      // epipolar line of p meets D_R, i.e. some disparity of the range would be consistent.
      // Where part of the line leaves the right image (the left-border strip, whose matches
      // lie left of it) the test cannot find the intersection that may lie there, so such a
      // pixel is not called an occlusion (whose interpolation assumes a nearer surface hides
      // the match and takes the background's disparity).
      // (The line lies inside where its two ends do: the smallest and the largest disparity.)
      bool meets = !(matched_in_image(x, 0, range, width) && matched_in_image(x, range.count - 1, range, width));
      for (int k = 0; k < range.count && !meets; ++k) meets = consistent(x, y, float(range.min + k));
      outliers.at(x, y) = std::uint8_t(meets ? OutlierKind::mismatch : OutlierKind::occlusion);
    }
  return outliers;
}

ImageF with_outliers_as_inf(const ImageF& disparity, const OutlierMap& outliers) {
  require_same_size(disparity, outliers, "with_outliers_as_inf");
  ImageF out = disparity;
  for (std::size_t i = 0; i < out.data.size(); ++i)
    if (outliers.data[i] != std::uint8_t(OutlierKind::reliable)) out.data[i] = INF;
  return out;
}

RefinedDisparity region_voting_iteration(const ImageF& disparity, const OutlierMap& outliers, const CrossArms& arms,
                                         DisparityRange range, const AdCensusParams& params) {
  require_same_size(disparity, outliers, "region_voting");
  require(arms.same_size(disparity.width, disparity.height) && arms.channels == 4,
          "adcensus: region_voting needs 4-channel arms of the map's size");
  RefinedDisparity out{disparity, outliers};
  parallel_for(std::size_t(disparity.height), 0, [&](std::size_t item) {
    const int y = int(item);
    std::vector<int> histogram(static_cast<std::size_t>(range.count));
    for (int x = 0; x < disparity.width; ++x) {
      if (is_reliable(outliers, x, y)) continue;
      std::fill(histogram.begin(), histogram.end(), 0);
      int total = 0;
      // The support region of Fig. 2: the horizontal arms of the pixels on p's vertical arm.
      for (int qy = y - arms.at(x, y, 2); qy <= y + arms.at(x, y, 3); ++qy)
        for (int qx = x - arms.at(x, qy, 0); qx <= x + arms.at(x, qy, 1); ++qx) {
          if (!is_reliable(outliers, qx, qy)) continue;
          const int k = level_index(disparity.at(qx, qy), range);
          if (k < 0) continue;
          ++histogram[std::size_t(k)];
          ++total;
        }
      int best = 0;
      for (int k = 1; k < range.count; ++k)
        if (histogram[std::size_t(k)] > histogram[std::size_t(best)]) best = k;
      // Eq. 6, in integers where it can be: S_p > tau_S and H_p(d*) / S_p > tau_H.
      if (total > params.tau_s && double(histogram[std::size_t(best)]) > double(params.tau_h) * double(total)) {
        out.disparity.at(x, y) = float(range.min + best);
        out.outliers.at(x, y) = std::uint8_t(OutlierKind::reliable);
      }
    }
  });
  return out;
}

RefinedDisparity region_voting(const ImageF& disparity, const OutlierMap& outliers, const CrossArms& arms,
                               DisparityRange range, const AdCensusParams& params) {
  RefinedDisparity current{disparity, outliers};
  for (int i = 0; i < params.voting_iterations; ++i)
    current = region_voting_iteration(current.disparity, current.outliers, arms, range, params);
  return current;
}

RefinedDisparity proper_interpolation(const ImageF& disparity, const OutlierMap& outliers, const ImageU8& rgb) {
  require_same_size(disparity, outliers, "proper_interpolation");
  require(rgb.channels == 3 && rgb.same_size(disparity.width, disparity.height),
          "adcensus: proper_interpolation needs an RGB image of the map's size");
  RefinedDisparity out{disparity, outliers};
  parallel_for(std::size_t(disparity.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < disparity.width; ++x) {
      const std::uint8_t kind = outliers.at(x, y);
      if (kind == std::uint8_t(OutlierKind::reliable)) continue;
      float chosen = INF;
      int chosen_colour = std::numeric_limits<int>::max();
      for (const auto& dir : adcensus::INTERPOLATION_DIRECTIONS) {
        for (int step = 1;; ++step) {
          const int qx = x + step * dir[0] / 2;
          const int qy = y + step * dir[1] / 2;
          if (qx < 0 || qy < 0 || qx >= disparity.width || qy >= disparity.height) break;
          if (!is_reliable(outliers, qx, qy)) continue;
          const float d = disparity.at(qx, qy);
          if (kind == std::uint8_t(OutlierKind::occlusion)) {
            // Occluded pixels most likely belong to the background: the smallest disparity.
            if (d < chosen) chosen = d;
          } else {
            const int colour = max_channel_difference(rgb, qx, qy, x, y);
            if (colour < chosen_colour) {
              chosen_colour = colour;
              chosen = d;
            }
          }
          break;
        }
      }
      if (std::isfinite(chosen)) {
        out.disparity.at(x, y) = chosen;
        out.outliers.at(x, y) = std::uint8_t(OutlierKind::reliable);
      }
    }
  });
  return out;
}

ImageF discontinuity_adjustment(const ImageF& disparity, const CostVolume& cost) {
  require(disparity.channels == 1 && disparity.same_size(cost.width, cost.height),
          "adcensus: discontinuity_adjustment needs a one-channel map of the volume's size");
  ImageF out = disparity;
  parallel_for(std::size_t(disparity.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < disparity.width; ++x) {
      const float d = disparity.at(x, y);
      const int k = level_index(d, cost.range);
      // Sec. 2.4 replaces D(p) when a neighbour's disparity has "smaller matching cost than
      // C2(p, D_L(p))". Where p's own match p - D(p) lies outside the right image there is no
      // such cost (the volume carries out_of_image_cost there, eq. 2's bound, which every
      // in-image level undercuts), so the left-border strip's filled pixels would move for want
      // of a match, not for a better one.
      if (k < 0 || !matched_in_image(x, k, cost.range, cost.width)) continue;
      // "All the edges" of the disparity image: an edge crossed horizontally (a left or right
      // neighbour differs) offers p1, p2 = the left and right neighbours; one crossed
      // vertically the upper and lower; a corner offers all four.
      const auto differs = [&](int qx, int qy) {
        return qx >= 0 && qy >= 0 && qx < disparity.width && qy < disparity.height &&
               std::abs(disparity.at(qx, qy) - d) >= 1.0f;
      };
      const bool across_x = differs(x - 1, y) || differs(x + 1, y);
      const bool across_y = differs(x, y - 1) || differs(x, y + 1);
      if (!across_x && !across_y) continue;
      float best_cost = cost.at(x, y, k);
      float best = d;
      // In this order: on a tie the earlier candidate keeps the pixel.
      const int candidates[4][3] = {{-1, 0, across_x}, {1, 0, across_x}, {0, -1, across_y}, {0, 1, across_y}};
      for (const auto& [dx, dy, use] : candidates) {
        const int qx = x + dx;
        const int qy = y + dy;
        if (!use || qx < 0 || qy < 0 || qx >= disparity.width || qy >= disparity.height) continue;
        const float dq = disparity.at(qx, qy);
        const int kq = level_index(dq, cost.range);
        if (kq < 0 || !matched_in_image(x, kq, cost.range, cost.width)) continue;
        if (cost.at(x, y, kq) < best_cost) {
          best_cost = cost.at(x, y, kq);
          best = dq;
        }
      }
      out.at(x, y) = best;
    }
  });
  return out;
}

ImageF subpixel_enhancement(const ImageF& disparity, const CostVolume& cost) {
  require(disparity.channels == 1 && disparity.same_size(cost.width, cost.height),
          "adcensus: subpixel_enhancement needs a one-channel map of the volume's size");
  ImageF out = disparity;
  for (int y = 0; y < disparity.height; ++y)
    for (int x = 0; x < disparity.width; ++x) {
      const int k = level_index(disparity.at(x, y), cost.range);
      if (k < 1 || k + 1 >= cost.range.count) continue;
      if (!matched_in_image(x, k - 1, cost.range, cost.width) || !matched_in_image(x, k + 1, cost.range, cost.width))
        continue;  // a level with no match in the right image holds a constant, not a cost
      const double c_minus = cost.at(x, y, k - 1);
      const double c = cost.at(x, y, k);
      const double c_plus = cost.at(x, y, k + 1);
      // Eq. 7 interpolates a minimum: only where d is one (below both neighbours; voting,
      // interpolation and adjustment can leave d elsewhere). The vertex then lies within half a
      // level of d.
      if (!(c < c_minus && c < c_plus)) continue;
      const double offset = (c_plus - c_minus) / (2.0 * (c_plus + c_minus - 2.0 * c));
      out.at(x, y) = float(double(disparity.at(x, y)) - offset);  // eq. 7
    }
  return out;
}

}  // namespace stereo::reference
