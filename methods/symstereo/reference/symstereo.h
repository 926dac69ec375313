#pragma once
/// \file methods/symstereo/reference/symstereo.h
/// SymStereo (logN) on the CPU, written for clarity: one function per stage with the name of
/// the CUDA stage in methods/symstereo/cuda/stages.h. Mota et al., ICASSP 2014, Sec. 2.2 and
/// Algorithm 1; FFTs by FFTW in single precision (fftwf), the energies in double.
///
/// Pipeline (W x H images, N wavelets, the DSI over `range`):
///   G        = log_gabor_bank(Wp, params)          N analytic filters over the Wp/2+1 bins 0..Wp/2
///   g, g'    = grey of I; flip_rows(grey of I')    I' mirrored left-right (Algorithm 1, step 4)
///   pad_rows(g), pad_rows(g')                      to Wp = symstereo_padded_length (not in the paper)
///   F, F'    = row_fft(g), row_fft(g')             real-to-complex, bins 0..Wp/2 of every row
///   P_k      = filter(F, G)                        F x G_k, full length W, zero at negative f
///   s_k+ia_k = inverse(P_k)                        eq. 2 (the 1/W of the inverse is in G)
///   s'_k+ia'_k: the same for the mirrored row, then flip_rows back (step 8)
///   E        = energy(R, R', range)                eq. 3-7, DSI: level fastest-but-one layout
///   D        = wta(E)                              arg max over the levels
///
/// The filters: log-Gabor g(f) = exp(-ln(f/f0)^2 / (2 ln(sigma/f0)^2)), f0 = 1/lambda_k,
/// lambda_k = lambda_1 m^(k-1) (eq. 1). Analytic (the paper's "analytical filters"): zero at
/// f = 0 and at negative frequencies, 2 g(f) at 0 < f < 1/2 and g(1/2) at Nyquist (W even),
/// so that the real part of the response is the row filtered by the even filter g(|f|) and
/// the imaginary part its Hilbert transform (the odd filter): s_k and a_k.

#include <complex>
#include <memory>
#include <vector>

#include "core/disparity_range.h"
#include "core/image.h"

namespace stereo {
struct SymStereoParams;  // methods/symstereo/params.h
}

namespace stereo::reference {

using Complex = std::complex<float>;

/// N real filters over the non-negative frequency bins 0..W/2 (bins = W/2 + 1), the 1/W of
/// the inverse FFT included: at(k, j) = G_k(j / W) / W.
struct FilterBank {
  int width = 0;     ///< row length W the bank is made for
  int wavelets = 0;  ///< N
  int bins = 0;      ///< W/2 + 1
  std::vector<float> data;  ///< index k * bins + j
  [[nodiscard]] float at(int k, int j) const {
    return data[static_cast<std::size_t>(k) * static_cast<std::size_t>(bins) + static_cast<std::size_t>(j)];
  }
  /// lambda_k in pixels (k from 0).
  std::vector<double> wavelengths;
};

/// Complex rows: `count` rows of `length` values (spectra or filtered responses).
struct ComplexRows {
  int length = 0;
  int count = 0;
  std::vector<Complex> data;  ///< index row * length + i
  ComplexRows() = default;
  ComplexRows(int l, int c)
      : length(l), count(c), data(static_cast<std::size_t>(l) * static_cast<std::size_t>(c)) {}
  Complex* row(int r) { return data.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(length); }
  [[nodiscard]] const Complex* row(int r) const {
    return data.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(length);
  }
};

/// The filtered responses of one view: N x H rows of W complex values, row k * H + y holds
/// s_k + i a_k of image row y (the layout of cuFFT's batched inverse).
using Responses = ComplexRows;

/// A joint-energy DSI: index (k * height + y) * width + x, level k = disparity range.min + k
/// (the layout `stereo run --dsi` writes). Higher is a better match.
struct Dsi {
  int width = 0;
  int height = 0;
  DisparityRange range;
  std::vector<float> data;
  Dsi() = default;
  Dsi(int w, int h, DisparityRange r)
      : width(w), height(h), range(r),
        data(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(r.count)) {}
  [[nodiscard]] std::size_t index(int x, int y, int k) const {
    return (static_cast<std::size_t>(k) * static_cast<std::size_t>(height) + static_cast<std::size_t>(y)) *
               static_cast<std::size_t>(width) +
           static_cast<std::size_t>(x);
  }
  [[nodiscard]] float at(int x, int y, int k) const { return data[index(x, y, k)]; }
};

/// FFTW single-precision plans for rows of one width, made once and reused for every image of
/// that size (planning is the slow part of FFTW; execution on the owned buffers is cheap).
/// Owns its buffers (fftwf_malloc, aligned for SIMD). Move-only. Throws stereo::Error when
/// FFTW cannot make a plan.
class FftwPlan {
 public:
  /// Plans a real-to-complex forward transform and a complex-to-complex backward transform,
  /// each over `rows` rows of `width` samples.
  FftwPlan(int width, int rows);
  ~FftwPlan();
  FftwPlan(FftwPlan&&) noexcept;
  FftwPlan& operator=(FftwPlan&&) noexcept;
  FftwPlan(const FftwPlan&) = delete;
  FftwPlan& operator=(const FftwPlan&) = delete;

  [[nodiscard]] int width() const;
  [[nodiscard]] int rows() const;
  /// Input of forward(): rows x width real samples.
  float* real();
  /// Output of forward(): rows x (width/2 + 1) bins.
  Complex* half_spectrum();
  /// In and out of inverse(): rows x width complex values, transformed in place.
  Complex* full();
  void forward();
  /// Unnormalised backward transform (FFTW's convention: no 1/W).
  void inverse();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// N analytic log-Gabor filters over the bins 0..width/2 (see the file comment).
FilterBank log_gabor_bank(int width, const SymStereoParams& params);

/// Grey levels as float (the integer BT.601 luma of reference/grey.h's grey_image).
ImageF grey_float(const ImageU8& image);

/// Mirrors every row left-right: out(x, y) = in(W - 1 - x, y).
ImageF flip_rows(const ImageF& image);
/// The same on responses (Algorithm 1, step 8): the first `width` values of every row (the
/// image; any padding after them stays where it is) mirrored.
Responses flip_rows(const Responses& responses, int width);

/// Rows extended to `padded_width` (symstereo_padded_length, W..2W) so that the circular FFT
/// sees a continuous signal: the first half of the extension mirrors the row's end (W-1, W-2,
/// ...), the second half its start (..., 1, 0), which the circular transform joins to x = 0.
/// At 2W the extension is the whole mirrored row and the circular row the row's exact even
/// extension; shorter ones keep their one jump (mid-extension) a filter's reach from the row.
ImageF pad_rows(const ImageF& image, int padded_width);

/// Real-to-complex FFT of every row: H rows of W/2 + 1 bins. `plan` must be made for
/// (image.width, image.height).
ComplexRows row_fft(const ImageF& image, FftwPlan& plan);

/// Spectrum x G_k for every k: N x H rows of W bins, row k * H + y; bins above W/2 (the
/// negative frequencies) are zero.
ComplexRows filter(const ComplexRows& spectrum, const FilterBank& bank);

/// Backward FFT of every row (eq. 2): s_k + i a_k. `plan` made for (W, H); run N times.
Responses inverse(const ComplexRows& filtered, FftwPlan& plan);

/// Eq. 3-7 for every pixel and level: E = E_A x E_S with the left view's responses at p and
/// the (flipped-back) right view's at p - d. A match outside the right image (x - d < 0 or
/// x - d >= W) gets SYMSTEREO_OUT_OF_IMAGE. Response rows may be longer than `width` (padded):
/// only their first `width` values are read.
Dsi energy(const Responses& left, const Responses& right_flipped_back, int width, int height, DisparityRange range);

/// Disparity of every pixel: range.min + the level of the largest energy (the first on ties).
/// The maximum because E_S and E_A are each 1 for a perfectly (anti-)symmetric signal, which a
/// true match makes of the left row and the mirrored right row (docs/methods/symstereo.md; test on Tsukuba).
ImageF wta(const Dsi& dsi);

/// All stages on one pair (what the cpu Matcher runs), for tests: the DSI of a grey or RGB pair.
Dsi symstereo_dsi(const ImageU8& left, const ImageU8& right, DisparityRange range, const SymStereoParams& params);

}  // namespace stereo::reference
