// ESAW/ESMP CPU reference (reference/esaw.h): the min-sum transform against a brute-force
// O(L^2) minimum over V, the weights' normalisation and border rule, the step schedule of
// eq. 4, the half-precision rounding, the literal ESMP's fixed point, and both cpu backends on
// synthetic scenes with exact ground truth.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "core/matcher.h"
#include "methods/esaw/model.h"
#include "methods/esaw/params.h"
#include "app/metrics.h"
#include "app/synth.h"
#include "core/thread_pool.h"
#include "methods/esaw/reference/esaw.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

using namespace reference;

CostVolume random_volume(int w, int h, int levels, std::uint32_t seed, float scale) {
  CostVolume v(w, h, DisparityRange{0, levels});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, scale);
  for (float& x : v.data) x = u(rng);
  return v;
}

ImageU8 random_rgb(int w, int h, std::uint32_t seed) {
  ImageU8 img(w, h, 3);
  std::mt19937 rng(seed);
  for (auto& x : img.data) x = std::uint8_t(rng() & 0xff);
  return img;
}

TEST(EsawReference, StepIsRoundedPowerOfTheBase) {
  // Eq. 4, s = round(b^(t-1)); the paper's own 1-D example (Sec. III-A) is b = 3: 1, 3, 9.
  EXPECT_EQ(stereo::esaw::esaw_step(3.0f, 1), 1);
  EXPECT_EQ(stereo::esaw::esaw_step(3.0f, 2), 3);
  EXPECT_EQ(stereo::esaw::esaw_step(3.0f, 3), 9);
  const int expected_19[] = {1, 2, 4, 7, 13, 25, 47, 89, 170};  // Table III, 9 iterations
  for (int t = 1; t <= 9; ++t) EXPECT_EQ(stereo::esaw::esaw_step(1.9f, t), expected_19[t - 1]) << "t = " << t;
  const int expected_28[] = {1, 3, 8, 22, 61, 172, 482, 1349};  // Table III, ESMP
  for (int t = 1; t <= 8; ++t) EXPECT_EQ(stereo::esaw::esaw_step(2.8f, t), expected_28[t - 1]) << "t = " << t;
}

TEST(EsawReference, RoundToHalfMatchesIeeeBinary16) {
  EXPECT_EQ(round_to_half(1.0f), 1.0f);
  EXPECT_EQ(round_to_half(12.0f), 12.0f);
  // 1 + 2^-11 lies half way between 1 and 1 + 2^-10: ties go to the even (1).
  EXPECT_EQ(round_to_half(1.0f + 0x1p-11f), 1.0f);
  EXPECT_EQ(round_to_half(1.0f + 0x1p-10f + 0x1p-11f), 1.0f + 0x1p-9f);  // tie to even, upwards
  EXPECT_EQ(round_to_half(1.0f + 0x1p-11f + 0x1p-20f), 1.0f + 0x1p-10f);
  EXPECT_EQ(round_to_half(0.1f), 0.0999755859375f);  // 0x2e66
  EXPECT_EQ(round_to_half(0x1p-24f * 3.4f), 0x1p-24f * 3.0f);  // subnormal: multiples of 2^-24
  EXPECT_EQ(round_to_half(-2.5f), -2.5f);
  // Every result is a half: rounding again changes nothing, and the error is at most half an ulp.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 100.0f);
  for (int i = 0; i < 10000; ++i) {
    const float x = u(rng);
    const float r = round_to_half(x);
    EXPECT_EQ(round_to_half(r), r);
    int e = 0;
    std::frexp(x, &e);
    EXPECT_LE(std::fabs(r - x), std::ldexp(1.0f, e - 12)) << x;
  }
}

TEST(EsawReference, InitCostIsTruncatedGreyDifferenceWithClampedMatches) {
  ImageU8 left(5, 1, 1), right(5, 1, 1);
  const std::uint8_t l[] = {10, 50, 100, 200, 0};
  const std::uint8_t r[] = {12, 40, 0, 255, 90};
  for (int x = 0; x < 5; ++x) {
    left.at(x, 0) = l[x];
    right.at(x, 0) = r[x];
  }
  const CostVolume c = init_cost(left, right, DisparityRange{0, 3}, 0.5f, 12.0f, Storage::fp32);
  for (int x = 0; x < 5; ++x)
    for (int k = 0; k < 3; ++k) {
      const int xr = std::max(x - k, 0);  // outside the right image: its edge column
      const float expected = 0.5f * std::min(float(std::abs(int(l[x]) - int(r[xr]))), 12.0f);
      EXPECT_EQ(c.at(x, 0, k), expected) << "x " << x << " d " << k;
    }
}

TEST(EsawReference, Cost2MsgIsTheMinSumOfTruncatedLinearV) {
  // Eq. 13 by the O(L) algorithm of eq. 17-21 against min over d' of V(d - d') + C(d').
  for (const int levels : {1, 2, 7, 60}) {
    const CostVolume cost = random_volume(9, 4, levels, 11u + unsigned(levels), 3.0f);
    for (const float c : {0.25f, 1.0f}) {
      const float eta = 1.7f;
      const CostVolume m = cost2msg(cost, c, eta, Storage::fp32);
      for (int y = 0; y < cost.height; ++y)
        for (int x = 0; x < cost.width; ++x)
          for (int d = 0; d < levels; ++d) {
            float best = INFINITY;
            for (int e = 0; e < levels; ++e)
              best = std::min(best, std::min(c * float(std::abs(d - e)), eta) + cost.at(x, y, e));
            EXPECT_NEAR(m.at(x, y, d), best, 1e-5f) << "levels " << levels << " c " << c << " d " << d;
          }
    }
  }
}

TEST(EsawReference, Cost2MsgIsIdempotentSoTheLiteralEsmpStopsAfterOnePass) {
  // The structural point of the esmp_variant parameter: min-sum with a subadditive V is
  // idempotent, and a convex combination of messages is again a fixed point.
  const CostVolume cost = random_volume(12, 6, 20, 3u, 2.5f);
  const CostVolume m = cost2msg(cost, 1.0f, 0.8f, Storage::fp32);
  const CostVolume mm = cost2msg(m, 1.0f, 0.8f, Storage::fp32);
  for (std::size_t i = 0; i < m.data.size(); ++i) ASSERT_NEAR(mm.data[i], m.data[i], 1e-6f);
  const ImageU8 rgb = random_rgb(12, 6, 5);
  const CostVolume h = aggr_H(m, m, rgb, 2, 18.0f, 29.0f, Border::drop, Storage::fp32);
  const CostVolume hm = cost2msg(h, 1.0f, 0.8f, Storage::fp32);
  for (std::size_t i = 0; i < h.data.size(); ++i) ASSERT_NEAR(hm.data[i], h.data[i], 1e-5f);
}

// Brute-force min-sum of one pixel's vector: min over e of min(c|d - e|, eta) + v(e), O(L^2).
std::vector<float> brute_min_sum(const std::vector<float>& v, float c, float eta) {
  std::vector<float> out(v.size(), INFINITY);
  for (std::size_t d = 0; d < v.size(); ++d)
    for (std::size_t e = 0; e < v.size(); ++e)
      out[d] = std::min(out[d], std::min(c * std::fabs(float(d) - float(e)), eta) + v[e]);
  return out;
}

TEST(EsawReference, BpPassSendsEachNeighbourTheMessageWithoutItsOwn) {
  // ESMP's `bp` reading against its definition, written out per pixel with the O(L^2) min-sum:
  // p hears from p - s the min-sum of (p - s)'s belief mixed with what p - 2s sent it, and from
  // p + s the same with p + 2s; never its own message back.
  const int w = 9, h = 7, levels = 6;
  const CostVolume belief = random_volume(w, h, levels, 41u, 2.5f);
  const ImageU8 rgb = random_rgb(w, h, 43);
  const float c = 0.7f, eta = 1.1f, gamma_c = 18.0f, gamma_p = 29.0f;
  const auto vec = [&](int x, int y) {
    return std::vector<float>(&belief.at(x, y, 0), &belief.at(x, y, 0) + levels);
  };
  for (const int axis : {0, 1})
    for (const int step : {1, 2, 3}) {
      const int dx = 1 - axis, dy = axis;
      const CostVolume out =
          aggr_bp(belief, rgb, dx, dy, {step, gamma_c, gamma_p, Border::drop}, c, eta, Storage::fp32);
      const auto inside = [&](int x, int y) { return x >= 0 && y >= 0 && x < w && y < h; };
      // What q sends to its neighbour on side `towards` (-1 or +1): its belief mixed with the
      // one-hop message of the pixel on the other side, weighted by q's own pass weights.
      const auto sent = [&](int qx, int qy, int towards) {
        const SampleWeights wq = sample_weights(rgb, qx, qy, dx, dy, {step, gamma_c, gamma_p, Border::drop});
        const int fx = qx - towards * dx * step, fy = qy - towards * dy * step;
        const float wf = towards < 0 ? wq.plus : wq.minus;
        std::vector<float> mix = vec(qx, qy);
        if (inside(fx, fy)) {
          const std::vector<float> far = brute_min_sum(vec(fx, fy), c, eta);
          for (int k = 0; k < levels; ++k) mix[std::size_t(k)] = (wq.centre * mix[std::size_t(k)] + wf * far[std::size_t(k)]) / (wq.centre + wf);
        }
        return brute_min_sum(mix, c, eta);
      };
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const SampleWeights wp = sample_weights(rgb, x, y, dx, dy, {step, gamma_c, gamma_p, Border::drop});
          std::vector<float> expect(std::size_t(levels), 0.0f);
          const std::vector<float> own = vec(x, y);
          for (int k = 0; k < levels; ++k) expect[std::size_t(k)] = wp.centre * own[std::size_t(k)];
          if (inside(x - dx * step, y - dy * step)) {
            const std::vector<float> m = sent(x - dx * step, y - dy * step, +1);
            for (int k = 0; k < levels; ++k) expect[std::size_t(k)] += wp.minus * m[std::size_t(k)];
          }
          if (inside(x + dx * step, y + dy * step)) {
            const std::vector<float> m = sent(x + dx * step, y + dy * step, -1);
            for (int k = 0; k < levels; ++k) expect[std::size_t(k)] += wp.plus * m[std::size_t(k)];
          }
          for (int k = 0; k < levels; ++k)
            ASSERT_NEAR(out.at(x, y, k), expect[std::size_t(k)], 1e-5f)
                << "axis " << axis << " step " << step << " at " << x << "," << y << " d " << k;
        }
    }
}

TEST(EsawReference, SumPassIsTheUnnormalisedWeightedSumSoMinSumActsAgain) {
  // ESMP's `sum` reading: the weights of eq. 14 without their division by the total (centre 1).
  const CostVolume m = cost2msg(random_volume(10, 6, 8, 51u, 2.5f), 1.0f, 0.8f, Storage::fp32);
  const ImageU8 rgb = random_rgb(10, 6, 53);
  const CostVolume s = aggr_sum(m, m, rgb, 1, 0, {2, 18.0f, 29.0f, Border::drop}, Storage::fp32);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 10; ++x) {
      const SampleWeights w = sample_weights(rgb, x, y, 1, 0, {2, 18.0f, 29.0f, Border::drop});
      for (int k = 0; k < 8; ++k) {
        float expect = m.at(x, y, k);
        if (x >= 2) expect += w.minus / w.centre * m.at(x - 2, y, k);
        if (x + 2 < 10) expect += w.plus / w.centre * m.at(x + 2, y, k);
        ASSERT_NEAR(s.at(x, y, k), expect, 1e-5f) << x << "," << y << " d " << k;
      }
    }
  // Unlike the normalised mean, the sum is no fixed point of the min-sum: somewhere the next
  // cost2msg lowers it (the sum of three messages can climb by more than c per level).
  const CostVolume again = cost2msg(s, 1.0f, 0.8f, Storage::fp32);
  double most = 0.0;
  for (std::size_t i = 0; i < s.data.size(); ++i) most = std::max(most, double(s.data[i] - again.data[i]));
  EXPECT_GT(most, 0.05);
}

TEST(EsawReference, WeightsAreNormalisedAndDropSamplesOutside) {
  const ImageU8 rgb = random_rgb(17, 11, 9);
  for (const Border border : {Border::drop, Border::clamp})
    for (int y = 0; y < rgb.height; ++y)
      for (int x = 0; x < rgb.width; ++x)
        for (const int step : {1, 4, 13}) {
          const SampleWeights w = sample_weights(rgb, x, y, 1, 0, {step, 17.0f, 36.0f, border});
          EXPECT_NEAR(w.minus + w.centre + w.plus, 1.0f, 1e-6f);
          EXPECT_GT(w.centre, 0.0f);
          if (border == Border::drop) {
            EXPECT_EQ(w.minus == 0.0f, x - step < 0) << x << " " << step;
            EXPECT_EQ(w.plus == 0.0f, x + step >= rgb.width) << x << " " << step;
          }
        }
  // The weight itself: one side sample with a known colour distance (largest channel).
  ImageU8 two(2, 1, 3);
  two.at(0, 0, 0) = 10; two.at(0, 0, 1) = 20; two.at(0, 0, 2) = 30;
  two.at(1, 0, 0) = 15; two.at(1, 0, 1) = 40; two.at(1, 0, 2) = 31;  // Delta_c = 20
  const SampleWeights w = sample_weights(two, 0, 0, 1, 0, {1, 17.0f, 36.0f, Border::drop});
  const float side = std::exp(-20.0f / 17.0f - 1.0f / 36.0f);
  EXPECT_NEAR(w.plus, side / (1.0f + side), 1e-6f);
  EXPECT_EQ(w.minus, 0.0f);
}

TEST(EsawReference, LabImageGivesTheCieLabOfKnownSrgbColours) {
  // sRGB white, black, red and a mid grey against the published CIELab (D65) values; the 8-bit
  // encoding of the lab8 reading stretches L* to 0..255 and offsets a*, b* by 128, rounded.
  ImageU8 rgb(4, 1, 3);
  const std::uint8_t colours[4][3] = {{255, 255, 255}, {0, 0, 0}, {255, 0, 0}, {119, 119, 119}};
  for (int x = 0; x < 4; ++x)
    for (int c = 0; c < 3; ++c) rgb.at(x, 0, c) = colours[x][c];
  const float expect[4][3] = {{100.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {53.24f, 80.09f, 67.20f}, {50.03f, 0.0f, 0.0f}};
  const ImageF lab = lab_image(rgb);
  for (int x = 0; x < 4; ++x)
    // 0.05: published tables differ in the last digits of the matrix and the white point.
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(lab.at(x, 0, c), expect[x][c], 0.05f) << "colour " << x << " ch " << c;
  const ImageF lab8 = lab_image(rgb, true);
  const float expect8[4][3] = {{255, 128, 128}, {0, 128, 128}, {136, 208, 195}, {128, 128, 128}};
  for (int x = 0; x < 4; ++x)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(lab8.at(x, 0, c), expect8[x][c]) << "colour " << x << " ch " << c;
}

TEST(EsawReference, LabWeightsUseTheEuclideanCieLabDistance) {
  // A black pixel beside a white one: Delta_c is 100 in CIELab, 255 in lab8 (L* stretched) and
  // 255 as the largest RGB channel difference; red beside black differs in all three CIELab
  // axes, so the Euclidean distance (not the largest axis) is what the weight must use.
  ImageU8 rgb(3, 1, 3, 0);
  for (int c = 0; c < 3; ++c) rgb.at(1, 0, c) = 255;
  rgb.at(2, 0, 0) = 255;  // red
  const float gamma_c = 18.0f, gamma_p = 29.0f;
  const auto side_weight = [&](const WeightGuide& g, int x) {
    const SampleWeights w = sample_weights(g, x, 0, 1, 0, {1, gamma_c, gamma_p, Border::drop});
    return w.plus / w.centre;  // the un-normalised weight of p + 1
  };
  const WeightGuide lab(rgb, ColourDistance::lab), lab8(rgb, ColourDistance::lab8), max_rgb(rgb);
  EXPECT_NEAR(lab.colour_distance(0, 0, 1, 0), 100.0f, 1e-3f);
  EXPECT_NEAR(side_weight(lab, 0), std::exp(-100.0f / gamma_c - 1.0f / gamma_p), 1e-7f);
  EXPECT_EQ(lab8.colour_distance(0, 0, 1, 0), 255.0f);
  EXPECT_EQ(max_rgb.colour_distance(0, 0, 1, 0), 255.0f);
  const float red = std::sqrt(53.24f * 53.24f + 80.09f * 80.09f + 67.20f * 67.20f);  // 117.3
  EXPECT_NEAR(lab.colour_distance(1, 0, 2, 0), std::sqrt(46.76f * 46.76f + 80.09f * 80.09f + 67.20f * 67.20f), 0.05f);
  EXPECT_NEAR(lab.colour_distance(2, 0, 0, 0), red, 0.05f);  // symmetric in the two pixels
  EXPECT_NEAR(lab.colour_distance(0, 0, 2, 0), red, 0.05f);
  EXPECT_NEAR(side_weight(lab, 1), std::exp(-lab.colour_distance(1, 0, 2, 0) / gamma_c - 1.0f / gamma_p), 1e-7f);
  // The stage takes the guide: an ESMP pass under lab weighs white's neighbour differently from max_rgb.
  const CostVolume v = random_volume(3, 1, 4, 61u, 2.5f);
  const CostVolume a = aggr_H(v, v, lab, 1, gamma_c, gamma_p, Border::drop, Storage::fp32);
  const CostVolume b = aggr_H(v, v, rgb, 1, gamma_c, gamma_p, Border::drop, Storage::fp32);
  EXPECT_NE(a.at(1, 0, 0), b.at(1, 0, 0));
}

TEST(EsawReference, Rgb2Lab8IsTheEightBitLabImage) {
  // The stage the CUDA backend mirrors: lab_image's 8-bit encoding as bytes, pixel for pixel,
  // and the per-colour functions it is made of.
  const ImageU8 rgb = random_rgb(37, 23, 17);
  const ImageU8 lab8 = rgb2lab8(rgb);
  const ImageF want = lab_image(rgb, true);
  ASSERT_EQ(lab8.channels, 3);
  ASSERT_EQ(lab8.data.size(), want.data.size());
  for (std::size_t i = 0; i < want.data.size(); ++i) ASSERT_EQ(float(lab8.data[i]), want.data[i]) << i;
  for (int x = 0; x < rgb.width; ++x) {
    const auto lab = linear_to_lab(esaw::srgb_to_linear(rgb.at(x, 0, 0)),
                                   esaw::srgb_to_linear(rgb.at(x, 0, 1)), esaw::srgb_to_linear(rgb.at(x, 0, 2)));
    const auto encoded = lab8_unrounded(lab);
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(lab_image(rgb).at(x, 0, c), float(lab[std::size_t(c)]));
      EXPECT_EQ(double(lab8.at(x, 0, c)), std::nearbyint(encoded[std::size_t(c)])) << x << " " << c;
    }
  }
}

// Why the CUDA stage rgb2lab8 gives the reference's bytes: it repeats linear_to_lab's double
// operations one at a time (round-to-nearest intrinsics, no contraction) on the same
// srgb_to_linear values, except the cube root of CIE's f(t), where CUDA's cbrt and libm's may
// differ in the last bits (neither is correctly rounded; CUDA documents at most 1 ulp, libm
// implementations a few). f(t) <= 1.03, so even 16 ulps between the two (< 4e-15) move L* x 2.55
// = 295.8 f(Y) - 40.8 by < 1.2e-12 and a* + 128 = 500 (f(X) - f(Y)) + 128 (b*: 200 (...)) by
// < 4e-12. A byte can then differ only if the unrounded value lies that close to a rounding tie
// (x.5; 0 and 255 are integers, so the saturation needs no case of its own). All 2^24 colours are
// checked here to lie at least MARGIN = 1e-8 from a tie, over 2000 times that; the closest one,
// (206, 99, 176)'s b* + 128, lies 1.05e-8 from it (printed). Under a second in Release on two cores.
TEST(EsawReference, NoColourHasAnUnroundedLab8ValueNearARoundingTie) {
  constexpr double MARGIN = 1e-8;
  std::array<double, 256> linear{};
  for (int v = 0; v < 256; ++v) linear[std::size_t(v)] = esaw::srgb_to_linear(std::uint8_t(v));
  std::vector<double> closest(256, 1.0);  // per red code: the smallest distance of a value to a tie
  std::vector<std::array<int, 4>> where(256);
  parallel_for(256, 0, [&](std::size_t r) {
    for (int g = 0; g < 256; ++g)
      for (int b = 0; b < 256; ++b) {
        const auto v = lab8_unrounded(linear_to_lab(linear[r], linear[std::size_t(g)], linear[std::size_t(b)]));
        for (int c = 0; c < 3; ++c) {
          const double x = v[std::size_t(c)];
          const double to_tie = std::fabs(x - std::floor(x) - 0.5);
          if (to_tie < closest[r]) {
            closest[r] = to_tie;
            where[r] = {int(r), g, b, c};
          }
        }
      }
  });
  const auto most = std::min_element(closest.begin(), closest.end());
  const auto& at = where[std::size_t(most - closest.begin())];
  std::printf("closest unrounded lab8 value to a tie: %.3g (rgb %d %d %d, channel %d)\n", *most, at[0], at[1], at[2],
              at[3]);
  EXPECT_GE(*most, MARGIN) << "rgb " << at[0] << " " << at[1] << " " << at[2] << " channel " << at[3];
}

TEST(EsawReference, Lab8DistanceAndColourFactorAreWhatTheWeightsUse) {
  // lab8's Delta_c depends on the squared distance D of the two byte triples alone (the float
  // differences, squares and sums of bytes are exact), so a table over D (the CUDA backend's)
  // holds every weight the reference can compute.
  const ImageU8 rgb = random_rgb(29, 13, 23);
  const ImageU8 lab8 = rgb2lab8(rgb);
  const WeightGuide guide(rgb, ColourDistance::lab8);
  const float gamma_c = 17.0f, gamma_p = 36.0f;
  std::mt19937 rng(5);
  for (int i = 0; i < 2000; ++i) {
    const int x0 = int(rng() % 29), y0 = int(rng() % 13), x1 = int(rng() % 29), y1 = int(rng() % 13);
    int squared = 0;
    for (int c = 0; c < 3; ++c) {
      const int d = int(lab8.at(x0, y0, c)) - int(lab8.at(x1, y1, c));
      squared += d * d;
    }
    ASSERT_EQ(guide.colour_distance(x0, y0, x1, y1), esaw::lab8_distance(squared))
        << x0 << "," << y0 << " " << x1 << "," << y1;
  }
  // The weight of a side sample is the colour factor of that distance times the spatial one.
  for (int x = 0; x + 1 < 29; ++x) {
    int squared = 0;
    for (int c = 0; c < 3; ++c) {
      const int d = int(lab8.at(x, 4, c)) - int(lab8.at(x + 1, 4, c));
      squared += d * d;
    }
    const SampleWeights w = sample_weights(guide, x, 4, 1, 0, {1, gamma_c, gamma_p, Border::drop});
    const float side = esaw::colour_factor(esaw::lab8_distance(squared), gamma_c) * std::exp(-1.0f / gamma_p);
    EXPECT_NEAR(w.plus / w.centre, side, 1e-6f) << x;  // the centre weighs 1 before the normalisation
  }
}

TEST(EsawReference, AggregationOfAConstantVolumeIsTheConstant) {
  // Normalised weights: a pass leaves a constant cost unchanged, at every border, both axes.
  const ImageU8 rgb = random_rgb(13, 9, 4);
  CostVolume v(13, 9, DisparityRange{2, 5}, 3.5f);
  for (const int step : {1, 3, 20}) {
    const CostVolume h = aggr_H(v, v, rgb, step, 17.0f, 36.0f, Border::drop, Storage::fp16);
    const CostVolume vv = aggr_V(h, h, rgb, step, 17.0f, 36.0f, Border::clamp, Storage::fp16);
    for (const float x : vv.data) ASSERT_NEAR(x, 3.5f, 3.5f * 0x1p-10f);
  }
}

TEST(EsawReference, AggrHAndAggrVAreTransposesOfEachOther) {
  const ImageU8 rgb = random_rgb(11, 7, 21);
  ImageU8 rgb_t(7, 11, 3);
  const CostVolume v = random_volume(11, 7, 6, 8u, 12.0f);
  CostVolume v_t(7, 11, v.range);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 11; ++x) {
      for (int c = 0; c < 3; ++c) rgb_t.at(y, x, c) = rgb.at(x, y, c);
      for (int k = 0; k < 6; ++k) v_t.at(y, x, k) = v.at(x, y, k);
    }
  const CostVolume h = aggr_H(v, v, rgb, 2, 17.0f, 36.0f, Border::drop, Storage::fp32);
  const CostVolume vt = aggr_V(v_t, v_t, rgb_t, 2, 17.0f, 36.0f, Border::drop, Storage::fp32);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 11; ++x)
      for (int k = 0; k < 6; ++k) ASSERT_EQ(h.at(x, y, k), vt.at(y, x, k));
}

TEST(EsawReference, SelectDisparityTakesTheFirstSmallest) {
  CostVolume v(2, 1, DisparityRange{3, 4});
  const float a[] = {5, 2, 2, 7}, b[] = {1, 4, 4, 0.5f};
  for (int k = 0; k < 4; ++k) {
    v.at(0, 0, k) = a[k];
    v.at(1, 0, k) = b[k];
  }
  const ImageF d = select_disparity(v);
  EXPECT_EQ(d.at(0, 0), 4.0f);
  EXPECT_EQ(d.at(1, 0), 6.0f);
}

void expect_recovers(const std::string& method, SynthLayout layout, const Overrides& overrides, double nonocc_bar) {
  SynthOptions options;  // 160x120, 32 levels
  options.layout = layout;
  const Scene scene = make_synthetic_scene(options);
  auto matcher = create_matcher(method, "cpu", overrides);
  const StereoResult result = matcher->compute(scene.left, scene.right, scene.range());
  const Metrics m = evaluate(result.disparity, scene, 1.0);
  std::cout << "[" << method << "/cpu synthetic " << to_string(layout) << "] bad>1 nonocc " << *m.bad_nonocc
            << " % all " << *m.bad_all << " %\n";
  EXPECT_LE(*m.bad_nonocc, nonocc_bar);
}

// Stated bars: textured planes at integer disparities leave little wrong where both views see
// the pixel; the slanted plane is harder for a fronto-parallel aggregation.
TEST(EsawReference, EsawRecoversThePlanarScene) { expect_recovers("esaw", SynthLayout::planes, {}, 1.0); }
TEST(EsawReference, EsmpRecoversThePlanarScene) { expect_recovers("esmp", SynthLayout::planes, {}, 1.0); }
TEST(EsawReference, EsmpCentreRecoversTheSlantedScene) {
  expect_recovers("esmp", SynthLayout::slanted, {{"esmp_variant", "centre"}}, 2.5);
}
TEST(EsawReference, EsmpBpRecoversThePlanarScene) {
  expect_recovers("esmp", SynthLayout::planes, {{"esmp_variant", "bp"}}, 1.0);
}
TEST(EsawReference, EsmpBpsumRecoversThePlanarScene) {
  expect_recovers("esmp", SynthLayout::planes, {{"esmp_variant", "bpsum"}}, 1.0);
}
TEST(EsawReference, EsawRecoversTheSlantedScene) {
  expect_recovers("esaw", SynthLayout::slanted, {}, 2.5);
}
TEST(EsawReference, EsmpLabRecoversThePlanarScene) {
  expect_recovers("esmp", SynthLayout::planes, {{"colour", "lab"}}, 1.0);
}
// The suite's first Delta_c, the default before lab8 (the tests above run the default).
TEST(EsawReference, MaxRgbRecoversThePlanarScene) {
  expect_recovers("esaw", SynthLayout::planes, {{"colour", "max_rgb"}}, 1.0);
  expect_recovers("esmp", SynthLayout::planes, {{"colour", "max_rgb"}}, 1.0);
}

TEST(EsawReference, BackendsRejectBadParameters) {
  EXPECT_THROW(create_matcher("esaw", "cpu", {{"iterations", "0"}}), Error);
  EXPECT_THROW(create_matcher("esaw", "cpu", {{"base", "0.5"}}), Error);
  EXPECT_THROW(create_matcher("esmp", "cpu", {{"esmp_variant", "nonsense"}}), Error);
  // The cpu-only readings are refused by name for any CUDA component (EsmpParams::validate).
  EsmpParams bp;
  bp.esmp_variant = "bp";
  EXPECT_THROW(bp.validate("esmp/cuda"), Error);
  EXPECT_NO_THROW(bp.validate("esmp/cpu"));
  EXPECT_NO_THROW(create_matcher("esaw", "cpu", {{"iterations", "5"}, {"base", "2.6"}}));
  EXPECT_THROW(create_matcher("esmp", "cpu", {{"colour", "hsv"}}), Error);
  EXPECT_NO_THROW(create_matcher("esmp", "cpu", {{"colour", "lab"}}));
  EXPECT_NO_THROW(create_matcher("esaw", "cpu", {{"colour", "lab8"}}));
  EXPECT_NO_THROW(create_matcher("esaw", "cpu", {{"colour", "max_rgb"}}));
}

// The CUDA kernels read max_rgb and lab8 (methods/esaw/cuda/rgb2lab8.cu); `lab`, CIELab in floats, runs
// on the cpu backend only, and validate() says so by name for either method.
template <class Params>
void expect_colours_validated(const std::string& method) {
  for (const std::string backend : {"cpu", "cuda"})
    for (const std::string colour : {"max_rgb", "lab8"}) {
      Params p;
      p.colour = colour;
      EXPECT_NO_THROW(p.validate(method + "/" + backend)) << method << "/" << backend << " " << colour;
    }
  Params lab;
  lab.colour = "lab";
  EXPECT_NO_THROW(lab.validate(method + "/cpu"));
  try {
    lab.validate(method + "/cuda");
    ADD_FAILURE() << method << "/cuda accepted colour=lab";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(method + "/cuda: colour=lab runs on the cpu backend only"), std::string::npos)
        << e.what();
  }
}

TEST(EsawReference, CudaComponentsTakeMaxRgbAndLab8ButNotLab) {
  expect_colours_validated<EsawParams>("esaw");
  expect_colours_validated<EsmpParams>("esmp");
}

}  // namespace
}  // namespace stereo
