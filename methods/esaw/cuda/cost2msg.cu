// cost2msg: eq. 17-21, the O(L) min-sum with V(x) = min(c|x|, eta), one thread per pixel over
// all disparity planes. The forward values are rounded to half (as the reference rounds them,
// since the fused aggr_H+/aggr_V+ path stores them), so shared memory holds them as halves,
// [k][thread]: a warp reads 64 consecutive bytes, no bank conflict. The backward pass reads them
// back in fp32 arithmetic; the volume is read once and written once. 64 threads a block: 256
// levels take 32 KB of shared memory.

#include <cuda_fp16.h>

#include <cstdint>

#include "methods/esaw/cuda/aggr_pair.cuh"
#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {
namespace {

constexpr int THREADS = 64;

__global__ void cost2msg_kernel(const __half* in, std::size_t pixels, int levels, float c, float eta, __half* out) {
  extern __shared__ __half m[];  // m[k * THREADS + t]
  const int t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * THREADS + t;
  if (i >= pixels) return;  // no barrier below: each thread owns its column of m
  float lowest = __half2float(in[i]);
  m[t] = in[i];
  for (int k = 1; k < levels; ++k) {  // eq. 17-19, with the minimum of eq. 18 on the way
    const float v = __half2float(in[std::size_t(k) * pixels + i]);
    lowest = fminf(lowest, v);
    // Rounded as the reference rounds it (the fused path stores these values in fp16).
    m[k * THREADS + t] = __float2half_rn(fminf(__fadd_rn(__half2float(m[(k - 1) * THREADS + t]), c), v));
  }
  const float h = __fadd_rn(lowest, eta);
  float next = fminf(__half2float(m[(levels - 1) * THREADS + t]), h);  // eq. 20
  out[std::size_t(levels - 1) * pixels + i] = __float2half_rn(next);
  for (int k = levels - 2; k >= 0; --k) {  // eq. 21
    next = fminf(fminf(__fadd_rn(next, c), __half2float(m[k * THREADS + t])), h);
    out[std::size_t(k) * pixels + i] = __float2half_rn(next);
  }
}

// init_cost + cost2msg: ESMP's first cost2msg with eq. 3 computed on the fly from the grey rows
// (the match column clamped as init_cost.cu clamps it, each cost rounded to half as stored), so
// C0 is never written or read: the kernel writes 2 B a cell and reads a byte from L1. Same
// forward and backward passes as cost2msg_kernel; the previous forward value is kept in a
// register (it equals the half just stored).
struct InitCost2MsgShape {
  int width;
  std::size_t pixels;
  int first_disparity;
  int levels;
  float lambda;
  float tau;
  float c;
  float eta;
};

__global__ void init_cost2msg_kernel(const std::uint8_t* __restrict__ grey_left,
                                     const std::uint8_t* __restrict__ grey_right, InitCost2MsgShape shape,
                                     __half* __restrict__ out) {
  const int width = shape.width, first_disparity = shape.first_disparity, levels = shape.levels;
  const std::size_t pixels = shape.pixels;
  const float lambda = shape.lambda, tau = shape.tau, c = shape.c, eta = shape.eta;
  extern __shared__ __half m[];  // m[k * THREADS + t]
  const int t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * THREADS + t;
  if (i >= pixels) return;
  const int x = int(i % std::size_t(width));
  const int left = grey_left[i];
  const std::uint8_t* right = grey_right + (i - std::size_t(x));
  const auto cost = [&](int k) {
    const int xr = min(max(x - (first_disparity + k), 0), width - 1);
    return __float2half_rn(__fmul_rn(lambda, fminf(float(abs(left - int(right[xr]))), tau)));
  };
  m[t] = cost(0);
  float lowest = __half2float(m[t]);
  float previous = lowest;
  for (int k = 1; k < levels; ++k) {  // eq. 17-19
    const float v = __half2float(cost(k));
    lowest = fminf(lowest, v);
    const __half f = __float2half_rn(fminf(__fadd_rn(previous, c), v));
    m[k * THREADS + t] = f;
    previous = __half2float(f);
  }
  const float h = __fadd_rn(lowest, eta);
  float next = fminf(previous, h);  // eq. 20
  out[std::size_t(levels - 1) * pixels + i] = __float2half_rn(next);
  for (int k = levels - 2; k >= 0; --k) {  // eq. 21
    next = fminf(fminf(__fadd_rn(next, c), __half2float(m[k * THREADS + t])), h);
    out[std::size_t(k) * pixels + i] = __float2half_rn(next);
  }
}

// The same two pixels a thread, (x, x + 1) with x even, where the width is even and the volume
// has < 2^32 cells: one 32-bit store a pair a level (aggr_pair.cuh says why), the forward values
// as half2 in shared memory. Eq. 3's cost depends on |I_L - I_R| alone, so a block tabulates the
// 256 possible costs once (the same expression, rounded as stored) and a cell costs a table read.
// Pixel x + 1 at level k matches the right pixel x matched at level k - 1 (the same column, so
// the same clamp), so a pair loads one right byte a level, INIT_GROUP of them before the first
// is used (L1 latency). Eq. 18's minimum and eq. 19's min with the cost are exact in half (the
// cost is a half; detail::forward_step says why, and why a c that is a half is added in half2).
constexpr int INIT_GROUP = 16;

template <bool HALF_C>
__global__ void __launch_bounds__(THREADS)
    init_cost2msg_pair_kernel(const std::uint8_t* __restrict__ grey_left, const std::uint8_t* __restrict__ grey_right,
                              InitCost2MsgShape shape, __half* __restrict__ out) {
  extern __shared__ __half2 held[];  // held[k * THREADS + t]: the pair's forward values at level k
  __shared__ __half cost_of[256];
  const int t = int(threadIdx.x);
  for (int d = t; d < 256; d += THREADS)
    cost_of[d] = __float2half_rn(__fmul_rn(shape.lambda, fminf(float(d), shape.tau)));
  __syncthreads();
  const int width = shape.width, levels = shape.levels;
  const float c = shape.c, eta = shape.eta;
  const __half2 c2 = __float2half2_rn(c);
  const int x = 2 * (int(blockIdx.x) * THREADS + t);
  if (x >= width) return;  // no barrier below: each thread owns its column of held
  const unsigned i = unsigned(blockIdx.y) * unsigned(width) + unsigned(x);
  const unsigned plane = unsigned(shape.pixels);
  const int left0 = grey_left[i], left1 = grey_left[i + 1];
  const std::uint8_t* const right = grey_right + (i - unsigned(x));
  const int match0 = x - shape.first_disparity;  // x's right column at level 0, unclamped
  const auto right_at = [&](int xr) { return int(__ldg(right + min(max(xr, 0), width - 1))); };
  const auto cost_pair = [&](int r0, int r1) {
    return __halves2half2(cost_of[abs(left0 - r0)], cost_of[abs(left1 - r1)]);
  };
  __half* const to = detail::thread_base(out + i);
  int r_behind = right_at(match0);  // x's column at the level before: x + 1's at this one
  __half2 f = cost_pair(r_behind, right_at(match0 + 1));
  __half2 lowest = f;
  held[t] = f;
  for (int k0 = 1; k0 < levels; k0 += INIT_GROUP) {
    int r[INIT_GROUP];
#pragma unroll
    for (int u = 0; u < INIT_GROUP; ++u) r[u] = right_at(match0 - (k0 + u));  // past the top: a valid clamp
#pragma unroll
    for (int u = 0; u < INIT_GROUP; ++u) {  // eq. 17-19
      const int k = k0 + u;
      if (k >= levels) break;
      const __half2 v = cost_pair(r[u], r_behind);
      r_behind = r[u];
      lowest = __hmin2(lowest, v);
      f = detail::forward_step<HALF_C>(f, c, c2, v);
      held[k * THREADS + t] = f;
    }
  }
  const float h[2] = {__fadd_rn(__low2float(lowest), eta), __fadd_rn(__high2float(lowest), eta)};
  float next[2] = {fminf(__low2float(f), h[0]), fminf(__high2float(f), h[1])};  // eq. 20
  detail::store_pair(to, unsigned(levels - 1) * plane, __floats2half2_rn(next[0], next[1]));
#pragma unroll 8
  for (int k = levels - 2; k >= 0; --k) {  // eq. 21
    const __half2 fk = held[k * THREADS + t];
    next[0] = fminf(fminf(__fadd_rn(next[0], c), __low2float(fk)), h[0]);
    next[1] = fminf(fminf(__fadd_rn(next[1], c), __high2float(fk)), h[1]);
    detail::store_pair(to, unsigned(k) * plane, __floats2half2_rn(next[0], next[1]));
  }
}

// cost2msg-: eq. 20-21 over stored forward values; the running value stays fp32. A pure stream
// (2 B read, 2 B written per cell) whose thread reads one 2-byte value per level: the levels are
// loaded BACKWARD_IN_FLIGHT at a time before the recurrence uses them, so a thread keeps that many
// loads in flight (Little's law, NOTES.md), and __restrict__ lets them pass the earlier stores.
constexpr int BACKWARD_IN_FLIGHT = 8;

__global__ void cost2msg_backward_kernel(const __half* __restrict__ forward, const float* __restrict__ truncation,
                                         std::size_t pixels, int levels, float c, __half* __restrict__ out) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const float h = truncation[i];
  float next = 0.0f;
  for (int top = levels - 1; top >= 0; top -= BACKWARD_IN_FLIGHT) {
    float f[BACKWARD_IN_FLIGHT];
#pragma unroll
    for (int u = 0; u < BACKWARD_IN_FLIGHT; ++u) {
      const int k = top - u;
      f[u] = k >= 0 ? __half2float(forward[std::size_t(k) * pixels + i]) : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < BACKWARD_IN_FLIGHT; ++u) {
      const int k = top - u;
      if (k < 0) break;
      // eq. 20 at the top level, eq. 21 below it
      next = k == levels - 1 ? fminf(f[u], h) : fminf(fminf(__fadd_rn(next, c), f[u]), h);
      out[std::size_t(k) * pixels + i] = __float2half_rn(next);
    }
  }
}

// The same two pixels a thread where the pixel count is even and the volumes 4-byte aligned (each
// level's pair is then aligned), the offsets 32-bit where the volume has < 2^32 cells: one 32-bit
// load and store a pair a level (aggr_pair.cuh says why).
__global__ void cost2msg_backward_pair_kernel(const __half* __restrict__ forward, const float* __restrict__ truncation,
                                              unsigned pixels, int levels, float c, __half* __restrict__ out) {
  const unsigned i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= pixels) return;
  const float h[2] = {truncation[i], truncation[i + 1]};
  const __half* const from = detail::thread_base(forward + i);
  __half* const to = detail::thread_base(out + i);
  float next[2] = {0.0f, 0.0f};
  for (int top = levels - 1; top >= 0; top -= BACKWARD_IN_FLIGHT) {
    __half2 f[BACKWARD_IN_FLIGHT];
#pragma unroll
    for (int u = 0; u < BACKWARD_IN_FLIGHT; ++u) {
      const int k = top - u;
      f[u] = k >= 0 ? detail::load_pair(from, unsigned(k) * pixels) : __half2{};
    }
#pragma unroll
    for (int u = 0; u < BACKWARD_IN_FLIGHT; ++u) {
      const int k = top - u;
      if (k < 0) break;
      const float fk[2] = {__low2float(f[u]), __high2float(f[u])};
#pragma unroll
      for (int j = 0; j < 2; ++j)  // eq. 20 at the top level, eq. 21 below it
        next[j] = k == levels - 1 ? fminf(fk[j], h[j]) : fminf(fminf(__fadd_rn(next[j], c), fk[j]), h[j]);
      detail::store_pair(to, unsigned(k) * pixels, __floats2half2_rn(next[0], next[1]));
    }
  }
}

constexpr int BACKWARD_THREADS = 256;

}  // namespace

void cost2msg_backward(const std::uint16_t* forward, const DeviceImage<float>& truncation, int levels, float c,
                       std::uint16_t* out, cudaStream_t stream) {
  require(forward != out, "esaw/cuda: cost2msg-: the output may not alias the input");
  require(levels >= 1, "esaw/cuda: cost2msg-: needs at least one level");
  const std::size_t pixels = truncation.count();
  if (detail::pairs_fit(pixels, pixels * std::size_t(levels), {forward, out})) {
    cost2msg_backward_pair_kernel<<<blocks_1d(pixels / 2, BACKWARD_THREADS, "esaw/cuda cost2msg-"), BACKWARD_THREADS,
                                    0, stream>>>(reinterpret_cast<const __half*>(forward), truncation.get(),
                                                 unsigned(pixels), levels, c, reinterpret_cast<__half*>(out));
    CUDA_CHECK_LAUNCH();
    return;
  }
  cost2msg_backward_kernel<<<blocks_1d(pixels, BACKWARD_THREADS, "esaw/cuda cost2msg-"), BACKWARD_THREADS, 0,
                             stream>>>(reinterpret_cast<const __half*>(forward), truncation.get(), pixels, levels, c,
                                       reinterpret_cast<__half*>(out));
  CUDA_CHECK_LAUNCH();
}

void cost2msg(const std::uint16_t* in, int width, int height, int levels, float c, float eta, std::uint16_t* out,
              cudaStream_t stream) {
  require(in != out, "esaw/cuda: cost2msg: the output may not alias the input");
  require(levels >= 1, "esaw/cuda: cost2msg: needs at least one level");
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::size_t smem = std::size_t(levels) * THREADS * sizeof(__half);
  const std::size_t limit = shared_memory_optin_limit(device);
  require(smem <= limit, [&] {
    return "esaw/cuda: cost2msg: " + std::to_string(levels) + " levels need " + std::to_string(smem) +
           " B of shared memory per block, the device allows " + std::to_string(limit);
  });
  if (smem > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(cost2msg_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const std::size_t pixels = std::size_t(width) * std::size_t(height);
  cost2msg_kernel<<<blocks_1d(pixels, THREADS, "esaw/cuda cost2msg"), THREADS, smem, stream>>>(
      reinterpret_cast<const __half*>(in), pixels, levels, c, eta, reinterpret_cast<__half*>(out));
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw

namespace stereo::cu::esaw {

void init_cost2msg(const CostSlab& cost, float c, float eta, std::uint16_t* out, cudaStream_t stream, bool pairs) {
  const DeviceImage<std::uint8_t>& grey_left = cost.grey_left;
  const DeviceImage<std::uint8_t>& grey_right = cost.grey_right;
  const int levels = cost.planes;
  require(grey_left.width == grey_right.width && grey_left.height == grey_right.height,
          "esaw/cuda: init_cost+cost2msg: left and right grey images differ in size");
  require(levels >= 1, "esaw/cuda: init_cost+cost2msg: needs at least one level");
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::size_t limit = shared_memory_optin_limit(device);
  const std::size_t pixels = grey_left.count();
  const InitCost2MsgShape shape{grey_left.width, pixels, cost.first_disparity, levels, cost.lambda, cost.tau, c, eta};
  const std::size_t pair_smem = std::size_t(levels) * THREADS * sizeof(__half2);
  // The pairs' grid has a row of blocks a row (at most 65535).
  if (pairs && pair_smem + 256 * sizeof(__half) <= limit && grey_left.height <= 65535 &&
      detail::pairs_fit(unsigned(grey_left.width), detail::volume_cells(grey_left.width, grey_left.height, levels),
                        {out})) {
    const auto kernel = detail::c_is_half(c) ? init_cost2msg_pair_kernel<true> : init_cost2msg_pair_kernel<false>;
    if (pair_smem + 256 * sizeof(__half) > 48 * 1024)
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(pair_smem)));
    const dim3 grid(unsigned(div_up(grey_left.width / 2, THREADS)), unsigned(grey_left.height));
    kernel<<<grid, THREADS, pair_smem, stream>>>(grey_left.get(), grey_right.get(), shape,
                                                 reinterpret_cast<__half*>(out));
    CUDA_CHECK_LAUNCH();
    return;
  }
  const std::size_t smem = std::size_t(levels) * THREADS * sizeof(__half);
  require(smem <= limit, [&] {
    return "esaw/cuda: init_cost+cost2msg: " + std::to_string(levels) + " levels need " + std::to_string(smem) +
           " B of shared memory per block, the device allows " + std::to_string(limit);
  });
  if (smem > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(init_cost2msg_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  init_cost2msg_kernel<<<blocks_1d(pixels, THREADS, "esaw/cuda init_cost+cost2msg"), THREADS, smem, stream>>>(
      grey_left.get(), grey_right.get(), shape, reinterpret_cast<__half*>(out));
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
