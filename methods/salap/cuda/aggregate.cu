// Stage 2 (unfused path): the one-sided truncated SA-LAP filters of eq. 5-6. Eq. 1 makes
// the kernel separable, and eq. 2 splits it into four (W+1)x(W+1) quadrants whose 1-D
// factors are the one-sided sums below. Direct sums (W+1 taps, one thread per pixel) with
// the weights pre-divided by F1 in double: this path exists to be obviously right, the
// fused kernel (fused.cu) is the fast one.

#include "methods/salap/cuda/stages.h"

#include <vector>

namespace stereo::cu::salap {
namespace {

constexpr int FILTER_BLOCK_X = 32;
constexpr int FILTER_BLOCK_Y = 8;
constexpr int MAX_TAPS = 65;  // W <= 64 (SalapParams::validate)

struct Taps {
  float w[MAX_TAPS];  // exp(-k / gamma) / F1, k = 0..W
  int count;          // W + 1
};

// The model's weights (methods/salap/model.h) divided by their sum F1, in double.
Taps normalised_taps(const SalapParams& params) {
  const std::vector<double> w = stereo::salap::kernel_weights(params);
  Taps taps{};
  taps.count = int(w.size());
  double f1 = 0.0;
  for (const double v : w) f1 += v;
  for (int k = 0; k < taps.count; ++k) taps.w[k] = float(w[std::size_t(k)] / f1);
  return taps;
}

// step_x/step_y = -1/+1 select the side; clamp-to-edge on every tap (at_clamped).
__global__ void filter_kernel(const float* __restrict__ in, int width, int height, int step_x, int step_y, Taps taps,
                              float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  for (int k = taps.count - 1; k >= 0; --k) {  // far taps first: the small terms add up before the big ones
    const int xx = min(max(x + step_x * k, 0), width - 1);
    const int yy = min(max(y + step_y * k, 0), height - 1);
    sum = fmaf(taps.w[k], in[static_cast<std::size_t>(yy) * width + xx], sum);
  }
  out[static_cast<std::size_t>(y) * width + x] = sum;
}

void launch_filter(const DeviceImage<float>& cost, int step_x, int step_y, const SalapParams& params,
                   DeviceImage<float>& out, cudaStream_t stream) {
  require(out.width == cost.width && out.height == cost.height, "salap/cuda filter: output size differs");
  require(out.get() != cost.get(), "salap/cuda filter: output must not alias the input");
  params.validate("salap/cuda");
  const dim3 block(FILTER_BLOCK_X, FILTER_BLOCK_Y);
  const dim3 grid(unsigned(div_up(cost.width, FILTER_BLOCK_X)), unsigned(div_up(cost.height, FILTER_BLOCK_Y)));
  filter_kernel<<<grid, block, 0, stream>>>(cost.get(), cost.width, cost.height, step_x, step_y,
                                            normalised_taps(params), out.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void filter_horizontal(const DeviceImage<float>& cost, Side side, const SalapParams& params, DeviceImage<float>& out,
                       cudaStream_t stream) {
  require(side == Side::left || side == Side::right, "salap/cuda filter_horizontal: side must be left or right");
  launch_filter(cost, side == Side::left ? -1 : 1, 0, params, out, stream);
}

void filter_vertical(const DeviceImage<float>& cost, Side side, const SalapParams& params, DeviceImage<float>& out,
                     cudaStream_t stream) {
  require(side == Side::up || side == Side::down, "salap/cuda filter_vertical: side must be up or down");
  launch_filter(cost, 0, side == Side::up ? -1 : 1, params, out, stream);
}

}  // namespace stereo::cu::salap
