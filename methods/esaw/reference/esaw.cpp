// ESAW and ESMP reference stages (reference/esaw.h): plain loops over rows, each row its own
// work item, so the result does not depend on the thread count.

#include "methods/esaw/reference/esaw.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "core/thread_pool.h"
#include "reference/colour_difference.h"
#include "reference/median.h"
#include "reference/winner_takes_all.h"

namespace stereo::reference {

namespace {

float store(float x, Storage storage) { return storage == Storage::fp16 ? round_to_half(x) : x; }

void require_same_shape(const CostVolume& a, const CostVolume& b, const char* stage) {
  require(a.width == b.width && a.height == b.height && a.range.min == b.range.min && a.range.count == b.range.count,
          [&] {
            return std::string("esaw/cpu: ") + stage + ": volumes differ in shape (" + std::to_string(a.width) +
                   "x" + std::to_string(a.height) + "x" + std::to_string(a.range.count) + " vs " +
                   std::to_string(b.width) + "x" + std::to_string(b.height) + "x" + std::to_string(b.range.count) +
                   ")";
          });
}

// CIE 1976's f(t): the cube root, with the linear segment below (6/29)^3.
double lab_f(double t) {
  constexpr double delta = esaw::LAB_DELTA;
  return t > delta * delta * delta ? std::cbrt(t) : t / (3.0 * delta * delta) + 4.0 / 29.0;
}

// One channel of the 8-bit encoding: rounded to nearest (ties to even; rgb2lab8's test shows no
// colour comes near a tie) and saturated.
std::uint8_t lab8_byte(double v) { return std::uint8_t(std::clamp(std::nearbyint(v), 0.0, 255.0)); }

// A three-sample pass: its direction (dx, dy), its name in errors, and whether its weights are
// divided by their sum (the `sum` reading's are not).
struct Pass {
  int dx;
  int dy;
  const char* stage;
  bool normalise = true;
};

// One three-sample pass along (dx, dy); the weights depend on the pixel only, so they are
// computed once per pixel and applied to every disparity.
CostVolume aggregate(const CostVolume& centre, const CostVolume& side, const WeightGuide& guide, const Pass& pass,
                     const WeightParams& weights, Storage storage) {
  const int dx = pass.dx, dy = pass.dy, step = weights.step;
  const char* stage = pass.stage;
  const bool normalise = pass.normalise;
  require_same_shape(centre, side, stage);
  require(guide.width() == centre.width && guide.height() == centre.height, [&] {
    return std::string("esaw/cpu: ") + stage + ": reference image " + std::to_string(guide.width()) + "x" +
           std::to_string(guide.height()) + " does not match the volume " + std::to_string(centre.width) + "x" +
           std::to_string(centre.height);
  });
  require(step >= 1,
          [&] { return std::string("esaw/cpu: ") + stage + ": step must be >= 1, got " + std::to_string(step); });
  CostVolume out(centre.width, centre.height, centre.range);
  const int levels = centre.range.count;
  parallel_for(std::size_t(centre.height), 0, [&](std::size_t row) {
    const int y = int(row);
    for (int x = 0; x < centre.width; ++x) {
      SampleWeights w = sample_weights(guide, x, y, dx, dy, weights);
      if (!normalise) w = SampleWeights{w.minus / w.centre, 1.0f, w.plus / w.centre};  // the `sum` reading
      const float* c = &centre.at(x, y, 0);
      // Clamped coordinates: with Border::drop a sample outside has weight 0 and is not read.
      const int xm = std::clamp(x - dx * step, 0, centre.width - 1), ym = std::clamp(y - dy * step, 0, centre.height - 1);
      const int xp = std::clamp(x + dx * step, 0, centre.width - 1), yp = std::clamp(y + dy * step, 0, centre.height - 1);
      const float* m = w.minus > 0.0f ? &side.at(xm, ym, 0) : nullptr;
      const float* p = w.plus > 0.0f ? &side.at(xp, yp, 0) : nullptr;
      float* o = &out.at(x, y, 0);
      for (int k = 0; k < levels; ++k) {
        // The order of the sum is the CUDA kernels' (centre, minus, plus).
        float sum = w.centre * c[k];
        if (m) sum += w.minus * m[k];
        if (p) sum += w.plus * p[k];
        o[k] = store(sum, storage);
      }
    }
  });
  return out;
}

}  // namespace

float round_to_half(float x) {
  if (!std::isfinite(x) || x == 0.0f) return x;
  if (std::fabs(x) >= 6.103515625e-05f) {  // 2^-14: a normal half keeps 10 of float's 23 fraction bits
    std::uint32_t u = std::bit_cast<std::uint32_t>(x);
    u += 0xfffu + ((u >> 13) & 1u);  // round to nearest, ties to even, on bit 13
    u &= ~0x1fffu;
    return std::bit_cast<float>(u);
  }
  // Subnormal halves are multiples of 2^-24; scaling by a power of two is exact.
  return std::nearbyint(x * 16777216.0f) / 16777216.0f;
}

ImageU8 rgb2grey(const ImageU8& rgb) { return grey_image(rgb); }

CostVolume init_cost(const ImageU8& grey_left, const ImageU8& grey_right, DisparityRange range, float lambda,
                     float tau, Storage storage) {
  require(grey_left.channels == 1 && grey_right.channels == 1, "esaw/cpu: init_cost needs grey images");
  require(grey_left.same_size(grey_right.width, grey_right.height), [&] {
    return "esaw/cpu: init_cost: left " + std::to_string(grey_left.width) + "x" + std::to_string(grey_left.height) +
           " and right " + std::to_string(grey_right.width) + "x" + std::to_string(grey_right.height) + " differ";
  });
  require(range.count >= 1, "esaw/cpu: init_cost: empty disparity range");
  CostVolume out(grey_left.width, grey_left.height, range);
  parallel_for(std::size_t(grey_left.height), 0, [&](std::size_t row) {
    const int y = int(row);
    for (int x = 0; x < grey_left.width; ++x)
      for (int k = 0; k < range.count; ++k) {
        const int xr = std::clamp(x - (range.min + k), 0, grey_left.width - 1);
        const float diff = float(std::abs(int(grey_left.at(x, y)) - int(grey_right.at(xr, y))));
        out.at(x, y, k) = store(lambda * std::min(diff, tau), storage);
      }
  });
  return out;
}

std::array<double, 3> linear_to_lab(double r, double g, double b) {
  const double fx = lab_f((esaw::SRGB_XR * r + esaw::SRGB_XG * g + esaw::SRGB_XB * b) / esaw::WHITE_X);
  const double fy = lab_f(esaw::SRGB_YR * r + esaw::SRGB_YG * g + esaw::SRGB_YB * b);
  const double fz = lab_f((esaw::SRGB_ZR * r + esaw::SRGB_ZG * g + esaw::SRGB_ZB * b) / esaw::WHITE_Z);
  return {116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)};
}

std::array<double, 3> lab8_unrounded(const std::array<double, 3>& lab) {
  // Only the stretch of L* changes a distance; the offsets keep a* and b* inside 0..255.
  return {lab[0] * (255.0 / 100.0), lab[1] + 128.0, lab[2] + 128.0};
}

ImageF lab_image(const ImageU8& rgb, bool eight_bit) {
  require(rgb.channels >= 3, [&] {
    return "esaw/cpu: lab_image needs an RGB image, got " + std::to_string(rgb.channels) + " channel(s)";
  });
  ImageF out(rgb.width, rgb.height, 3);
  for (int y = 0; y < rgb.height; ++y)
    for (int x = 0; x < rgb.width; ++x) {
      const std::array<double, 3> lab =
          linear_to_lab(esaw::srgb_to_linear(rgb.at(x, y, 0)), esaw::srgb_to_linear(rgb.at(x, y, 1)),
                        esaw::srgb_to_linear(rgb.at(x, y, 2)));
      if (eight_bit) {
        const std::array<double, 3> encoded = lab8_unrounded(lab);
        for (int ch = 0; ch < 3; ++ch) out.at(x, y, ch) = float(lab8_byte(encoded[std::size_t(ch)]));
      } else {
        for (int ch = 0; ch < 3; ++ch) out.at(x, y, ch) = float(lab[std::size_t(ch)]);
      }
    }
  return out;
}

ImageU8 rgb2lab8(const ImageU8& rgb) {
  const ImageF lab = lab_image(rgb, true);
  ImageU8 out(rgb.width, rgb.height, 3);
  for (std::size_t i = 0; i < lab.data.size(); ++i) out.data[i] = std::uint8_t(lab.data[i]);  // integers 0..255
  return out;
}

WeightGuide::WeightGuide(const ImageU8& rgb) : WeightGuide(rgb, ColourDistance::max_rgb) {}

WeightGuide::WeightGuide(const ImageU8& rgb, ColourDistance distance)
    : width_(rgb.width), height_(rgb.height), distance_(distance) {
  if (distance == ColourDistance::max_rgb)
    rgb_ = rgb;
  else
    lab_ = lab_image(rgb, distance == ColourDistance::lab8);
}

float WeightGuide::colour_distance(int x0, int y0, int x1, int y1) const {
  if (distance_ == ColourDistance::max_rgb) return float(max_channel_difference(rgb_, x0, y0, x1, y1));
  // One IEEE operation at a time in float and a correctly rounded square root: an order a GPU
  // twin can repeat exactly with __fsub_rn / __fmul_rn / __fadd_rn / __fsqrt_rn.
  const float dl = lab_.at(x0, y0, 0) - lab_.at(x1, y1, 0);
  const float da = lab_.at(x0, y0, 1) - lab_.at(x1, y1, 1);
  const float db = lab_.at(x0, y0, 2) - lab_.at(x1, y1, 2);
  const float dl2 = dl * dl, da2 = da * da, db2 = db * db;
  const float sum = (dl2 + da2) + db2;
  return std::sqrt(sum);
}

SampleWeights sample_weights(const WeightGuide& guide, int x, int y, int dx, int dy, const WeightParams& weights) {
  const int step = weights.step;
  const float gamma_c = weights.gamma_c, gamma_p = weights.gamma_p;
  const Border border = weights.border;
  const float spatial = esaw::spatial_factor(step, gamma_p);
  const auto side = [&](int sx, int sy) {
    const bool outside = sx < 0 || sy < 0 || sx >= guide.width() || sy >= guide.height();
    if (outside && border == Border::drop) return 0.0f;
    sx = std::clamp(sx, 0, guide.width() - 1);
    sy = std::clamp(sy, 0, guide.height() - 1);
    return esaw::colour_factor(guide.colour_distance(x, y, sx, sy), gamma_c) * spatial;
  };
  const float minus = side(x - dx * step, y - dy * step);
  const float plus = side(x + dx * step, y + dy * step);
  const float norm = 1.0f / (1.0f + minus + plus);
  return SampleWeights{minus * norm, norm, plus * norm};
}

CostVolume aggr_H(const CostVolume& centre, const CostVolume& side, const WeightGuide& guide, int step, float gamma_c,
                  float gamma_p, Border border, Storage storage) {
  return aggregate(centre, side, guide, Pass{1, 0, "aggr_H"}, WeightParams{step, gamma_c, gamma_p, border}, storage);
}

CostVolume aggr_V(const CostVolume& centre, const CostVolume& side, const WeightGuide& guide, int step, float gamma_c,
                  float gamma_p, Border border, Storage storage) {
  return aggregate(centre, side, guide, Pass{0, 1, "aggr_V"}, WeightParams{step, gamma_c, gamma_p, border}, storage);
}

CostVolume cost2msg(const CostVolume& cost, float c, float eta, Storage storage) {
  CostVolume out(cost.width, cost.height, cost.range);
  const int levels = cost.range.count;
  parallel_for(std::size_t(cost.height), 0, [&](std::size_t row) {
    const int y = int(row);
    std::vector<float> m(static_cast<std::size_t>(levels));
    for (int x = 0; x < cost.width; ++x) {
      const float* in = &cost.at(x, y, 0);
      // Eq. 17-18: start from the costs; h is the truncation, min + eta.
      float lowest = in[0];
      for (int k = 0; k < levels; ++k) {
        m[std::size_t(k)] = in[k];
        lowest = std::min(lowest, in[k]);
      }
      const float h = lowest + eta;
      // Eq. 19: forward pass, the cones rising to the right. Its values are stored (rounded)
      // as the CUDA backend stores them between aggr_H+/aggr_V+ and cost2msg- (Sec. IV).
      for (int k = 1; k < levels; ++k)
        m[std::size_t(k)] = store(std::min(m[std::size_t(k - 1)] + c, m[std::size_t(k)]), storage);
      // Eq. 20-21: backward pass and the truncation.
      m[std::size_t(levels - 1)] = std::min(m[std::size_t(levels - 1)], h);
      for (int k = levels - 2; k >= 0; --k)
        m[std::size_t(k)] = std::min(std::min(m[std::size_t(k + 1)] + c, m[std::size_t(k)]), h);
      float* o = &out.at(x, y, 0);
      for (int k = 0; k < levels; ++k) o[k] = store(m[std::size_t(k)], storage);
    }
  });
  return out;
}

CostVolume aggr_bp(const CostVolume& belief, const WeightGuide& guide, int dx, int dy, const WeightParams& weights,
                   float c, float eta, Storage storage) {
  const int step = weights.step;
  require(guide.width() == belief.width && guide.height() == belief.height, [&] {
    return "esaw/cpu: aggr_bp: reference image " + std::to_string(guide.width()) + "x" +
           std::to_string(guide.height()) + " does not match the volume " + std::to_string(belief.width) + "x" +
           std::to_string(belief.height);
  });
  require(step >= 1, [&] { return "esaw/cpu: aggr_bp: step must be >= 1, got " + std::to_string(step); });
  require((dx == 1 && dy == 0) || (dx == 0 && dy == 1), "esaw/cpu: aggr_bp: direction must be (1,0) or (0,1)");
  const int w = belief.width, h = belief.height, levels = belief.range.count;
  const auto clamp_x = [&](int x) { return std::clamp(x, 0, w - 1); };
  const auto clamp_y = [&](int y) { return std::clamp(y, 0, h - 1); };
  const CostVolume hop = cost2msg(belief, c, eta, storage);  // what every pixel sends before this pass
  // The weighted means a pixel sends on, one per direction, each without the receiver's message.
  CostVolume to_minus(w, h, belief.range), to_plus(w, h, belief.range);
  parallel_for(std::size_t(h), 0, [&](std::size_t row) {
    const int y = int(row);
    for (int x = 0; x < w; ++x) {
      const SampleWeights q = sample_weights(guide, x, y, dx, dy, weights);
      const float* b = &belief.at(x, y, 0);
      const float* from_plus = &hop.at(clamp_x(x + dx * step), clamp_y(y + dy * step), 0);
      const float* from_minus = &hop.at(clamp_x(x - dx * step), clamp_y(y - dy * step), 0);
      const float wm = q.centre + q.plus, wp = q.centre + q.minus;
      for (int k = 0; k < levels; ++k) {
        to_minus.at(x, y, k) = store((q.centre * b[k] + q.plus * from_plus[k]) / wm, storage);
        to_plus.at(x, y, k) = store((q.centre * b[k] + q.minus * from_minus[k]) / wp, storage);
      }
    }
  });
  const CostVolume msg_minus = cost2msg(to_minus, c, eta, storage);  // received by q - s
  const CostVolume msg_plus = cost2msg(to_plus, c, eta, storage);    // received by q + s
  CostVolume out(w, h, belief.range);
  parallel_for(std::size_t(h), 0, [&](std::size_t row) {
    const int y = int(row);
    for (int x = 0; x < w; ++x) {
      const SampleWeights p = sample_weights(guide, x, y, dx, dy, weights);
      const float* b = &belief.at(x, y, 0);
      // p's left (upper) neighbour sends what it sends towards plus, and the other way round.
      const float* from_minus = &msg_plus.at(clamp_x(x - dx * step), clamp_y(y - dy * step), 0);
      const float* from_plus = &msg_minus.at(clamp_x(x + dx * step), clamp_y(y + dy * step), 0);
      for (int k = 0; k < levels; ++k) {
        float sum = p.centre * b[k];
        if (p.minus > 0.0f) sum += p.minus * from_minus[k];
        if (p.plus > 0.0f) sum += p.plus * from_plus[k];
        out.at(x, y, k) = store(sum, storage);
      }
    }
  });
  return out;
}

CostVolume aggr_sum(const CostVolume& centre, const CostVolume& side, const WeightGuide& guide, int dx, int dy,
                    const WeightParams& weights, Storage storage) {
  return aggregate(centre, side, guide, Pass{dx, dy, "aggr_sum", false}, weights, storage);
}

CostVolume add_volumes(const CostVolume& a, const CostVolume& b, Storage storage) {
  require_same_shape(a, b, "add_volumes");
  CostVolume out(a.width, a.height, a.range);
  for (std::size_t i = 0; i < a.data.size(); ++i) out.data[i] = store(a.data[i] + b.data[i], storage);
  return out;
}

ImageF select_disparity(const CostVolume& cost) { return lowest_cost_disparity(cost); }

ImageF median_filter(const ImageF& disparity) { return median_3x3(disparity); }

}  // namespace stereo::reference
