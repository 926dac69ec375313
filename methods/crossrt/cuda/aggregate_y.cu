// CA (Table II): eq. 8 fused with the WTA of eq. 9. The paper transposes CA_x so that its
// threads walk down a column reading coalesced words; here CA_x is disparity fastest, so a
// warp reading 32 consecutive levels of one pixel is already one coalesced 64-byte access, and
// no transpose is needed. A block owns one column: for each group of 32 levels its eight warps
// load the column into a shared-memory prefix sum (eight segments of y, then one fix-up), read
// every pixel's window as two prefix entries, and keep a running (cost, level) minimum per
// pixel. CA itself is never stored; the block writes the column's disparities.
//
// Precision: CA_x <= 65280 and a window holds at most 2 * 127 + 1 of them, so uint32 prefix
// differences are exact; the argmin packs (cost << 32 | k) so the smallest level wins a tie,
// as the reference's strict < does. Shared memory: 128 (H + 1) + 8 H + 12 H + 2 H + 256 bytes,
// about 75 KB at H = 496 (three blocks per H100 SM).
//
// Sub-pixel (CrossRtParams::subpixel, our addition): besides the running minimum each pixel
// keeps the CA of the levels beside it. The level below the winner is in the same pass (a
// shuffle) or is the previous pass's last level (kept per pixel); the level above is in the same
// pass or, for a winner on the pass's last lane, is filled in from the next pass's first level.
// The parabola's vertex is then the reference's float(cm - cp) / float(2 (cm + cp - 2 c0)) with
// IEEE operations (__ll2float_rn, __fdiv_rn, __fadd_rn), so wta_subpixel agrees bit for bit.

#include <algorithm>
#include <string>

#include "methods/crossrt/cuda/stages.h"

namespace stereo::cu::crossrt {
namespace {

constexpr int WARPS = 8;
constexpr int THREADS = 32 * WARPS;
constexpr int LEVELS_PER_PASS = 32;

std::size_t shared_bytes(int height) {
  return std::size_t(height + 1) * LEVELS_PER_PASS * sizeof(std::uint32_t) +
         std::size_t(height) * sizeof(unsigned long long) + 3 * std::size_t(height) * sizeof(std::uint32_t) +
         std::size_t(height) * sizeof(uchar2) +
         std::size_t(WARPS) * LEVELS_PER_PASS * sizeof(std::uint32_t);
}

__global__ void __launch_bounds__(THREADS)
    aggregate_y_wta_kernel(const std::uint16_t* __restrict__ cax, const uchar2* __restrict__ arms, int width,
                           int height, int min_disparity, int levels, float* __restrict__ disparity,
                           float* __restrict__ refined, int segment_rows, int halo) {
  extern __shared__ __align__(16) unsigned char smem[];
  // The block's output rows are [ys, ye); it reads rows [ylo, yhi), ye - ys plus the halo (the
  // longest arm) on each side, clamped to the image. One segment (ys = ylo = 0, ye = yhi = H)
  // when the column fits in shared memory. Per-row arrays are indexed by y - ys, the prefix by
  // y - ylo + 1.
  const int ys = blockIdx.y * segment_rows;
  const int ye = min(ys + segment_rows, height);
  const int ylo = max(ys - halo, 0);
  const int yhi = min(ye + halo, height);
  const int span = yhi - ylo;
  const int rows = ye - ys;
  std::uint32_t* prefix = reinterpret_cast<std::uint32_t*>(smem);  // [(span + 1)][32]
  unsigned long long* best = reinterpret_cast<unsigned long long*>(prefix + std::size_t(span + 1) * LEVELS_PER_PASS);
  std::uint32_t* below = reinterpret_cast<std::uint32_t*>(best + rows);  // CA of the winner - 1, per pixel
  std::uint32_t* above = below + rows;                                     // CA of the winner + 1
  std::uint32_t* last = above + rows;                                      // CA of the previous pass's last level
  std::uint32_t* totals = last + rows;                                     // [WARPS][32]
  uchar2* s_arms = reinterpret_cast<uchar2*>(totals + WARPS * LEVELS_PER_PASS);

  const int x = blockIdx.x;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  for (int r = threadIdx.x; r < rows; r += THREADS) {
    s_arms[r] = arms[std::size_t(ys + r) * std::size_t(width) + std::size_t(x)];
    best[r] = ~0ull;
    below[r] = above[r] = last[r] = 0;
  }
  const int segment = (span + WARPS - 1) / WARPS;
  const int y_begin = ylo + min(warp * segment, span);
  const int y_end = min(y_begin + segment, yhi);

  for (int k0 = 0; k0 < levels; k0 += LEVELS_PER_PASS) {
    const int k = k0 + lane;
    const bool valid = k < levels;
    // Load first (independent loads, many in flight), then scan in shared memory.
#pragma unroll 8
    for (int y = y_begin; y < y_end; ++y)
      prefix[std::size_t(y - ylo + 1) * LEVELS_PER_PASS + lane] =
          valid ? std::uint32_t(cax[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * std::size_t(levels) + k])
                : 0u;
    std::uint32_t running = 0;
    for (int y = y_begin; y < y_end; ++y) {
      std::uint32_t& p = prefix[std::size_t(y - ylo + 1) * LEVELS_PER_PASS + lane];
      running += p;
      p = running;
    }
    totals[warp * LEVELS_PER_PASS + lane] = running;
    if (warp == 0) prefix[lane] = 0;
    __syncthreads();
    std::uint32_t offset = 0;
    for (int w = 0; w < warp; ++w) offset += totals[w * LEVELS_PER_PASS + lane];
    for (int y = y_begin; y < y_end; ++y) prefix[std::size_t(y - ylo + 1) * LEVELS_PER_PASS + lane] += offset;
    __syncthreads();

    // The arms stop at the image's border and are at most `halo` long (the caller's promise),
    // so every window lies inside [ylo, yhi).
    for (int y = warp; y < rows; y += WARPS) {
      const uchar2 a = s_arms[y];
      const int yy = ys + y - ylo;  // the prefix row of this output row, minus one
      const std::uint32_t ca = prefix[std::size_t(yy + a.y + 1) * LEVELS_PER_PASS + lane] -
                               prefix[std::size_t(yy - a.x) * LEVELS_PER_PASS + lane];
      unsigned long long key = valid ? (static_cast<unsigned long long>(ca) << 32) | unsigned(k) : ~0ull;
#pragma unroll
      for (int step = 16; step >= 1; step /= 2) key = min(key, __shfl_xor_sync(0xffffffffu, key, step));
      if (refined == nullptr) {
        if (lane == 0) best[y] = min(best[y], key);
        continue;
      }
      // Every lane holds the pass's winner; lane l = its level - k0 (lane 0 is always valid).
      const int l = int(unsigned(key & 0xffffffffull)) - k0;
      const std::uint32_t ca_below = __shfl_sync(0xffffffffu, ca, max(l - 1, 0));
      const std::uint32_t ca_above = __shfl_sync(0xffffffffu, ca, min(l + 1, LEVELS_PER_PASS - 1));
      const std::uint32_t ca_first = __shfl_sync(0xffffffffu, ca, 0);
      const std::uint32_t ca_last = __shfl_sync(0xffffffffu, ca, LEVELS_PER_PASS - 1);
      if (lane == 0) {
        // A winner on the previous pass's last level learns its upper neighbour now.
        if (k0 > 0 && best[y] != ~0ull && int(unsigned(best[y] & 0xffffffffull)) == k0 - 1) above[y] = ca_first;
        if (key < best[y]) {
          best[y] = key;
          below[y] = l > 0 ? ca_below : last[y];
          above[y] = ca_above;  // on the last lane: replaced by the next pass, or unused at the range's end
        }
        last[y] = ca_last;
      }
    }
    __syncthreads();  // the next pass overwrites the prefix
  }
  for (int y = threadIdx.x; y < rows; y += THREADS) {
    const int k = int(unsigned(best[y] & 0xffffffffull));
    const std::size_t at = std::size_t(ys + y) * std::size_t(width) + std::size_t(x);
    disparity[at] = float(min_disparity + k);
    if (refined == nullptr) continue;
    float value = float(min_disparity + k);
    if (k > 0 && k + 1 < levels) {
      const long long cm = below[y];
      const long long c0 = static_cast<long long>(best[y] >> 32);
      const long long cp = above[y];
      const long long denominator = 2 * (cm + cp - 2 * c0);
      if (denominator > 0) value = __fadd_rn(value, __fdiv_rn(__ll2float_rn(cm - cp), __ll2float_rn(denominator)));
    }
    refined[at] = value;
  }
}

}  // namespace

int max_column_height(int ordinal) {
  const std::size_t limit = shared_memory_optin_limit(ordinal);
  int height = 1;
  while (shared_bytes(height * 2) <= limit) height *= 2;
  for (int step = height / 2; step >= 1; step /= 2)
    if (shared_bytes(height + step) <= limit) height += step;
  return height;
}

bool aggregate_y_supports(int height, int max_arm, int ordinal) {
  const int max_rows = max_column_height(ordinal);
  return height <= max_rows || max_rows - 2 * max_arm >= 1;
}

void aggregate_y_wta(const DeviceVolume16& cax, const DeviceImage<uchar2>& arms_y, DeviceImage<float>& disparity,
                     int ordinal, cudaStream_t stream, DeviceImage<float>* refined, int max_arm, int segment_rows) {
  const int w = cax.width;
  const int h = cax.height;
  require(arms_y.width == w && arms_y.height == h && disparity.width == w && disparity.height == h,
          "crossrt/cuda: aggregate_y_wta needs arms and a disparity map of the volume's size");
  require(refined == nullptr || (refined->width == w && refined->height == h && refined->get() != disparity.get()),
          "crossrt/cuda: aggregate_y_wta's refined map must be a second map of the volume's size");
  require(max_arm >= 0 && max_arm <= 255 && segment_rows >= 0, [&] {
    return "crossrt/cuda: aggregate_y_wta needs max_arm in 0..255 and segment_rows >= 0, got " +
           std::to_string(max_arm) + " and " + std::to_string(segment_rows);
  });
  const int max_rows = max_column_height(ordinal);
  int rows = h;  // output rows per block
  int halo = 0;
  if (h > max_rows || (segment_rows > 0 && segment_rows < h)) {
    // Columns taller than shared memory holds: segments of rows, each reading a halo of the
    // longest arm above and below.
    halo = max_arm;
    rows = segment_rows > 0 ? segment_rows : max_rows - 2 * halo;
    require(rows >= 1, [&] {
      return "crossrt/cuda: aggregate_y_wta: a column of " + std::to_string(h) +
             " rows does not fit in shared memory, and arms of up to " + std::to_string(max_arm) +
             " rows leave no room for segments of it (at most " + std::to_string(max_rows) + " rows fit)";
    });
  }
  const int span = std::min(rows + 2 * halo, h);
  const std::size_t bytes = shared_bytes(span);
  const std::size_t limit = shared_memory_optin_limit(ordinal);
  require(bytes <= limit, [&] {
    return "crossrt/cuda: aggregate_y_wta needs " + std::to_string(bytes) +
           " bytes of shared memory for column segments of " + std::to_string(span) + " rows; this GPU allows " +
           std::to_string(limit);
  });
  CUDA_CHECK(cudaFuncSetAttribute(aggregate_y_wta_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  const dim3 grid(unsigned(w), unsigned(div_up(h, rows)));
  aggregate_y_wta_kernel<<<grid, THREADS, bytes, stream>>>(cax.get(), arms_y.get(), w, h, cax.range.min,
                                                           cax.range.count, disparity.get(),
                                                           refined != nullptr ? refined->get() : nullptr, rows, halo);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::crossrt
