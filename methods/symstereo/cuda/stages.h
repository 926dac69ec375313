#pragma once
/// \file methods/symstereo/cuda/stages.h
/// SymStereo (logN) on the GPU (Mota et al., ICASSP 2014, Sec. 3 and Algorithm 1), one file per
/// stage, named as in reference/symstereo.h so each test compares a stage with its CPU twin:
///
///   bank.cu     log_gabor_bank    N analytic log-Gabor filters over bins 0..W/2 (step 1)
///   flip.cu     flip_rows         raw 8-bit pixels -> float grey, mirrored for I' (step 4)
///   fft.cpp     row_fft, inverse  cuFFT: batched R2C over H rows; C2C over N x H rows (5, 7)
///   filter.cu   filter            every row's spectrum x every G_k, one kernel (step 6)
///   energy.cu   energy            eq. 3-7 into the DSI; the flip back (step 8) is its index
///   wta.cu      wta               arg max over the levels
///   symstereo_cuda.cpp            the matcher ("symstereo", "cuda")
///
/// Layouts (float2 = cufftComplex = (re, im)); rows are Wp = symstereo_padded_length(W) long:
///   spectrum   H rows of Wp/2 + 1 bins (cuFFT R2C output)
///   responses  N x H rows of Wp complex, row k * H + y (the filter's output, transformed in place);
///              the matcher runs both views as one image of 2H rows (left rows, then the
///              mirrored right rows), so each FFT and the filter are one launch for both
///   DSI        float, index (level * H + y) * W + x, as reference::Dsi and `run --dsi`
/// The right view's responses stay mirrored on the device: energy() reads them at W-1-(x-d),
/// which is Algorithm 1's "flip back" without a pass over N complex images.
/// All launches go on `stream`; every stage checks its sizes and its launch.

#include <cuda_runtime.h>
#include <cufft.h>

#include <cstdint>

#include "cuda/common.h"
#include "cuda/cufft_plan.h"
#include "core/disparity_range.h"

namespace stereo {
struct SymStereoParams;
}

namespace stereo::cu::symstereo {

/// Largest wavelet count a run accepts (the host-side check of SymStereoParams allows 256).
constexpr int MAX_WAVELETS = 256;

/// Step 1: bank[k * (W/2 + 1) + j] = G_k(j / W) / W, computed in double and stored as float,
/// the formula of reference::log_gabor_bank. `bank` holds params.wavelets * (W/2 + 1) floats.
void log_gabor_bank(int width, const SymStereoParams& params, float* bank, cudaStream_t stream);

/// Step 4, the grey conversion and the row extension in one pass: raw interleaved pixels (1, 3
/// or 4 channels, W x H) -> float grey (integer BT.601 luma for colour, as
/// reference::grey_float), mirrored left-right when `mirror`, each row extended to
/// `padded_width` as reference::pad_rows does. `grey` holds padded_width x H floats.
void flip_rows(const std::uint8_t* raw, int width, int height, int channels, bool mirror, int padded_width,
               float* grey, cudaStream_t stream);

/// Step 5: R2C FFT of every row of `grey` (H rows of W) into `spectrum` (H rows of W/2 + 1).
void row_fft(const CufftPlan& plan, const float* grey, cufftComplex* spectrum);

/// Step 6: responses[(k H + y) W + j] = spectrum[y (W/2+1) + j] * bank[k (W/2+1) + j] for
/// j <= W/2, 0 above (negative frequencies).
void filter(const cufftComplex* spectrum, const float* bank, int width, int height, int wavelets,
            cufftComplex* responses, cudaStream_t stream);

/// Step 7: backward C2C FFT of every row of `responses`, in place (s_k + i a_k, eq. 2).
void inverse(const CufftPlan& plan, cufftComplex* responses);

/// The two views' filtered responses as energy() reads them. Wavelet w's image of a view starts
/// w * wavelet_pitch elements after its first: H x W for one view's responses alone, 2 H x W in
/// the matcher, whose two views share one buffer (wavelet-major, then view, then row). Rows are
/// `row_pitch` >= W values apart (the padded FFT length); only x < W is read.
struct DeviceResponses {
  const cufftComplex* left = nullptr;
  const cufftComplex* right_mirrored = nullptr;  ///< read at W-1-q for position q (the flip back)
  int width = 0;
  int height = 0;
  int row_pitch = 0;
  std::size_t wavelet_pitch = 0;
  int wavelets = 0;
};

/// Eq. 3-7: dsi[(k H + y) W + x] = E_A x E_S of left(x) and right(x - d), d = range.min + k,
/// where right(q) is `right_mirrored` at W-1-q (the flip back); SYMSTEREO_OUT_OF_IMAGE where
/// q is outside the row. Sums over the N wavelets in fp32.
void energy(const DeviceResponses& responses, DisparityRange range, float* dsi, cudaStream_t stream);

/// Disparity of every pixel: range.min + the level of the largest energy (the first on ties).
void wta(const float* dsi, int width, int height, DisparityRange range, float* disparity, cudaStream_t stream);

}  // namespace stereo::cu::symstereo
