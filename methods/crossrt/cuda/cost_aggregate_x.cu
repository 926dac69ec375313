// C+CA_x (Table II): eq. 3-5 fused with eq. 7 for both views. The paper computes each cost row
// C(., y, d) once into shared memory and reads the right view's aggregation from the same row
// shifted by d (eq. 6); we do the same, with two changes for a GPU with far more threads than
// the GTX 780 Ti: a block handles one row and 32 levels (one level per lane), so a warp's 32
// lanes walk 32 levels in lockstep, and the variable-length arm sums become two reads of a
// prefix sum instead of up to 2 W_x + 1 additions.
//
// Precision: costs are the model's integers (methods/crossrt/model.h, <= 2 * COST_SCALE = 256).
// The row prefix is kept in uint16 modulo 2^16: a window sum is at most (2 * 127 + 1) * 256 =
// 65280 < 2^16, so the modular difference of two prefixes is the exact sum (unsigned wrap-around
// is defined). That halves the shared memory of the prefix (64 B per column for 32 levels).
//
// Shared memory per block (W = scaled width): grey and mini-census rows of both views 4 W,
// both views' arms 4 W, the tables 264, the prefix 64 (W + 1), segment totals 512 bytes:
// about 50 KB at W = 718 (four blocks per H100 SM).

#include <algorithm>
#include <string>

#include "methods/crossrt/cuda/stages.h"

namespace stereo::cu::crossrt {
namespace {

constexpr int WARPS = 8;
constexpr int THREADS = 32 * WARPS;
constexpr int LEVELS_PER_BLOCK = 32;
constexpr int COST_OUTSIDE = stereo::crossrt::COST_OUTSIDE;

std::size_t shared_bytes(int width) {
  return std::size_t(8) * std::size_t(width) + sizeof(DeviceTables) +
         std::size_t(width + 1) * LEVELS_PER_BLOCK * sizeof(std::uint16_t) +
         std::size_t(WARPS) * LEVELS_PER_BLOCK * sizeof(std::uint16_t);
}

// The mini-census of the model: bit i when neighbour i is darker than the centre.
__device__ std::uint8_t mini_census_at(const std::uint8_t* __restrict__ grey, int width, int height, int x, int y) {
  const int centre = grey[std::size_t(y) * std::size_t(width) + std::size_t(x)];
  int bits = 0;
#pragma unroll
  for (int i = 0; i < stereo::crossrt::MINI_CENSUS_BITS; ++i) {
    const stereo::crossrt::Offset o = stereo::crossrt::mini_census_offset(i);
    const int qx = min(max(x + o.dx, 0), width - 1);
    const int qy = min(max(y + o.dy, 0), height - 1);
    if (int(grey[std::size_t(qy) * std::size_t(width) + std::size_t(qx)]) < centre) bits |= 1 << i;
  }
  return std::uint8_t(bits);
}

// What a block keeps of its row y in shared memory, in this order from the start: grey and
// mini-census of both views, both views' arms (8 B a column), the tables; the prefix sums
// follow (prefix_start).
struct SharedRow {
  std::uint8_t* grey_l;
  std::uint8_t* grey_r;
  std::uint8_t* census_l;
  std::uint8_t* census_r;
  uchar2* arms_l;
  uchar2* arms_r;
  DeviceTables* tables;
  __device__ std::uint16_t* prefix_start() const { return reinterpret_cast<std::uint16_t*>(tables + 1); }
};

// Fills the block's SharedRow of row y (the whole row, every view) and waits for it.
__device__ __forceinline__ SharedRow load_row(unsigned char* smem, const std::uint8_t* __restrict__ left,
                                              const std::uint8_t* __restrict__ right, int width, int height,
                                              const uchar2* __restrict__ arms_left,
                                              const uchar2* __restrict__ arms_right, const DeviceTables& tables,
                                              int y) {
  SharedRow s;
  s.grey_l = smem;
  s.grey_r = s.grey_l + width;
  s.census_l = s.grey_r + width;
  s.census_r = s.census_l + width;
  s.arms_l = reinterpret_cast<uchar2*>(s.census_r + width);
  s.arms_r = s.arms_l + width;
  s.tables = reinterpret_cast<DeviceTables*>(s.arms_r + width);
  const std::size_t row = std::size_t(y) * std::size_t(width);
  for (int x = threadIdx.x; x < width; x += THREADS) {
    s.grey_l[x] = left[row + x];
    s.grey_r[x] = right[row + x];
    s.census_l[x] = mini_census_at(left, width, height, x, y);
    s.census_r[x] = mini_census_at(right, width, height, x, y);
    s.arms_l[x] = arms_left[row + x];
    s.arms_r[x] = arms_right[row + x];
  }
  for (int i = threadIdx.x; i < int(sizeof(DeviceTables)); i += THREADS)
    reinterpret_cast<unsigned char*>(s.tables)[i] = reinterpret_cast<const unsigned char*>(&tables)[i];
  __syncthreads();
  return s;
}

// Eq. 3-5 at column x of the left view and level d: the two table terms, COST_OUTSIDE where
// x - d lies outside the right image.
__device__ __forceinline__ int cost_at(const SharedRow& s, int x, int d, int width) {
  const int xr = x - d;
  if (xr < 0 || xr >= width) return COST_OUTSIDE;
  const int ad = abs(int(s.grey_l[x]) - int(s.grey_r[xr]));
  return s.tables->ad[ad] + s.tables->mc[__popc(unsigned(s.census_l[x] ^ s.census_r[xr]))];
}

// What a thread works on: one level per lane (k of the block's 32, disparity d) and, by its warp,
// one segment of a row. Lanes past the last level (not valid) still take part in the barriers.
struct LaneLevel {
  int lane, warp, k, d;
  bool valid;
};
__device__ __forceinline__ LaneLevel lane_level(int min_disparity, int levels) {
  LaneLevel l;
  l.lane = threadIdx.x & 31;
  l.warp = threadIdx.x >> 5;
  l.k = blockIdx.y * LEVELS_PER_BLOCK + l.lane;
  l.valid = l.k < levels;
  l.d = min_disparity + l.k;
  return l;
}

// The prefix sum of the cost row at level d over positions origin .. origin + span - 1 (entry
// i + 1 sums the first i + 1; entry 0 is 0), one level per lane, each warp scanning one segment
// of positions, then adding the totals of the segments before it. With CLIPPED, positions
// outside the image enter as 0 (the segmented kernel's halos); without, every position is inside
// (origin = 0, span = width). Ends with a barrier.
template <bool CLIPPED>
__device__ __forceinline__ void cost_prefix(const SharedRow& s, std::uint16_t* prefix, std::uint16_t* totals,
                                            int origin, int span, int width, const LaneLevel& l) {
  const int warp = l.warp, lane = l.lane;
  const int segment = (span + WARPS - 1) / WARPS;
  const int i_begin = min(warp * segment, span);
  const int i_end = min(i_begin + segment, span);
  std::uint16_t running = 0;
  for (int i = i_begin; i < i_end; ++i) {
    const int p = origin + i;
    int c = 0;
    if (l.valid && (!CLIPPED || (p >= 0 && p < width))) c = cost_at(s, p, l.d, width);
    running = std::uint16_t(running + c);
    prefix[std::size_t(i + 1) * LEVELS_PER_BLOCK + lane] = running;
  }
  totals[warp * LEVELS_PER_BLOCK + lane] = running;
  if (warp == 0) prefix[lane] = 0;
  __syncthreads();
  std::uint16_t offset = 0;
  for (int w = 0; w < warp; ++w) offset = std::uint16_t(offset + totals[w * LEVELS_PER_BLOCK + lane]);
  for (int i = i_begin; i < i_end; ++i) {
    std::uint16_t& q = prefix[std::size_t(i + 1) * LEVELS_PER_BLOCK + lane];
    q = std::uint16_t(q + offset);
  }
  __syncthreads();
}

// Eq. 7 for the left view at x from a prefix whose entry i sums positions origin ..
// origin + i - 1 (the arms keep the window inside it).
__device__ __forceinline__ std::uint16_t left_window_sum(const std::uint16_t* prefix, int origin, uchar2 al, int x,
                                                         int lane) {
  return std::uint16_t(prefix[std::size_t(x + al.y + 1 - origin) * LEVELS_PER_BLOCK + lane] -
                       prefix[std::size_t(x - al.x - origin) * LEVELS_PER_BLOCK + lane]);
}

// Eq. 6-7 for the right view at x: its window is the left view's shifted by d, and counts
// COST_OUTSIDE for each position past the image; the positions inside come from the prefix
// (origin as above; where any lie inside, origin <= lo < hi <= origin + span).
__device__ __forceinline__ std::uint16_t right_window_sum(const std::uint16_t* prefix, int origin, uchar2 ar, int x,
                                                          int d, int width, int lane) {
  const int a = x - ar.x + d;
  const int b = x + ar.y + d;
  const int lo = min(max(a, 0), width);
  const int hi = min(max(b + 1, 0), width);
  const int inside = max(hi - lo, 0);
  std::uint16_t sum_r = std::uint16_t((b - a + 1 - inside) * COST_OUTSIDE);
  if (inside > 0)
    sum_r = std::uint16_t(sum_r + std::uint16_t(prefix[std::size_t(hi - origin) * LEVELS_PER_BLOCK + lane] -
                                                prefix[std::size_t(lo - origin) * LEVELS_PER_BLOCK + lane]));
  return sum_r;
}

// The kernels' sizes: the images', the range, and (the segmented kernel only) the output
// columns per block and the columns read beyond them on each side.
struct RowShape {
  int width;
  int height;
  int min_disparity;
  int levels;
  int segment_cols;
  int halo;
};

__global__ void __launch_bounds__(THREADS)
    cost_aggregate_x_kernel(const std::uint8_t* __restrict__ left, const std::uint8_t* __restrict__ right,
                            const uchar2* __restrict__ arms_left, const uchar2* __restrict__ arms_right,
                            DeviceTables tables, RowShape shape, std::uint16_t* __restrict__ cax_left,
                            std::uint16_t* __restrict__ cax_right) {
  const int width = shape.width, height = shape.height, min_disparity = shape.min_disparity, levels = shape.levels;
  extern __shared__ __align__(16) unsigned char smem[];
  const int y = blockIdx.x;
  const SharedRow s = load_row(smem, left, right, width, height, arms_left, arms_right, tables, y);
  std::uint16_t* prefix = s.prefix_start();                                    // [(W + 1)][32]
  std::uint16_t* totals = prefix + std::size_t(width + 1) * LEVELS_PER_BLOCK;  // [WARPS][32]

  const LaneLevel l = lane_level(min_disparity, levels);
  const std::size_t row = std::size_t(y) * std::size_t(width);

  // Eq. 3-5 along the row, one level per lane.
  cost_prefix<false>(s, prefix, totals, 0, width, width, l);
  if (!l.valid) return;

  // Eq. 7 for both views from the one prefix; the right view's window is shifted by d (eq. 6).
  for (int x = l.warp; x < width; x += WARPS) {
    const std::size_t out = (row + std::size_t(x)) * std::size_t(levels) + std::size_t(l.k);
    cax_left[out] = left_window_sum(prefix, 0, s.arms_l[x], x, l.lane);
    cax_right[out] = right_window_sum(prefix, 0, s.arms_r[x], x, l.d, width, l.lane);
  }
}

// The same for rows wider than shared memory holds as one prefix (C+CA_x of wide images): a
// block owns one row, 32 levels and the output columns [xs, xe). Its rows of grey, census and
// arms stay whole in shared memory (8 B a column); the prefix covers only the segment plus a
// halo of the longest arm on each side, built twice: once at positions xs - halo .. for the
// left view, once at xs - halo + d .. (its own origin per lane, i.e. per level) for the right
// view's shifted windows (eq. 6). Positions outside the image enter as 0: no window reaches
// them (the arms stop at the border; the right view counts COST_OUTSIDE for them directly).
// The costs of the halos are computed twice across neighbouring segments, and each cost once
// per view: more work than the whole-row kernel, which stays the one used when a row fits.
__global__ void __launch_bounds__(THREADS)
    cost_aggregate_x_segments_kernel(const std::uint8_t* __restrict__ left, const std::uint8_t* __restrict__ right,
                                     const uchar2* __restrict__ arms_left, const uchar2* __restrict__ arms_right,
                                     DeviceTables tables, RowShape shape, std::uint16_t* __restrict__ cax_left,
                                     std::uint16_t* __restrict__ cax_right) {
  const int width = shape.width, height = shape.height, min_disparity = shape.min_disparity, levels = shape.levels;
  const int segment_cols = shape.segment_cols, halo = shape.halo;
  extern __shared__ __align__(16) unsigned char smem[];
  const int span = segment_cols + 2 * halo;
  const int y = blockIdx.x;
  const SharedRow s = load_row(smem, left, right, width, height, arms_left, arms_right, tables, y);
  std::uint16_t* prefix = s.prefix_start();                                   // [(span + 1)][32]
  std::uint16_t* totals = prefix + std::size_t(span + 1) * LEVELS_PER_BLOCK;  // [WARPS][32]

  const LaneLevel l = lane_level(min_disparity, levels);
  const std::size_t row = std::size_t(y) * std::size_t(width);
  const int xs = blockIdx.z * segment_cols;
  const int xe = min(xs + segment_cols, width);

  for (int view = 0; view < 2; ++view) {
    const int origin = xs - halo + (view == 1 ? l.d : 0);  // prefix entry i + 1 sums positions origin .. origin + i
    cost_prefix<true>(s, prefix, totals, origin, span, width, l);
    if (l.valid) {
      for (int x = xs + l.warp; x < xe; x += WARPS) {
        const std::size_t out = (row + std::size_t(x)) * std::size_t(levels) + std::size_t(l.k);
        // Inside [xs - halo, xe + halo) as the arms are at most `halo` (the caller's promise).
        if (view == 0)
          cax_left[out] = left_window_sum(prefix, origin, s.arms_l[x], x, l.lane);
        else
          cax_right[out] = right_window_sum(prefix, origin, s.arms_r[x], x, l.d, width, l.lane);
      }
    }
    __syncthreads();  // the right view's prefix overwrites the left's
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

namespace {

// The segmented kernel's shared memory: whole rows (8 B a column), the tables, the prefix of a
// segment with its halos, the warps' totals.
std::size_t segment_shared_bytes(int width, int span) {
  return std::size_t(8) * std::size_t(width) + sizeof(DeviceTables) +
         std::size_t(span + 1) * LEVELS_PER_BLOCK * sizeof(std::uint16_t) +
         std::size_t(WARPS) * LEVELS_PER_BLOCK * sizeof(std::uint16_t);
}

// The widest segment (output columns) that fits beside whole rows of `width`; < 1 if none.
int max_segment_cols(int width, int max_arm, int ordinal) {
  const std::size_t limit = shared_memory_optin_limit(ordinal);
  const std::size_t fixed = segment_shared_bytes(width, 0);
  if (fixed >= limit) return 0;
  const std::size_t per_column = LEVELS_PER_BLOCK * sizeof(std::uint16_t);
  return int((limit - fixed) / per_column) - 2 * max_arm;
}

}  // namespace

bool cost_aggregate_x_supports(int width, int max_arm, int ordinal) {
  return width <= max_cost_width(ordinal) || max_segment_cols(width, max_arm, ordinal) >= 1;
}

void cost_aggregate_x(const CostAggregateXInputs& in, DisparityRange range, DeviceVolume16& cax_left,
                      DeviceVolume16& cax_right, int ordinal, cudaStream_t stream, int max_arm, int segment_cols) {
  const DeviceImage<std::uint8_t>& left = in.left;
  const DeviceImage<std::uint8_t>& right = in.right;
  const DeviceImage<uchar2>& arms_x_left = in.arms_x_left;
  const DeviceImage<uchar2>& arms_x_right = in.arms_x_right;
  const DeviceTables& tables = in.tables;
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
  require(max_arm >= 0 && max_arm <= 255 && segment_cols >= 0, [&] {
    return "crossrt/cuda: cost_aggregate_x needs max_arm in 0..255 and segment_cols >= 0, got " +
           std::to_string(max_arm) + " and " + std::to_string(segment_cols);
  });
  const unsigned level_blocks = unsigned(div_up(range.count, LEVELS_PER_BLOCK));
  if (w <= max_cost_width(ordinal) && (segment_cols == 0 || segment_cols >= w)) {
    const std::size_t bytes = shared_bytes(w);
    CUDA_CHECK(cudaFuncSetAttribute(cost_aggregate_x_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    cost_aggregate_x_kernel<<<dim3(unsigned(h), level_blocks), THREADS, bytes, stream>>>(
        left.get(), right.get(), arms_x_left.get(), arms_x_right.get(), tables,
        RowShape{w, h, range.min, range.count, 0, 0}, cax_left.get(), cax_right.get());
    CUDA_CHECK_LAUNCH();
    return;
  }
  // A row wider than one shared-memory prefix: segments of columns with halos of max_arm.
  const int cols = segment_cols > 0 ? std::min(segment_cols, w) : max_segment_cols(w, max_arm, ordinal);
  require(cols >= 1, [&] {
    return "crossrt/cuda: cost_aggregate_x: rows of " + std::to_string(w) +
           " scaled pixels leave no room in this GPU's shared memory for segments with arms of up to " +
           std::to_string(max_arm);
  });
  const std::size_t bytes = segment_shared_bytes(w, cols + 2 * max_arm);
  require(bytes <= shared_memory_optin_limit(ordinal), [&] {
    return "crossrt/cuda: cost_aggregate_x needs " + std::to_string(bytes) + " bytes of shared memory for rows of " +
           std::to_string(w) + " in segments of " + std::to_string(cols) + "; this GPU allows " +
           std::to_string(shared_memory_optin_limit(ordinal));
  });
  const unsigned segments = unsigned(div_up(w, cols));
  require(segments <= 65535u,
          [&] { return "crossrt/cuda: cost_aggregate_x: " + std::to_string(segments) + " segments per row"; });
  CUDA_CHECK(
      cudaFuncSetAttribute(cost_aggregate_x_segments_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  cost_aggregate_x_segments_kernel<<<dim3(unsigned(h), level_blocks, segments), THREADS, bytes, stream>>>(
      left.get(), right.get(), arms_x_left.get(), arms_x_right.get(), tables,
      RowShape{w, h, range.min, range.count, cols, max_arm}, cax_left.get(), cax_right.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::crossrt
