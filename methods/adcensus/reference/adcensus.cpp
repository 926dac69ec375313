// AD-Census reference stages (Mei et al. ICCV-W 2011, Sec. 2.1-2.3). Plain loops; the only
// concession to speed is a split of independent rows (or columns, or scanlines) over the
// machine's threads, which changes no result: every output element is written by one thread
// and summed in a fixed order.

#include "methods/adcensus/reference/adcensus.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>

#include "core/error.h"
#include "methods/adcensus/model.h"
#include "methods/adcensus/params.h"
#include "core/thread_pool.h"
#include "reference/colour_difference.h"  // D_c of Sec. 2.2 (the images are RGB: require_rgb)
#include "reference/winner_takes_all.h"

namespace stereo::reference {
namespace {

namespace model = stereo::adcensus;  // methods/adcensus/model.h
using model::ARM_DOWN;
using model::ARM_LEFT;
using model::ARM_RIGHT;
using model::ARM_UP;

void require_rgb(const ImageU8& image, const std::string& what) {
  require(image.channels == 3,
          [&] { return "adcensus: " + what + " must have 3 channels (RGB), got " + std::to_string(image.channels); });
}

// Length of one arm of p = (x, y) in direction (dx, dy), by the enhanced rules of Sec. 2.2.
int arm_length(const ImageU8& rgb, int x, int y, int dx, int dy, const AdCensusParams& params) {
  int length = 0;
  for (int k = 1;; ++k) {
    const int x1 = x + k * dx;
    const int y1 = y + k * dy;
    if (x1 < 0 || y1 < 0 || x1 >= rgb.width || y1 >= rgb.height) break;  // image border
    if (k >= params.arm_l1) break;                                        // rule 2
    const int to_p = max_channel_difference(rgb, x1, y1, x, y);
    if (to_p >= params.tau1) break;                                                     // rule 1
    if (max_channel_difference(rgb, x1, y1, x1 - dx, y1 - dy) >= params.tau1) break;  // rule 1
    if (k > params.arm_l2 && to_p >= params.tau2) break;                                // rule 3
    length = k;
  }
  return length;
}

// The arms a sum uses at pixel (x, y) and level k: p's own, or with `other` (the other view's
// arms) the combined arms of Zhang et al. [23], the shorter of p's arm and pd's arm, pd =
// (x + sign * (min_d + k), y); where pd lies outside the other image, none (p alone).
struct ArmSource {
  const CrossArms& arms;
  const CrossArms* other = nullptr;
  int sign = 0;
  int min_d = 0;
  [[nodiscard]] int arm(int x, int y, int k, int which) const {
    int a = arms.at(x, y, which);
    if (other == nullptr) return a;
    const int xd = x + sign * (min_d + k);
    // pd outside the other image: the region is p alone, which keeps its cost (the constant
    // out_of_image_cost): no region of a matched cell reaches such a cell, since pd's arms stop
    // at the other image's border.
    if (xd < 0 || xd >= arms.width) return 0;
    return std::min(a, int(other->at(xd, y, which)));
  }
};

// out(p, k) = sum of `in` over p's horizontal (or vertical) arm at level k, every one of the
// `depth` values per pixel, with a 1D integral (prefix sum in double) along each row (column).
std::vector<float> sum_along_arms(const std::vector<float>& in, int width, int height, int depth,
                                  const ArmSource& source, bool horizontal) {
  std::vector<float> out(in.size());
  const auto at = [&](int x, int y) {
    return (static_cast<std::size_t>(y) * std::size_t(width) + std::size_t(x)) * std::size_t(depth);
  };
  const int lines = horizontal ? height : width;
  const int length = horizontal ? width : height;
  parallel_for(std::size_t(lines), 0, [&](std::size_t item) {
    const int line = int(item);
    std::vector<double> prefix((std::size_t(length) + 1) * std::size_t(depth), 0.0);
    for (int i = 0; i < length; ++i) {
      const std::size_t src = horizontal ? at(i, line) : at(line, i);
      for (std::size_t k = 0; k < std::size_t(depth); ++k)
        prefix[(std::size_t(i) + 1) * std::size_t(depth) + k] = prefix[std::size_t(i) * std::size_t(depth) + k] +
                                                                double(in[src + k]);
    }
    for (int i = 0; i < length; ++i) {
      const int x = horizontal ? i : line;
      const int y = horizontal ? line : i;
      const std::size_t dst = at(x, y);
      for (int k = 0; k < depth; ++k) {
        const int before = source.arm(x, y, k, horizontal ? ARM_LEFT : ARM_UP);
        const int after = source.arm(x, y, k, horizontal ? ARM_RIGHT : ARM_DOWN);
        const std::size_t hi = (std::size_t(i) + std::size_t(after) + 1) * std::size_t(depth);
        const std::size_t lo = (std::size_t(i) - std::size_t(before)) * std::size_t(depth);
        const std::size_t kk = std::size_t(k);
        out[dst + kk] = float(prefix[hi + kk] - prefix[lo + kk]);
      }
    }
  });
  return out;
}

// One iteration: two 1D sums, divided by the pixel count of the 2D region (the same two sums
// over ones, per level where the region depends on the level).
CostVolume aggregate_over(const CostVolume& cost, const ArmSource& source, int iteration) {
  require(iteration >= 1,
          [&] { return "adcensus: aggregation iteration is 1-based, got " + std::to_string(iteration); });
  // Iterations 1 and 3 sum horizontally first (the support region is the union of the
  // horizontal arms of the pixels on p's vertical arm), 2 and 4 vertically first (the union of
  // the vertical arms of the pixels on p's horizontal arm), Sec. 2.2.
  const bool horizontal_first = iteration % 2 == 1;
  const int count_depth = source.other == nullptr ? 1 : cost.range.count;
  const std::vector<float> ones(static_cast<std::size_t>(cost.width) * static_cast<std::size_t>(cost.height) *
                                    static_cast<std::size_t>(count_depth),
                                1.0f);
  const std::vector<float> count = sum_along_arms(
      sum_along_arms(ones, cost.width, cost.height, count_depth, source, horizontal_first), cost.width, cost.height,
      count_depth, source, !horizontal_first);
  CostVolume out(cost.width, cost.height, cost.range);
  out.data = sum_along_arms(sum_along_arms(cost.data, cost.width, cost.height, cost.range.count, source, horizontal_first),
                            cost.width, cost.height, cost.range.count, source, !horizontal_first);
  parallel_for(std::size_t(cost.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < cost.width; ++x) {
      const std::size_t pixel = std::size_t(y) * std::size_t(cost.width) + std::size_t(x);
      for (int k = 0; k < cost.range.count; ++k)
        out.at(x, y, k) /= count[pixel * std::size_t(count_depth) + std::size_t(count_depth == 1 ? 0 : k)];
    }
  });
  return out;
}

}  // namespace

CensusImage census_transform(const ImageU8& grey) {
  require(grey.channels == 1, [&] {
    return "adcensus: census_transform needs a grey image, got " + std::to_string(grey.channels) + " channels";
  });
  CensusImage census(grey.width, grey.height, 1);
  for (int y = 0; y < grey.height; ++y)
    for (int x = 0; x < grey.width; ++x) {
      const std::uint8_t centre = grey.at(x, y);
      std::uint64_t bits = 0;
      int bit = 0;
      for (int dy = -model::CENSUS_HALF_HEIGHT; dy <= model::CENSUS_HALF_HEIGHT; ++dy)
        for (int dx = -model::CENSUS_HALF_WIDTH; dx <= model::CENSUS_HALF_WIDTH; ++dx) {
          if (dx == 0 && dy == 0) continue;
          if (at_clamped(grey, x + dx, y + dy) < centre) bits |= std::uint64_t{1} << bit;
          ++bit;
        }
      census.at(x, y) = bits;
    }
  return census;
}

CostVolume ad_census_cost(const CostImages& images, DisparityRange range, const AdCensusParams& params,
                          bool right_view) {
  const ImageU8& left_rgb = images.left_rgb;
  const ImageU8& right_rgb = images.right_rgb;
  const CensusImage& left_census = images.left_census;
  const CensusImage& right_census = images.right_census;
  require_rgb(left_rgb, "left image");
  require_rgb(right_rgb, "right image");
  require(right_rgb.same_size(left_rgb.width, left_rgb.height) && left_census.same_size(left_rgb.width, left_rgb.height) &&
              right_census.same_size(left_rgb.width, left_rgb.height),
          "adcensus: ad_census_cost needs images and census images of one size");
  require(range.count >= 1,
          [&] { return "adcensus: disparity count must be >= 1, got " + std::to_string(range.count); });
  const ImageU8& ref = right_view ? right_rgb : left_rgb;
  const ImageU8& other = right_view ? left_rgb : right_rgb;
  const CensusImage& ref_census = right_view ? right_census : left_census;
  const CensusImage& other_census = right_view ? left_census : right_census;
  const int sign = right_view ? +1 : -1;  // the left view matches p with p - d, the right view with p + d
  // rho of every possible Hamming distance (0..62) and RGB sum of absolute differences
  // (0..765), in double: the same values as evaluating eq. 2-3 per cell, computed once.
  std::vector<double> rho_census(64), rho_ad(766);
  for (std::size_t h = 0; h < rho_census.size(); ++h)
    rho_census[h] = 1.0 - std::exp(-double(h) / double(params.lambda_census));
  for (std::size_t sad = 0; sad < rho_ad.size(); ++sad)
    rho_ad[sad] = 1.0 - std::exp(-(double(sad) / 3.0) / double(params.lambda_ad));  // eq. 1: the mean over RGB
  CostVolume cost(ref.width, ref.height, range);
  parallel_for(std::size_t(ref.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < ref.width; ++x)
      for (int k = 0; k < range.count; ++k) {
        const int xm = x + sign * (range.min + k);
        if (xm < 0 || xm >= ref.width) {
          cost.at(x, y, k) = params.out_of_image_cost;
          continue;
        }
        const int hamming = std::popcount(ref_census.at(x, y) ^ other_census.at(xm, y));
        int sad = 0;
        for (int c = 0; c < 3; ++c) sad += std::abs(int(ref.at(x, y, c)) - int(other.at(xm, y, c)));
        cost.at(x, y, k) = float(rho_census[std::size_t(hamming)] + rho_ad[std::size_t(sad)]);  // eq. 2
      }
  });
  return cost;
}

CrossArms cross_arms(const ImageU8& rgb, const AdCensusParams& params) {
  require_rgb(rgb, "cross_arms image");
  CrossArms arms(rgb.width, rgb.height, 4);
  parallel_for(std::size_t(rgb.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < rgb.width; ++x) {
      arms.at(x, y, ARM_LEFT) = std::uint8_t(arm_length(rgb, x, y, -1, 0, params));
      arms.at(x, y, ARM_RIGHT) = std::uint8_t(arm_length(rgb, x, y, +1, 0, params));
      arms.at(x, y, ARM_UP) = std::uint8_t(arm_length(rgb, x, y, 0, -1, params));
      arms.at(x, y, ARM_DOWN) = std::uint8_t(arm_length(rgb, x, y, 0, +1, params));
    }
  });
  return arms;
}

CostVolume aggregate_cost(const CostVolume& cost, const CrossArms& arms, int iteration) {
  require(arms.same_size(cost.width, cost.height) && arms.channels == 4,
          "adcensus: aggregate_cost needs 4-channel arms of the volume's size");
  return aggregate_over(cost, ArmSource{arms}, iteration);
}

CostVolume aggregate_cost(const CostVolume& cost, const CrossArms& arms, const CrossArms& other_arms, int iteration,
                          bool right_view) {
  require(arms.same_size(cost.width, cost.height) && arms.channels == 4 &&
              other_arms.same_size(cost.width, cost.height) && other_arms.channels == 4,
          "adcensus: aggregate_cost needs 4-channel arms of both views of the volume's size");
  return aggregate_over(cost, ArmSource{arms, &other_arms, right_view ? +1 : -1, cost.range.min}, iteration);
}

CostVolume right_view_from_left(const CostVolume& left, float out_of_image_cost) {
  CostVolume right(left.width, left.height, left.range);
  for (int y = 0; y < left.height; ++y)
    for (int x = 0; x < left.width; ++x)
      for (int k = 0; k < left.range.count; ++k) {
        const int xl = x + left.range.min + k;  // the left pixel that matches (x, y) at this level
        right.at(x, y, k) = xl >= 0 && xl < left.width ? left.at(xl, y, k) : out_of_image_cost;
      }
  return right;
}

CostVolume scanline_optimize(const CostVolume& cost, const ImageU8& left_rgb, const ImageU8& right_rgb,
                             const AdCensusParams& params, bool right_view) {
  require_rgb(left_rgb, "left image");
  require_rgb(right_rgb, "right image");
  require(left_rgb.same_size(cost.width, cost.height) && right_rgb.same_size(cost.width, cost.height),
          "adcensus: scanline_optimize needs images of the volume's size");
  const ImageU8& ref = right_view ? right_rgb : left_rgb;
  const ImageU8& other = right_view ? left_rgb : right_rgb;
  const int sign = right_view ? +1 : -1;
  const int width = cost.width;
  const int height = cost.height;
  const int depth = cost.range.count;
  CostVolume sum(width, height, cost.range, 0.0f);
  // Directions r in a fixed order (left-right, right-left, top-bottom, bottom-top) so that each
  // element of `sum` is accumulated in the same order on every run.
  const int directions[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  for (const auto& r : directions) {
    const int rx = r[0];
    const int ry = r[1];
    const bool horizontal = ry == 0;
    const int lines = horizontal ? height : width;
    const int length = horizontal ? width : height;
    parallel_for(std::size_t(lines), 0, [&](std::size_t item) {
      const int line = int(item);
      std::vector<float> previous(static_cast<std::size_t>(depth));
      std::vector<float> current(static_cast<std::size_t>(depth));
      for (int step = 0; step < length; ++step) {
        const int i = (rx + ry) > 0 ? step : length - 1 - step;
        const int x = horizontal ? i : line;
        const int y = horizontal ? line : i;
        if (step == 0) {
          for (int k = 0; k < depth; ++k) current[std::size_t(k)] = cost.at(x, y, k);  // a path starts with C1
        } else {
          const float previous_min = *std::min_element(previous.begin(), previous.end());
          const int d1 = max_channel_difference(ref, x, y, x - rx, y - ry);
          for (int k = 0; k < depth; ++k) {
            // D2 in the other image at pd and pd - r; where either lies outside it there is no
            // colour to compare and D2 counts as below tau_SO (that match costs
            // out_of_image_cost anyway).
            const int xd = x + sign * (cost.range.min + k);
            const int xd_prev = xd - rx;
            int d2 = 0;
            if (xd >= 0 && xd < width && xd_prev >= 0 && xd_prev < width)
              d2 = max_channel_difference(other, xd, y, xd_prev, y - ry);
            const int edges = int(d1 >= params.tau_so) + int(d2 >= params.tau_so);
            const float divisor = model::penalty_divisor(edges);
            const float p1 = params.pi1 / divisor;
            const float p2 = params.pi2 / divisor;
            const std::size_t kk = std::size_t(k);
            float best = std::min(previous[kk], previous_min + p2);
            if (k > 0) best = std::min(best, previous[kk - 1] + p1);
            if (k + 1 < depth) best = std::min(best, previous[kk + 1] + p1);
            current[kk] = cost.at(x, y, k) + best - previous_min;  // eq. 4
          }
        }
        for (int k = 0; k < depth; ++k) sum.at(x, y, k) += current[std::size_t(k)];
        std::swap(previous, current);
      }
    });
  }
  for (float& v : sum.data) v *= 0.25f;  // eq. 5, the mean of the four paths
  return sum;
}

ImageF winner_takes_all(const CostVolume& cost) { return lowest_cost_disparity(cost); }

}  // namespace stereo::reference
