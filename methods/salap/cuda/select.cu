// Stage 3 (unfused path) and the last step of both paths: the variable centre-biased
// window of eq. 3-4 on normalised quadrant costs, a winner-takes-all over d, and the merge
// of the fused kernel's per-chunk winners.

#include "methods/salap/cuda/stages.h"

#include <limits>

namespace stereo::cu::salap {
namespace {

constexpr int SELECT_THREADS = 256;

// What window_kernel reads and writes: the four quadrant costs, eq. 3's constants, the map.
struct WindowArgs {
  const float* c0;
  const float* c1;
  const float* c2;
  const float* c3;
  std::size_t count;
  float alpha;
  float beta;
  bool nine;  // the nine-window variant; else the four windows of category c
  float* out;
};

// Eq. 3 with C_i already divided by tau*F (methods/salap/params.h), so no further /F here. The
// 4-window variant keeps only category c (Fig. 2 i-l).
__global__ void window_kernel(const WindowArgs a) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.count) return;
  const float* __restrict__ c0 = a.c0;
  const float* __restrict__ c1 = a.c1;
  const float* __restrict__ c2 = a.c2;
  const float* __restrict__ c3 = a.c3;
  float* __restrict__ out = a.out;
  const float alpha = a.alpha, beta = a.beta;
  const float q0 = c0[i], q1 = c1[i], q2 = c2[i], q3 = c3[i];
  const float cc = fminf(fminf(q0, q1), fminf(q2, q3)) + beta;
  if (!a.nine) {
    out[i] = cc;
    return;
  }
  const float ca = (q0 + q1 + q2 + q3) / 4.0f;
  const float cb = fminf(fminf(q0 + q1, q0 + q2), fminf(q2 + q3, q1 + q3)) / 2.0f + alpha;
  out[i] = fminf(ca, fminf(cb, cc));
}

__global__ void fill_kernel(float* __restrict__ out, std::size_t count, float value) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = value;
}

__global__ void wta_kernel(const float* __restrict__ cost, std::size_t count, int d, float* __restrict__ best,
                           float* __restrict__ disparity) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float c = cost[i];
  if (c < best[i]) {  // strict: an equal cost at a larger d never replaces the smaller d
    best[i] = c;
    disparity[i] = float(d);
  }
}

__global__ void merge_kernel(const std::uint64_t* __restrict__ keys, std::size_t count, int chunks, int d_min,
                             float* __restrict__ disparity) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  std::uint64_t best = keys[i];
  for (int c = 1; c < chunks; ++c) {
    const std::uint64_t k = keys[static_cast<std::size_t>(c) * count + i];
    best = k < best ? k : best;
  }
  disparity[i] = float(d_min + int(std::uint32_t(best & 0xFFFFFFFFu)));  // level index -> disparity
}

// The same merge, writing the winning level index itself (8 or 16 bits): the smallest exact
// form of the map, a quarter or half of the float map's bytes to read back.
template <class Index>
__global__ void merge_index_kernel(const std::uint64_t* __restrict__ keys, std::size_t plane, std::size_t first,
                                   std::size_t count, int chunks, Index* __restrict__ index) {
  const std::size_t n = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n >= count) return;
  const std::size_t i = first + n;
  std::uint64_t best = keys[i];
  for (int c = 1; c < chunks; ++c) {
    const std::uint64_t k = keys[static_cast<std::size_t>(c) * plane + i];
    best = k < best ? k : best;
  }
  index[i] = Index(std::uint32_t(best & 0xFFFFFFFFu));
}

// The stage path's float disparity (range.min + a whole level, exact in float) as the index.
template <class Index>
__global__ void to_index_kernel(const float* __restrict__ disparity, std::size_t count, int d_min,
                                Index* __restrict__ index) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) index[i] = Index(int(disparity[i]) - d_min);
}

void require_same_size(const DeviceImage<float>& a, const DeviceImage<float>& b, const char* what) {
  require(a.width == b.width && a.height == b.height,
          [&] { return std::string("salap/cuda ") + what + ": image sizes differ"; });
}

}  // namespace

void window_cost(const DeviceImage<float>& c0, const DeviceImage<float>& c1, const DeviceImage<float>& c2,
                 const DeviceImage<float>& c3, const SalapParams& params, DeviceImage<float>& out,
                 cudaStream_t stream) {
  require_same_size(c0, c1, "window_cost");
  require_same_size(c0, c2, "window_cost");
  require_same_size(c0, c3, "window_cost");
  require_same_size(c0, out, "window_cost");
  const std::size_t count = c0.count();
  const WindowArgs args{c0.get(), c1.get(), c2.get(), c3.get(), count, params.alpha, params.beta,
                        params.windows == "9", out.get()};
  window_kernel<<<blocks_1d(count, SELECT_THREADS, "salap/cuda window_cost"), SELECT_THREADS, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH();
}

void reset_wta(DeviceImage<float>& best_cost, cudaStream_t stream) {
  const std::size_t count = best_cost.count();
  fill_kernel<<<blocks_1d(count, SELECT_THREADS, "salap/cuda reset_wta"), SELECT_THREADS, 0, stream>>>(
      best_cost.get(), count, std::numeric_limits<float>::infinity());
  CUDA_CHECK_LAUNCH();
}

void wta_update(const DeviceImage<float>& cost, int d, DeviceImage<float>& best_cost, DeviceImage<float>& disparity,
                cudaStream_t stream) {
  require_same_size(cost, best_cost, "wta_update");
  require_same_size(cost, disparity, "wta_update");
  const std::size_t count = cost.count();
  wta_kernel<<<blocks_1d(count, SELECT_THREADS, "salap/cuda wta_update"), SELECT_THREADS, 0, stream>>>(
      cost.get(), count, d, best_cost.get(), disparity.get());
  CUDA_CHECK_LAUNCH();
}

void merge_chunks(const std::uint64_t* d_keys, int chunks, int d_min, DeviceImage<float>& disparity,
                  cudaStream_t stream) {
  require(chunks >= 1, "salap/cuda merge_chunks: no chunks");
  const std::size_t count = disparity.count();
  merge_kernel<<<blocks_1d(count, SELECT_THREADS, "salap/cuda merge_chunks"), SELECT_THREADS, 0, stream>>>(
      d_keys, count, chunks, d_min, disparity.get());
  CUDA_CHECK_LAUNCH();
}

template <class Index>
void merge_chunks_index(const std::uint64_t* d_keys, int chunks, std::size_t plane, std::size_t first,
                        std::size_t count, Index* d_index, cudaStream_t stream) {
  require(chunks >= 1, "salap/cuda merge_chunks_index: no chunks");
  require(first + count <= plane, "salap/cuda merge_chunks_index: pixels beyond the key plane");
  if (count == 0) return;
  merge_index_kernel<Index><<<blocks_1d(count, SELECT_THREADS, "salap/cuda merge_chunks_index"), SELECT_THREADS, 0,
                              stream>>>(d_keys, plane, first, count, chunks, d_index);
  CUDA_CHECK_LAUNCH();
}
template <class Index>
void merge_chunks_index(const std::uint64_t* d_keys, int chunks, std::size_t count, Index* d_index,
                        cudaStream_t stream) {
  merge_chunks_index(d_keys, chunks, count, 0, count, d_index, stream);
}
template void merge_chunks_index<std::uint8_t>(const std::uint64_t*, int, std::size_t, std::uint8_t*, cudaStream_t);
template void merge_chunks_index<std::uint16_t>(const std::uint64_t*, int, std::size_t, std::uint16_t*, cudaStream_t);
template void merge_chunks_index<std::uint8_t>(const std::uint64_t*, int, std::size_t, std::size_t, std::size_t,
                                               std::uint8_t*, cudaStream_t);
template void merge_chunks_index<std::uint16_t>(const std::uint64_t*, int, std::size_t, std::size_t, std::size_t,
                                                std::uint16_t*, cudaStream_t);

template <class Index>
void disparity_to_index(const DeviceImage<float>& disparity, int d_min, Index* d_index, cudaStream_t stream) {
  const std::size_t count = disparity.count();
  to_index_kernel<Index><<<blocks_1d(count, SELECT_THREADS, "salap/cuda disparity_to_index"), SELECT_THREADS, 0,
                           stream>>>(disparity.get(), count, d_min, d_index);
  CUDA_CHECK_LAUNCH();
}
template void disparity_to_index<std::uint8_t>(const DeviceImage<float>&, int, std::uint8_t*, cudaStream_t);
template void disparity_to_index<std::uint16_t>(const DeviceImage<float>&, int, std::uint16_t*, cudaStream_t);

StageBuffers::StageBuffers(int width, int height)
    : tad(width, height, "salap/cuda", "the TAD image"),
      cl(width, height, "salap/cuda", "C_L"),
      cr(width, height, "salap/cuda", "C_R"),
      c0(width, height, "salap/cuda", "C0"),
      c1(width, height, "salap/cuda", "C1"),
      c2(width, height, "salap/cuda", "C2"),
      c3(width, height, "salap/cuda", "C3"),
      cost(width, height, "salap/cuda", "the window cost"),
      best(width, height, "salap/cuda", "the WTA best cost") {}

void salap_stages(const DevicePair& pair, DisparityRange range, const SalapParams& params, StageBuffers& b,
                  DeviceImage<float>& disparity, cudaStream_t stream) {
  require(range.count >= 1 && range.min > -pair.width && range.max() < pair.width, [&] {
    return "salap/cuda: disparity range " + std::to_string(range.min) + ".." + std::to_string(range.max()) +
           " must lie in " + std::to_string(1 - pair.width) + ".." + std::to_string(pair.width - 1);
  });
  reset_wta(b.best, stream);
  for (int d = range.min; d <= range.max(); ++d) {
    tad_cost(pair, d, params, b.tad, stream);
    filter_horizontal(b.tad, Side::left, params, b.cl, stream);
    filter_horizontal(b.tad, Side::right, params, b.cr, stream);
    filter_vertical(b.cl, Side::down, params, b.c0, stream);
    filter_vertical(b.cl, Side::up, params, b.c1, stream);
    filter_vertical(b.cr, Side::down, params, b.c2, stream);
    filter_vertical(b.cr, Side::up, params, b.c3, stream);
    window_cost(b.c0, b.c1, b.c2, b.c3, params, b.cost, stream);
    wta_update(b.cost, d, b.best, disparity, stream);
  }
}

}  // namespace stereo::cu::salap
