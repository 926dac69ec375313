#pragma once
/// \file methods/esaw/reference/esaw.h
/// ESAW and ESMP on the CPU, one function per kernel of the paper's Sec. IV, with the same
/// names as the CUDA stages in methods/esaw/cuda/stages.h so tests compare stage against stage.
/// W. Yu, T. Chen, F. Franchetti, J. C. Hoe, IEEE TCSVT 2010 (Sec. III; Table III).
///
/// Pipeline:
///   grey   = rgb2grey(rgb)                               integer BT.601 luma (eq. 3's I)
///   C0     = init_cost(grey_l, grey_r, range, lambda, tau)         eq. 3
///   for t = 1..T, s = esaw_step(b, t):                             eq. 4
///     ESAW:  C = aggr_V(aggr_H(C, s), s)                           eq. 5, 6
///     ESMP:  C = aggr_V(cost2msg(aggr_H(cost2msg(C), s)), s)       eq. 13-16 (by variant)
///   D      = select_disparity(C)                                   eq. 7
///   D      = median_filter(D)                                      step 4, reference/median.h
///
/// Precision: with Storage::fp16 every stage rounds what it stores to the nearest half-precision
/// value (round to nearest even), as the CUDA stages store it; the arithmetic inside a stage is
/// single precision. Integer stages (grey, init_cost at lambda = 1, select_disparity, median)
/// are bit-exact with the CUDA stages; the aggregation and min-sum stages agree within the
/// tolerance their tests state (the weights' exp differs in the last bits between libm and CUDA).

#include <array>
#include <cstdint>
#include <vector>

#include "core/disparity_range.h"
#include "core/image.h"
#include "methods/esaw/model.h"
#include "reference/cost_volume.h"
#include "reference/grey.h"

namespace stereo::reference {

/// What the cost volume is rounded to between stages.
enum class Storage { fp32, fp16 };

/// What a pass does with a sample outside the image (methods/esaw/model.h); the cpu matcher
/// and the tests name it here.
using esaw::Border;

/// x rounded to the nearest IEEE half-precision value (ties to even, subnormals kept), returned
/// as float; what CUDA's __float2half_rn followed by __half2float gives. |x| < 65520 assumed.
float round_to_half(float x);

/// The paper's rgb2grey: integer BT.601 luma (reference/grey.h's grey_image, as AD-Census).
ImageU8 rgb2grey(const ImageU8& rgb);

/// Eq. 3: C0(x, y, d) = lambda * min(|I_L(x, y) - I_R(x - d, y)|, tau) on grey images, for d
/// = range.min + k; a match x - d outside the right image reads its edge column (clamp to edge).
CostVolume init_cost(const ImageU8& grey_left, const ImageU8& grey_right, DisparityRange range, float lambda,
                     float tau, Storage storage);

/// How Delta_c, the colour distance of the adaptive weight, is measured on the reference image.
///  - max_rgb: the largest absolute difference of the three 8-bit RGB channels (an integer in
///    0..255; the suite's first reading, which lands nearest Table IV's ESAW-9 figure);
///  - lab: the Euclidean distance of the two colours in CIELab (sRGB, D65; L* in 0..100), Yoon
///    and Kweon's Delta_c. The paper computes its weight "as in [17]" (Sec. III-A), and [17] is
///    Yoon and Kweon;
///  - lab8: the same distance between CIELab colours as 8-bit images store them (L* x 255/100,
///    a* + 128, b* + 128, each rounded to an integer, OpenCV's 8-bit conversion): L* counts
///    2.55 times as much against a* and b*. A guess at how a 2010 C implementation held "the
///    CIELab of [17]"; the paper says nothing of the encoding. The methods' default
///    (methods/esaw/params.h), on the cpu and cuda backends.
enum class ColourDistance { max_rgb, lab, lab8 };

/// CIELab (L* in 0..100, a*, b*) of one colour given as linear sRGB light (esaw::srgb_to_linear
/// of its codes, model.h): XYZ by the model's sRGB matrix, L*a*b* against its D65 white, in
/// double, one IEEE operation at a time in the order written in esaw.cpp (which the CUDA stage
/// repeats).
std::array<double, 3> linear_to_lab(double r, double g, double b);

/// The 8-bit encoding of ColourDistance::lab8 before its rounding: L* x 255/100, a* + 128,
/// b* + 128 (OpenCV's CV_8U Lab).
std::array<double, 3> lab8_unrounded(const std::array<double, 3>& lab);

/// CIELab of every pixel of an 8-bit sRGB image (3 floats a pixel: L*, a*, b*), linear_to_lab
/// of srgb_to_linear of its codes, stored as float. eight_bit: the 8-bit encoding of
/// ColourDistance::lab8 (lab8_unrounded, rounded to nearest and saturated to 0..255).
ImageF lab_image(const ImageU8& rgb, bool eight_bit = false);

/// The lab8 reading's first stage: lab_image(rgb, true) as the 8-bit image it is (3 channels:
/// L* x 255/100, a* + 128, b* + 128, each rounded). The CPU twin of the CUDA stage rgb2lab8.
ImageU8 rgb2lab8(const ImageU8& rgb);

/// What the adaptive weights read: the reference image and how its colours are compared.
/// Converts implicitly from an RGB image (max_rgb), so every stage can still be called with the
/// image itself; a lab guide holds the image's CIELab, computed once.
class WeightGuide {
 public:
  WeightGuide(const ImageU8& rgb);  // NOLINT(google-explicit-constructor): max_rgb, as before
  WeightGuide(const ImageU8& rgb, ColourDistance distance);

  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int height() const { return height_; }
  [[nodiscard]] ColourDistance distance() const { return distance_; }
  /// Delta_c between the pixels (x0, y0) and (x1, y1), both inside the image.
  [[nodiscard]] float colour_distance(int x0, int y0, int x1, int y1) const;

 private:
  int width_ = 0;
  int height_ = 0;
  ColourDistance distance_ = ColourDistance::max_rgb;
  ImageU8 rgb_;  // max_rgb
  ImageF lab_;   // lab
};

/// Normalised weights of one three-sample pass at p over {p - step*dir, p, p + step*dir}.
struct SampleWeights {
  float minus = 0.0f;
  float centre = 1.0f;
  float plus = 0.0f;
};

/// What a three-sample pass's weights (eq. 5/6) are made of besides the guide: the sample step
/// s, gamma_c and gamma_p, and what a sample outside the image does.
struct WeightParams {
  int step = 1;
  float gamma_c = 0.0f;
  float gamma_p = 0.0f;
  Border border = Border::drop;
};

/// The adaptive weights of eq. 5/6 at (x, y) for a pass along (dx, dy) (one of (1,0), (0,1)):
/// a side sample q inside the image weighs esaw::colour_factor(Delta_c(p, q), gamma_c) x
/// esaw::spatial_factor(step, gamma_p) (model.h), with Delta_c measured as `guide` says
/// (ColourDistance; for lab8 the float operations on 8-bit integers are exact up to the square
/// root, so it is esaw::lab8_distance of their squared distance); the centre weighs 1;
/// a sample outside the image weighs 0; the three are divided by their sum.
/// With Border::clamp a sample outside reads the edge pixel (its colour in Delta_c, the nominal
/// step in the spatial factor).
SampleWeights sample_weights(const WeightGuide& guide, int x, int y, int dx, int dy, const WeightParams& weights);

/// Eq. 5: out(p) = w_c centre(p) + w_l side(p - s) + w_r side(p + s), horizontal. ESAW passes the
/// same volume as centre and side; ESMP's readings pass costs or messages (esmp_variant).
CostVolume aggr_H(const CostVolume& centre, const CostVolume& side, const WeightGuide& guide, int step,
                  float gamma_c, float gamma_p, Border border, Storage storage);
/// Eq. 6: as aggr_H, vertical.
CostVolume aggr_V(const CostVolume& centre, const CostVolume& side, const WeightGuide& guide, int step,
                  float gamma_c, float gamma_p, Border border, Storage storage);

/// Eq. 13 with V(x) = min(c|x|, eta) by the O(L) min-sum of eq. 17-21 (forward pass, backward
/// pass, truncation at min + eta), per pixel over the disparity axis. With Storage::fp16 the
/// forward values are rounded too (the GPU stores them between the paper's aggr_H+/aggr_V+ and
/// cost2msg-); the backward pass runs in fp32 and only its result is rounded.
CostVolume cost2msg(const CostVolume& cost, float c, float eta, Storage storage);

/// ESMP's `bp` reading: one three-sample pass along (dx, dy) (one of (1,0), (0,1)) with the
/// messages belief propagation sends, each excluding its receiver. A pixel q sends towards
/// q - s the min-sum message of the weighted mean of its own belief and the message it receives
/// from q + s, and towards q + s the same with q - s:
///   M(q)      = cost2msg(B(q))                                   (isotropic, one hop)
///   toM(q)    = cost2msg((w_c(q) B(q) + w_+(q) M(q + s)) / (w_c(q) + w_+(q)))
///   toP(q)    = cost2msg((w_c(q) B(q) + w_-(q) M(q - s)) / (w_c(q) + w_-(q)))
///   out(p)    = w_c(p) B(p) + w_-(p) toP(p - s) + w_+(p) toM(p + s)
/// with the weights of sample_weights (a side outside the image has weight 0 and is left out).
/// Two directional buffers per pass, against the paper's single isotropic message volume.
CostVolume aggr_bp(const CostVolume& belief, const WeightGuide& guide, int dx, int dy, const WeightParams& weights,
                   float c, float eta, Storage storage);

/// ESMP's `sum` reading: eq. 14/16 as the plain weighted sum of Fig. 6 (centre weight 1, a side
/// exp(-Delta_c/gamma_c - s/gamma_p), not divided by their total), so the sum of three messages
/// can rise faster than c per level and the next cost2msg acts again.
CostVolume aggr_sum(const CostVolume& centre, const CostVolume& side, const WeightGuide& guide, int dx, int dy,
                    const WeightParams& weights, Storage storage);

/// a + b element by element (ESMP's "data" reading: the belief C0 + A), rounded to storage.
CostVolume add_volumes(const CostVolume& a, const CostVolume& b, Storage storage);

/// Eq. 7: range.min + the index of the smallest cost (the first on ties).
ImageF select_disparity(const CostVolume& cost);

/// Step 4: the 3x3 median (reference/median.h).
ImageF median_filter(const ImageF& disparity);

}  // namespace stereo::reference
