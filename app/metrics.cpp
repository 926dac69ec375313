#include "app/metrics.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace stereo {
namespace {

bool in_mask(const ImageU8& mask, std::size_t i) { return !mask.empty() && mask.data[i] == 255; }

std::optional<double> percent(std::uint64_t bad, std::uint64_t evaluated) {
  if (evaluated == 0) return std::nullopt;
  return 100.0 * double(bad) / double(evaluated);
}

}  // namespace

std::uint8_t mask_flags(const Scene& scene, std::size_t i) {
  std::uint8_t f = 0;
  if (in_mask(scene.mask_nonocc, i)) f |= MASK_NONOCC;
  if (in_mask(scene.mask_all, i)) f |= MASK_ALL;
  if (in_mask(scene.mask_disc, i)) f |= MASK_DISC;
  if (scene.mask_nonocc.empty() || scene.mask_nonocc.data[i] == 255) f |= MASK_PICTURE_NONOCC;
  if (scene.mask_nonocc.empty() ? in_mask(scene.mask_all, i) : in_mask(scene.mask_nonocc, i)) f |= MASK_AVERAGED;
  return f;
}

Metrics metrics_of(const MetricCounts& c, SceneKind kind, double threshold) {
  Metrics m;
  m.threshold = threshold;
  m.bad_nonocc = percent(c.nonocc_bad, c.nonocc);
  m.bad_all = percent(c.all_bad, c.all);
  m.bad_disc = percent(c.disc_bad, c.disc);
  if (kind == SceneKind::kitti) m.d1_all = percent(c.d1_bad, c.d1);
  if (c.averaged > 0) m.avg_error = c.error_sum / double(c.averaged);
  m.density = c.pixels == 0 ? 0.0 : 100.0 * double(c.finite) / double(c.pixels);
  return m;
}

Metrics evaluate(const ImageF& disparity, const Scene& scene, double threshold) {
  constexpr ErrorKind INPUT = ErrorKind::invalid_argument;
  require(scene.has_ground_truth(), scene.name + ": no ground truth to evaluate against", INPUT);
  require(disparity.same_size(scene.gt.width, scene.gt.height),
          scene.name + ": disparity map is " + std::to_string(disparity.width) + "x" + std::to_string(disparity.height) +
              ", ground truth " + std::to_string(scene.gt.width) + "x" + std::to_string(scene.gt.height),
          INPUT);
  require(threshold >= 0.0, "evaluate: threshold must be >= 0, got " + std::to_string(threshold), INPUT);
  MetricCounts c;
  c.pixels = disparity.data.size();
  const bool kitti = scene.kind == SceneKind::kitti;
  for (std::size_t i = 0; i < disparity.data.size(); ++i) {
    const float d = disparity.data[i];
    const float g = scene.gt.data[i];
    if (std::isfinite(d)) ++c.finite;
    if (!std::isfinite(g)) continue;
    const double err = std::isfinite(d) ? std::abs(double(d) - double(g)) : INFINITY;
    const bool bad = err > threshold;
    const std::uint8_t f = mask_flags(scene, i);
    if (f & MASK_NONOCC) {
      ++c.nonocc;
      c.nonocc_bad += bad;
    }
    if (f & MASK_ALL) {
      ++c.all;
      c.all_bad += bad;
    }
    if (f & MASK_DISC) {
      ++c.disc;
      c.disc_bad += bad;
    }
    if (kitti && (f & MASK_ALL)) {
      ++c.d1;
      c.d1_bad += err > 3.0 && err > 0.05 * std::abs(double(g));
    }
    if ((f & MASK_AVERAGED) && std::isfinite(err)) {
      c.error_sum += err;
      ++c.averaged;
    }
  }
  return metrics_of(c, scene.kind, threshold);
}

double agreement(const ImageF& a, const ImageF& b) {
  require(a.same_size(b.width, b.height) && a.channels == b.channels,
          "agreement: maps differ in size (" + std::to_string(a.width) + "x" + std::to_string(a.height) + " vs " +
              std::to_string(b.width) + "x" + std::to_string(b.height) + ")");
  if (a.data.empty()) return 1.0;
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    const float x = a.data[i], y = b.data[i];
    if (!std::isfinite(x) || !std::isfinite(y))
      same += !std::isfinite(x) && !std::isfinite(y);
    else
      same += std::lround(x) == std::lround(y);
  }
  return double(same) / double(a.data.size());
}

ImageU8 colorize_disparity(const ImageF& disparity, float max_disparity) {
  // A perceptually ordered ramp: dark blue (far) through cyan, green, yellow to dark red
  // (near); nine control points, linear in between.
  static constexpr std::array<std::array<float, 3>, 9> kRamp = {{
      {0.19f, 0.07f, 0.23f}, {0.27f, 0.35f, 0.84f}, {0.16f, 0.64f, 0.98f}, {0.11f, 0.89f, 0.71f},
      {0.45f, 0.99f, 0.37f}, {0.83f, 0.91f, 0.21f}, {0.99f, 0.65f, 0.19f}, {0.89f, 0.27f, 0.04f},
      {0.48f, 0.02f, 0.01f},
  }};
  ImageU8 out(disparity.width, disparity.height, 3);
  const float scale = max_disparity > 0.0f ? 1.0f / max_disparity : 1.0f;
  for (std::size_t i = 0; i < disparity.pixel_count(); ++i) {
    const float d = disparity.data[i];
    if (!std::isfinite(d)) continue;  // black: no disparity
    const float t = std::clamp(d * scale, 0.0f, 1.0f) * float(kRamp.size() - 1);
    const auto k = std::min<std::size_t>(std::size_t(t), kRamp.size() - 2);
    const float f = t - float(k);
    for (int c = 0; c < 3; ++c) {
      const float v = kRamp[k][std::size_t(c)] * (1.0f - f) + kRamp[k + 1][std::size_t(c)] * f;
      out.data[i * 3 + std::size_t(c)] = static_cast<std::uint8_t>(std::lround(v * 255.0f));
    }
  }
  return out;
}

std::uint8_t error_map_grey(const ImageU8& left, int x, int y) {
  double grey = 0.0;
  for (int c = 0; c < left.channels; ++c) grey += left.at(x, y, c);
  grey /= left.channels;
  return static_cast<std::uint8_t>(40.0 + grey * 0.45);
}

ImageU8 error_map(const ImageF& disparity, const Scene& scene, double threshold) {
  require(scene.has_ground_truth(), scene.name + ": no ground truth for an error map", ErrorKind::invalid_argument);
  require(disparity.same_size(scene.gt.width, scene.gt.height), scene.name + ": disparity and ground truth differ in size",
          ErrorKind::invalid_argument);
  ImageU8 out(disparity.width, disparity.height, 3);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const std::size_t i = out.index(x, y) / 3;
      const float g = scene.gt.data[i];
      if (!std::isfinite(g)) continue;  // black: no ground truth
      const float d = disparity.data[i];
      const bool bad = !std::isfinite(d) || std::abs(double(d) - double(g)) > threshold;
      const bool nonocc = (mask_flags(scene, i) & MASK_PICTURE_NONOCC) != 0;
      std::array<std::uint8_t, 3> rgb{};
      if (!bad) {
        const std::uint8_t v = error_map_grey(scene.left, x, y);
        rgb = {v, v, v};
      } else if (nonocc) {
        rgb = {230, 20, 20};
      } else {
        rgb = {250, 160, 30};
      }
      for (int c = 0; c < 3; ++c) out.at(x, y, c) = rgb[std::size_t(c)];
    }
  return out;
}

}  // namespace stereo
