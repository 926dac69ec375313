#include "methods/salap/reference/salap.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stereo::reference {
namespace {

// Intensity difference of one pixel pair under the chosen cost (in 0..255 levels).
double abs_difference(const ImageU8& left, const ImageU8& right, int xl, int xr, int y,
                      const std::string& cost) {
  if (left.channels == 1) return std::abs(double(left.at(xl, y)) - double(at_clamped(right, xr, y)));
  if (cost == "luma") {
    auto luma = [](const ImageU8& img, int x, int yy) {
      return 0.299 * at_clamped(img, x, yy, 0) + 0.587 * at_clamped(img, x, yy, 1) +
             0.114 * at_clamped(img, x, yy, 2);
    };
    return std::abs(luma(left, xl, y) - luma(right, xr, y));
  }
  double sum = 0.0;  // rgb_mean: mean of the per-channel absolute differences
  for (int c = 0; c < 3; ++c) sum += std::abs(double(left.at(xl, y, c)) - double(at_clamped(right, xr, y, c)));
  return sum / 3.0;
}

float store(double v, int quantize) {
  const auto f = static_cast<float>(v);
  return quantize == 8 ? quantize8(f) : f;
}

// The one-sided window filter along the unit step (dx, dy): the weighted mean of the samples
// p + k (dx, dy), k = 0..radius, each read clamped to the image (filter_horizontal/vertical).
ImageF filter_along(const ImageF& cost, int dx, int dy, const SalapParams& params, int quantize) {
  const std::vector<double> w = salap::kernel_weights(params);
  double f1 = 0.0;
  for (double v : w) f1 += v;
  ImageF out(cost.width, cost.height, 1);
  for (int y = 0; y < cost.height; ++y)
    for (int x = 0; x < cost.width; ++x) {
      double sum = 0.0;
      for (int k = 0; k < int(w.size()); ++k) sum += at_clamped(cost, x + dx * k, y + dy * k) * w[std::size_t(k)];
      out.at(x, y) = store(sum / f1, quantize);
    }
  return out;
}

}  // namespace

float quantize8(float v) {
  const float c = std::clamp(v, 0.0f, 1.0f);
  return std::round(c * 255.0f) / 255.0f;
}

ImageF tad_cost(const ImageU8& left, const ImageU8& right, int d, const SalapParams& params, int quantize) {
  ImageF out(left.width, left.height, 1);
  for (int y = 0; y < left.height; ++y)
    for (int x = 0; x < left.width; ++x) {
      const double diff = abs_difference(left, right, x, x - d, y, params.cost);
      out.at(x, y) = store(std::min(diff, double(params.tau)) / double(params.tau), quantize);
    }
  return out;
}

ImageF filter_horizontal(const ImageF& cost, Side side, const SalapParams& params, int quantize) {
  require(side == Side::left || side == Side::right, "filter_horizontal: side must be left or right");
  return filter_along(cost, side == Side::left ? -1 : 1, 0, params, quantize);
}

ImageF filter_vertical(const ImageF& cost, Side side, const SalapParams& params, int quantize) {
  require(side == Side::up || side == Side::down, "filter_vertical: side must be up or down");
  return filter_along(cost, 0, side == Side::up ? -1 : 1, params, quantize);
}

ImageF window_cost(const ImageF& c0, const ImageF& c1, const ImageF& c2, const ImageF& c3,
                   const SalapParams& params) {
  ImageF out(c0.width, c0.height, 1);
  const bool nine = params.windows == "9";
  for (std::size_t i = 0; i < out.data.size(); ++i) {
    // Normalised quadrant costs C_i / (tau F); eq. 3 then needs no further division by F.
    const double q0 = c0.data[i], q1 = c1.data[i], q2 = c2.data[i], q3 = c3.data[i];
    const double cc = std::min({q0, q1, q2, q3}) + params.beta;
    if (!nine) {
      out.data[i] = static_cast<float>(cc);
      continue;
    }
    const double ca = (q0 + q1 + q2 + q3) / 4.0;
    const double cb = std::min({q0 + q1, q0 + q2, q2 + q3, q1 + q3}) / 2.0 + params.alpha;
    out.data[i] = static_cast<float>(std::min({ca, cb, cc}));
  }
  return out;
}

ImageF level_cost(const ImageU8& left, const ImageU8& right, int d, const SalapParams& params, int quantize) {
  const ImageF tad = tad_cost(left, right, d, params, quantize);
  const ImageF cl = filter_horizontal(tad, Side::left, params, quantize);
  const ImageF cr = filter_horizontal(tad, Side::right, params, quantize);
  return window_cost(filter_vertical(cl, Side::down, params, quantize), filter_vertical(cl, Side::up, params, quantize),
                     filter_vertical(cr, Side::down, params, quantize), filter_vertical(cr, Side::up, params, quantize),
                     params);
}

ImageF salap_disparity(const ImageU8& left, const ImageU8& right, DisparityRange range, const SalapParams& params,
                       int quantize) {
  params.validate("salap/cpu");
  ImageF best_cost(left.width, left.height, 1, std::numeric_limits<float>::infinity());
  ImageF disparity(left.width, left.height, 1, float(range.min));
  for (int d = range.min; d <= range.max(); ++d) {
    const ImageF cost = level_cost(left, right, d, params, quantize);
    for (std::size_t i = 0; i < cost.data.size(); ++i)
      if (cost.data[i] < best_cost.data[i]) {  // strict: the smallest d wins a tie
        best_cost.data[i] = cost.data[i];
        disparity.data[i] = static_cast<float>(d);
      }
  }
  return disparity;
}

}  // namespace stereo::reference
