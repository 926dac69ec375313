#pragma once
// A CPU model of SA-LAP's 8-bit GL path as Mesa llvmpipe runs it, for the GL tests on llvmpipe.
//
// Why a model of its own: llvmpipe filters RGBA8 textures in 8-bit fixed point (Mesa
// gallivm's AoS sampling path, lp_bld_sample_aos.c, taken for every unorm8 format with
// CLAMP_TO_EDGE), where a GPU's texture unit returns the blend in more bits. For a GL_LINEAR
// fetch at texel coordinate s along the filter axis it
//   - rounds s * 256 to an integer u and takes u - 128 (the texel-centre offset), so the
//     sub-texel weight is wt = (u - 128) & 255 in 1/256 and the left texel i0 = (u - 128) >> 8;
//   - blends the two 8-bit codes v0, v1 (both indices clamped to the edge) in integers,
//     v0 + ((wt * (v1 - v0) + 128) >> 8) (lp_build_lerp's rounding multiply, pmulhrsw on
//     x86), so the fetch itself returns an 8-bit code. (The truncating form, without the
//     + 128, matches only 66.8 % of the filter outputs of the 37x29 stage test; this one 100 %.)
// The 1/256 weight alone is what every GPU does; the 8-bit result is llvmpipe's, and it moves
// about 9 % of the rgba8 filter outputs one code away from reference::filter_*(quantize=8),
// which sums the exact taps (measured on the 37x29 test pair, Mesa 22.3 llvmpipe). With the
// same integer arithmetic here, the shaders' sum (centre texel * w0/F1 + sum of pair fetches
// * (w_i + w_i+1)/F1, in float) and their half-up store to the 8-bit grid, the model and
// llvmpipe differ only where float rounding in the shader's sum crosses a rounding boundary.
//
// The winner-takes-all follows the gl (fragment) backend: float costs per group, a 24-bit
// depth test across groups (gl/shaders/salap_select.frag).
// Tap layout, sums and store follow gl/shaders/salap_horizontal.comp and salap_vertical.comp
// (and gl/salap_passes.cpp's tap layout), written here from their comments, not shared code.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/image.h"
#include "methods/salap/params.h"
#include "methods/salap/reference/salap.h"

namespace stereo::test {

/// An 8-bit code read back as the shader sees it: llvmpipe converts unorm8 to float by a
/// multiply with the float reciprocal of 255, which is not always the correctly rounded k / 255.
inline float unorm8_to_float(int code) { return float(code) * (1.0f / 255.0f); }

/// One-sided SA-LAP filter of an 8-bit (k / 255) cost image along x (horizontal) or y,
/// with llvmpipe's RGBA8 bilinear pairs; `side` as reference::filter_horizontal/vertical.
inline ImageF llvmpipe_filter(const ImageF& cost, reference::Side side, const SalapParams& p) {
  using reference::Side;
  const bool along_x = side == Side::left || side == Side::right;
  const int sign = (side == Side::right || side == Side::down) ? 1 : -1;
  const int reach = p.radius();
  std::vector<double> w(std::size_t(reach) + 1);
  double f1 = 0.0;
  for (int k = 0; k <= reach; ++k) f1 += (w[std::size_t(k)] = std::exp(-double(k) / double(p.gamma)));
  // The pairs (i, i+1), i = 1, 3, ..: offset i + w_{i+1} / (w_i + w_{i+1}), weight (w_i + w_{i+1}) / F1,
  // float constants in the shader.
  std::vector<float> offsets, weights;
  for (int i = 1; i < reach; i += 2) {
    const double a = w[std::size_t(i)], b = w[std::size_t(i) + 1];
    offsets.push_back(float(double(i) + b / (a + b)));
    weights.push_back(float((a + b) / f1));
  }
  const float centre_weight = float(w[0] / f1);
  const int n = along_x ? cost.width : cost.height;
  // Per position along the axis and pair: the two clamped texel indices and the 1/256 weight.
  struct Tap {
    int a, b, wt;
  };
  std::vector<Tap> taps(std::size_t(n) * offsets.size());
  for (int pos = 0; pos < n; ++pos)
    for (std::size_t j = 0; j < offsets.size(); ++j) {
      const float s = float(pos) + 0.5f + float(sign) * offsets[j];
      const long u = std::lrint(double(s) * 256.0) - 128;  // round to nearest; no ties occur here
      const int i0 = int(u >> 8);
      taps[std::size_t(pos) * offsets.size() + j] = {std::clamp(i0, 0, n - 1), std::clamp(i0 + 1, 0, n - 1), int(u & 255)};
    }
  std::vector<int> codes(cost.data.size());
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = int(std::lround(double(cost.data[i]) * 255.0));
  const std::size_t stride = along_x ? 1 : std::size_t(cost.width);
  ImageF out(cost.width, cost.height, 1);
  for (int y = 0; y < cost.height; ++y)
    for (int x = 0; x < cost.width; ++x) {
      const int pos = along_x ? x : y;
      const std::size_t line = along_x ? std::size_t(y) * std::size_t(cost.width) : std::size_t(x);
      float sum = unorm8_to_float(codes[line + std::size_t(pos) * stride]) * centre_weight;
      for (std::size_t j = 0; j < offsets.size(); ++j) {
        const Tap& t = taps[std::size_t(pos) * offsets.size() + j];
        const int v0 = codes[line + std::size_t(t.a) * stride], v1 = codes[line + std::size_t(t.b) * stride];
        const int fetched = v0 + ((t.wt * (v1 - v0) + 128) >> 8);  // pmulhrsw: rounded, an 8-bit code
        sum += unorm8_to_float(fetched) * weights[j];
      }
      const float scaled = std::clamp(sum, 0.0f, 1.0f) * 255.0f;
      out.at(x, y) = std::floor(scaled + 0.5f) / 255.0f;
    }
  return out;
}

/// Eq. 3-4 in float, in the order gl/shaders/salap_select.frag evaluates them, on the 8-bit
/// quadrant costs as the shader reads them.
inline float select_cost(const float q[4], const SalapParams& p) {
  const float cc = std::min(std::min(q[0], q[1]), std::min(q[2], q[3])) + p.beta;
  if (p.windows != "9") return cc;
  // Summed pairwise: llvmpipe evaluates it so (measured: ((q0 + q1) + q2) + q3 leaves exact
  // ties where llvmpipe sees a last-bit difference, on 0.03-0.07 % of the Middlebury pixels).
  const float ca = ((q[0] + q[1]) + (q[2] + q[3])) / 4.0f;
  const float cb = std::min(std::min(q[0] + q[1], q[0] + q[2]), std::min(q[2] + q[3], q[1] + q[3])) / 2.0f + p.alpha;
  return std::min(ca, std::min(cb, cc));
}

/// The `gl` backend's whole rgba8 pipeline on llvmpipe: the 8-bit TAD, the four modelled
/// filters per level, and its winner-takes-all: per group of four levels the first channel
/// with the smallest float cost, then across groups a GL_LESS depth test on the cost scaled by
/// 1 / (1 + max(alpha, beta)) and stored in a 24-bit depth buffer (costs that land on one
/// depth code keep the smaller disparity).
inline ImageF llvmpipe_disparity(const ImageU8& left, const ImageU8& right, int levels, const SalapParams& p) {
  using reference::Side;
  const std::size_t pixels = left.pixel_count();
  const float depth_scale = float(1.0 / (1.0 + std::max(p.alpha, p.beta)));
  const float depth_max = float(1.0 - 1.0 / double(1 << 20));
  const long depth_one = (1L << 24) - 1;
  std::vector<long> depth(pixels, depth_one);
  ImageF disparity(left.width, left.height, 1, 0.0f);
  for (int d0 = 0; d0 < levels; d0 += 4) {
    std::vector<float> best(pixels, 0.0f);
    std::vector<int> best_d(pixels, d0);
    for (int d = d0; d < std::min(d0 + 4, levels); ++d) {
      const ImageF tad = reference::tad_cost(left, right, d, p, 8);
      const ImageF cl = llvmpipe_filter(tad, Side::left, p), cr = llvmpipe_filter(tad, Side::right, p);
      const ImageF c[4] = {llvmpipe_filter(cl, Side::down, p), llvmpipe_filter(cl, Side::up, p),
                           llvmpipe_filter(cr, Side::down, p), llvmpipe_filter(cr, Side::up, p)};
      for (std::size_t i = 0; i < pixels; ++i) {
        float q[4];
        for (int k = 0; k < 4; ++k) q[k] = unorm8_to_float(int(std::lround(double(c[k].data[i]) * 255.0)));
        const float v = select_cost(q, p);
        if (d == d0 || v < best[i]) {
          best[i] = v;
          best_d[i] = d;
        }
      }
    }
    for (std::size_t i = 0; i < pixels; ++i) {
      const float z = std::clamp(best[i] * depth_scale, 0.0f, depth_max);
      const long code = std::lrint(double(z) * double(depth_one));
      if (code < depth[i]) {
        depth[i] = code;
        disparity.data[i] = float(best_d[i]);
      }
    }
  }
  return disparity;
}

/// The CPU model of the 8-bit filter a renderer runs: on llvmpipe its fixed-point sampler
/// (llvmpipe_filter); elsewhere the reference at quantize=8, which sums the exact taps (a GPU's
/// texture unit blends in more than 8 bits; its 1/256 sub-texel weights are the remaining
/// difference).
inline ImageF rgba8_filter_model(const ImageF& in, reference::Side side, const SalapParams& params, bool llvmpipe) {
  using reference::Side;
  if (llvmpipe) return llvmpipe_filter(in, side, params);
  return side == Side::left || side == Side::right ? reference::filter_horizontal(in, side, params, 8)
                                                   : reference::filter_vertical(in, side, params, 8);
}

}  // namespace stereo::test
