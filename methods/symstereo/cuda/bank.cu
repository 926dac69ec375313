// Step 1 of Algorithm 1: the log-Gabor bank. The paper builds it on the CPU and copies it; it
// is N x (W/2 + 1) values, so computing it here costs one tiny launch and no copy. Double
// precision so that each value is the reference's double result rounded once to float.

#include <string>

#include "methods/symstereo/cuda/stages.h"
#include "methods/symstereo/params.h"

namespace stereo::cu::symstereo {
namespace {

constexpr int THREADS = 256;

__global__ void log_gabor_bank_kernel(int width, int wavelets, double min_wavelength, double ratio,
                                      double two_sigma2, float* bank) {
  const int bins = width / 2 + 1;
  const int j = int(blockIdx.x) * THREADS + int(threadIdx.x);
  const int k = int(blockIdx.y);
  if (j >= bins || k >= wavelets) return;
  // lambda_k = lambda_1 m^k by repeated multiplication, as the reference does, so both round
  // the same way.
  double lambda = min_wavelength;
  for (int i = 0; i < k; ++i) lambda *= ratio;
  float value = 0.0f;
  if (j > 0) {
    const double f = double(j) / double(width);
    const double l = log(f * lambda);  // ln(f / f0), f0 = 1 / lambda
    const double g = exp(-l * l / two_sigma2);
    const bool nyquist = (width % 2 == 0) && j == width / 2;  // its own negative: counted once
    value = float((nyquist ? 1.0 : 2.0) * g / double(width));
  }
  bank[std::size_t(k) * std::size_t(bins) + std::size_t(j)] = value;
}

}  // namespace

void log_gabor_bank(int width, const SymStereoParams& params, float* bank, cudaStream_t stream) {
  params.validate("symstereo/cuda");
  require(width >= 2,
          [&] { return "symstereo/cuda: log_gabor_bank needs a row of >= 2 pixels, got " + std::to_string(width); });
  const int bins = width / 2 + 1;
  const double log_sigma = std::log(double(params.sigma_on_f));
  const dim3 grid(unsigned(div_up(bins, THREADS)), unsigned(params.wavelets));
  log_gabor_bank_kernel<<<grid, THREADS, 0, stream>>>(width, params.wavelets, double(params.min_wavelength),
                                                      double(params.ratio), 2.0 * log_sigma * log_sigma, bank);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::symstereo
