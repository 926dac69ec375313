// Step 6 of Algorithm 1: every row's spectrum times every wavelet G_k, in one kernel over all
// wavelets (Sec. 3.1: "each line of the spectrum is multiplied by the same matrix of filter's
// coefficients"). A thread owns one bin of one row and loops over k, so the spectrum is read
// once and each of the N outputs is written once, coalesced along the row. Bins above W/2 (the
// negative frequencies) are written as zero: the inverse transform runs in place and has
// overwritten them with the previous run's responses.

#include <string>

#include "methods/symstereo/cuda/stages.h"

namespace stereo::cu::symstereo {
namespace {

constexpr int THREADS = 256;

__global__ void filter_kernel(const cufftComplex* __restrict__ spectrum, const float* __restrict__ bank, int width,
                              int height, int wavelets, cufftComplex* __restrict__ responses) {
  const int j = int(blockIdx.x) * THREADS + int(threadIdx.x);
  const int y = int(blockIdx.y);
  if (j >= width) return;
  const int bins = width / 2 + 1;
  const bool positive = j < bins;
  const cufftComplex v = positive ? spectrum[std::size_t(y) * std::size_t(bins) + std::size_t(j)] : cufftComplex{0, 0};
  for (int k = 0; k < wavelets; ++k) {
    const float g = positive ? bank[std::size_t(k) * std::size_t(bins) + std::size_t(j)] : 0.0f;
    responses[(std::size_t(k) * std::size_t(height) + std::size_t(y)) * std::size_t(width) + std::size_t(j)] =
        cufftComplex{v.x * g, v.y * g};
  }
}

}  // namespace

void filter(const cufftComplex* spectrum, const float* bank, int width, int height, int wavelets,
            cufftComplex* responses, cudaStream_t stream) {
  require(width >= 2 && height >= 1 && wavelets >= 1 && wavelets <= MAX_WAVELETS, [&] {
    return "symstereo/cuda: filter: bad sizes " + std::to_string(width) + " x " + std::to_string(height) + ", " +
           std::to_string(wavelets) + " wavelets";
  });
  require(height <= 65535,
          [&] { return "symstereo/cuda: filter: height " + std::to_string(height) + " exceeds 65535"; });
  const dim3 grid(unsigned(div_up(width, THREADS)), unsigned(height));
  filter_kernel<<<grid, THREADS, 0, stream>>>(spectrum, bank, width, height, wavelets, responses);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::symstereo
