// C+CA_x (Table II): eq. 3-5 fused with eq. 7 for both views. The paper computes each cost row
// C(., y, d) once into shared memory and reads the right view's aggregation from the same row
// shifted by d (eq. 6); we do the same, with two changes for a GPU with far more threads than
// the GTX 780 Ti: a block handles one row and 32 levels (one level per lane), so a warp's 32
// lanes walk 32 levels in lockstep, and the variable-length arm sums become two reads of a
// prefix sum instead of up to 2 W_x + 1 additions.
//
// Precision: costs are the reference's integers (<= 2 * COST_SCALE = 256). The row prefix is
// kept in uint16 modulo 2^16: a window sum is at most (2 * 127 + 1) * 256 = 65280 < 2^16, so
// the modular difference of two prefixes is the exact sum (unsigned wrap-around is defined).
// That halves the shared memory of the prefix (64 B per column for 32 levels).
//
// Shared memory per block (W = scaled width): grey and mini-census rows of both views 4 W,
// both views' arms 4 W, the tables 264, the prefix 64 (W + 1), segment totals 512 bytes:
// about 50 KB at W = 718 (four blocks per H100 SM).

#include <string>

#include "cuda/crossrt/stages.h"

namespace stereo::cu::crossrt {
namespace {

constexpr int WARPS = 8;
constexpr int THREADS = 32 * WARPS;
constexpr int LEVELS_PER_BLOCK = 32;
constexpr int COST_OUTSIDE = reference::crossrt::COST_OUTSIDE;

std::size_t shared_bytes(int width) {
  return std::size_t(8) * std::size_t(width) + sizeof(DeviceTables) +
         std::size_t(width + 1) * LEVELS_PER_BLOCK * sizeof(std::uint16_t) +
         std::size_t(WARPS) * LEVELS_PER_BLOCK * sizeof(std::uint16_t);
}

// reference mini_census: bit i when neighbour i of the hexagon is darker than the centre.
__device__ std::uint8_t mini_census_at(const std::uint8_t* __restrict__ grey, int width, int height, int x, int y) {
  constexpr int DX[6] = {-1, 1, -2, 2, -1, 1};
  constexpr int DY[6] = {-2, -2, 0, 0, 2, 2};
  const int centre = grey[std::size_t(y) * std::size_t(width) + std::size_t(x)];
  int bits = 0;
#pragma unroll
  for (int i = 0; i < 6; ++i) {
    const int qx = min(max(x + DX[i], 0), width - 1);
    const int qy = min(max(y + DY[i], 0), height - 1);
    if (int(grey[std::size_t(qy) * std::size_t(width) + std::size_t(qx)]) < centre) bits |= 1 << i;
  }
  return std::uint8_t(bits);
}

__global__ void __launch_bounds__(THREADS)
    cost_aggregate_x_kernel(const std::uint8_t* __restrict__ left, const std::uint8_t* __restrict__ right, int width,
                            int height, const uchar2* __restrict__ arms_left, const uchar2* __restrict__ arms_right,
                            DeviceTables tables, int min_disparity, int levels, std::uint16_t* __restrict__ cax_left,
                            std::uint16_t* __restrict__ cax_right) {
  extern __shared__ __align__(16) unsigned char smem[];
  std::uint8_t* row_l = smem;
  std::uint8_t* row_r = row_l + width;
  std::uint8_t* census_l = row_r + width;
  std::uint8_t* census_r = census_l + width;
  uchar2* s_arms_l = reinterpret_cast<uchar2*>(census_r + width);
  uchar2* s_arms_r = s_arms_l + width;
  DeviceTables* s_tables = reinterpret_cast<DeviceTables*>(s_arms_r + width);
  std::uint16_t* prefix = reinterpret_cast<std::uint16_t*>(s_tables + 1);  // [(W + 1)][32]
  std::uint16_t* totals = prefix + std::size_t(width + 1) * LEVELS_PER_BLOCK;  // [WARPS][32]

  const int y = blockIdx.x;
  const int k0 = blockIdx.y * LEVELS_PER_BLOCK;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const std::size_t row = std::size_t(y) * std::size_t(width);

  for (int x = threadIdx.x; x < width; x += THREADS) {
    row_l[x] = left[row + x];
    row_r[x] = right[row + x];
    census_l[x] = mini_census_at(left, width, height, x, y);
    census_r[x] = mini_census_at(right, width, height, x, y);
    s_arms_l[x] = arms_left[row + x];
    s_arms_r[x] = arms_right[row + x];
  }
  for (int i = threadIdx.x; i < int(sizeof(DeviceTables)); i += THREADS)
    reinterpret_cast<unsigned char*>(s_tables)[i] = reinterpret_cast<const unsigned char*>(&tables)[i];
  __syncthreads();

  const int k = k0 + lane;
  const bool valid = k < levels;
  const int d = min_disparity + k;

  // Eq. 3-5 along the row, one level per lane: each warp scans one segment of x.
  const int segment = (width + WARPS - 1) / WARPS;
  const int x_begin = min(warp * segment, width);
  const int x_end = min(x_begin + segment, width);
  std::uint16_t running = 0;
  for (int x = x_begin; x < x_end; ++x) {
    int c = 0;
    if (valid) {
      const int xr = x - d;
      if (xr < 0 || xr >= width) {
        c = COST_OUTSIDE;
      } else {
        const int ad = abs(int(row_l[x]) - int(row_r[xr]));
        c = s_tables->ad[ad] + s_tables->mc[__popc(unsigned(census_l[x] ^ census_r[xr]))];
      }
    }
    running = std::uint16_t(running + c);
    prefix[std::size_t(x + 1) * LEVELS_PER_BLOCK + lane] = running;
  }
  totals[warp * LEVELS_PER_BLOCK + lane] = running;
  if (warp == 0) prefix[lane] = 0;
  __syncthreads();
  std::uint16_t offset = 0;
  for (int w = 0; w < warp; ++w) offset = std::uint16_t(offset + totals[w * LEVELS_PER_BLOCK + lane]);
  for (int x = x_begin; x < x_end; ++x) {
    std::uint16_t& p = prefix[std::size_t(x + 1) * LEVELS_PER_BLOCK + lane];
    p = std::uint16_t(p + offset);
  }
  __syncthreads();
  if (!valid) return;

  // Eq. 7 for both views from the one prefix; the right view's window is shifted by d (eq. 6)
  // and counts COST_OUTSIDE for each position past the image.
  for (int x = warp; x < width; x += WARPS) {
    const uchar2 al = s_arms_l[x];
    const std::uint16_t sum_l = std::uint16_t(prefix[std::size_t(x + al.y + 1) * LEVELS_PER_BLOCK + lane] -
                                              prefix[std::size_t(x - al.x) * LEVELS_PER_BLOCK + lane]);
    const uchar2 ar = s_arms_r[x];
    const int a = x - ar.x + d;
    const int b = x + ar.y + d;
    const int lo = min(max(a, 0), width);
    const int hi = min(max(b + 1, 0), width);
    const int inside = max(hi - lo, 0);
    std::uint16_t sum_r = std::uint16_t((b - a + 1 - inside) * COST_OUTSIDE);
    if (inside > 0)
      sum_r = std::uint16_t(sum_r + std::uint16_t(prefix[std::size_t(hi) * LEVELS_PER_BLOCK + lane] -
                                                  prefix[std::size_t(lo) * LEVELS_PER_BLOCK + lane]));
    const std::size_t out = (row + std::size_t(x)) * std::size_t(levels) + std::size_t(k);
    cax_left[out] = sum_l;
    cax_right[out] = sum_r;
  }
}

}  // namespace

int max_cost_width(int ordinal) {
  const std::size_t limit = shared_memory_optin_limit(ordinal);
  int width = 1;
  while (shared_bytes(width * 2) <= limit) width *= 2;
  for (int step = width / 2; step >= 1; step /= 2)
    if (shared_bytes(width + step) <= limit) width += step;
  return width;
}

void cost_aggregate_x(const DeviceImage<std::uint8_t>& left, const DeviceImage<std::uint8_t>& right,
                      const DeviceImage<uchar2>& arms_x_left, const DeviceImage<uchar2>& arms_x_right,
                      const DeviceTables& tables, DisparityRange range, DeviceVolume16& cax_left,
                      DeviceVolume16& cax_right, int ordinal, cudaStream_t stream) {
  const int w = left.width;
  const int h = left.height;
  const auto same = [&](int ow, int oh) { return ow == w && oh == h; };
  require(same(right.width, right.height) && same(arms_x_left.width, arms_x_left.height) &&
              same(arms_x_right.width, arms_x_right.height),
          "crossrt/cuda: cost_aggregate_x needs images and arms of one size");
  require(range.count >= 1, "crossrt/cuda: cost_aggregate_x needs a non-empty range");
  for (const DeviceVolume16* v : {&cax_left, &cax_right})
    require(same(v->width, v->height) && v->range.min == range.min && v->range.count == range.count,
            "crossrt/cuda: cost_aggregate_x outputs must have the images' size and the range");
  const int max_width = max_cost_width(ordinal);
  require(w <= max_width, "crossrt/cuda: the scaled image is " + std::to_string(w) + " wide; this GPU's shared memory holds rows of at most " +
                              std::to_string(max_width));
  const std::size_t bytes = shared_bytes(w);
  CUDA_CHECK(cudaFuncSetAttribute(cost_aggregate_x_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  const dim3 grid(unsigned(h), unsigned(div_up(range.count, LEVELS_PER_BLOCK)));
  cost_aggregate_x_kernel<<<grid, THREADS, bytes, stream>>>(left.get(), right.get(), w, h, arms_x_left.get(),
                                                             arms_x_right.get(), tables, range.min, range.count,
                                                             cax_left.get(), cax_right.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::crossrt
