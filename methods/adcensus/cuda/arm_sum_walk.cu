// The arm-sum pass as a walk (arm_sum.h, launch_arm_sum_walk): the passes over the combined
// region that neither count nor compute the cost, two levels a lane. Each lane walks its whole
// line once, keeping the running fixed-point sum in a register and the last 2 max_arm + 2
// prefixes in its own column of a ring in shared memory; a cell's window sum leaves max_arm
// steps after the cell was loaded, as the difference of two ring entries. Against the tiles of
// arm_sum.cu: no halo loaded twice, no scan sweeps through shared memory (one store a step),
// and no barrier (a lane reads only what it wrote). The sums are the same integers as the
// tiles' (prefixes that differ by a constant subtract to the same window), so the values are
// the same bits.

#include <cuda_fp16.h>

#include <string>

#include "methods/adcensus/cuda/arm_sum.h"
#include "methods/adcensus/cuda/arm_sum_device.cuh"

namespace stereo::cu::adcensus {
namespace {

constexpr int AHEAD = 8;  // steps whose loads are in flight ahead of the one summed

struct WalkShape {
  int width;
  int height;
  int levels;
  int sign;
  int min_d;
  int max_arm;
  float scale;
};

// What a step loads: the two levels' fp16 costs at the step's position, and for the cell that
// leaves at this step (max_arm positions behind) p's and the two pd's packed arms and, with
// LOAD, the two cells' region counts.
struct Loaded {
  __half2 value;
  unsigned own;
  unsigned pd0;
  unsigned pd1;
  unsigned counts;
};

// A lane: levels k, k + 1 of one line (a row with AXIS 1, a column with AXIS 2). LOAD divides
// each window by the count iterations 1 and 2 stored; without it the window is left unnormalised
// (the first pass of an iteration).
template <int AXIS, bool LOAD>
__global__ void __launch_bounds__(LANES) arm_sum_walk_kernel(const __half* __restrict__ in, __half* __restrict__ out,
                                                            const uchar4* __restrict__ arms,
                                                            const uchar4* __restrict__ other_arms,
                                                            const std::uint16_t* __restrict__ counts, WalkShape s) {
  constexpr bool H = AXIS == 1;
  extern __shared__ uint2 ring[];  // [2 max_arm + 2][LANES]: this lane's column only
  const int lane = int(threadIdx.x);
  const int slots = 2 * s.max_arm + 2;
  const int groups = s.levels / 2;
  const int length = H ? s.width : s.height;
  const int lane_count = (H ? s.height : s.width) * groups;
  const int lane_index = int(blockIdx.x) * LANES + lane;
  const bool active = lane_index < lane_count;
  const int li = min(lane_index, lane_count - 1);
  const int line = li / groups;
  const int k = (li - line * groups) * 2;
  const std::size_t base = H ? std::size_t(line) * s.width * s.levels + k : std::size_t(line) * s.levels + k;
  const std::size_t stride = H ? std::size_t(s.levels) : std::size_t(s.width) * s.levels;
  const int line_pixel = H ? line * s.width : line;
  const int pos_step = H ? 1 : s.width;
  const int offset_d = s.sign * (s.min_d + k);
  const int shift = H ? 0 : 16;  // this axis's arms in the packed uchar4
  const unsigned* other = reinterpret_cast<const unsigned*>(other_arms);
  for (int r = 0; r < slots; ++r) ring[r * LANES + lane] = make_uint2(0u, 0u);

  // Step t loads the cost at position t and the arms (and counts) of the cell at t - max_arm.
  // Positions past the line read its last one and load zero cost; cells before the line's
  // start read its first one and are not stored.
  const auto load = [&](int t) {
    Loaded l;
    const int at = min(t, length - 1);
    const __half2 v = *reinterpret_cast<const __half2*>(in + (base + std::size_t(at) * stride));
    l.value = t < length ? v : __float2half2_rn(0.0f);
    const int x = min(max(t - s.max_arm, 0), length - 1);
    const int pixel = line_pixel + x * pos_step;
    const int col = H ? x : line;
    l.own = reinterpret_cast<const unsigned*>(arms)[pixel];
    l.pd0 = other[pixel - col + min(max(col + offset_d, 0), s.width - 1)];
    l.pd1 = other[pixel - col + min(max(col + offset_d + s.sign, 0), s.width - 1)];
    if constexpr (LOAD) l.counts = *reinterpret_cast<const unsigned*>(counts + (base + std::size_t(x) * stride));
    return l;
  };
  Loaded queue[AHEAD];
#pragma unroll
  for (int a = 0; a < AHEAD; ++a) queue[a] = load(a);

  const float inv_scale = 1.0f / s.scale;
  const unsigned* ring_levels = reinterpret_cast<const unsigned*>(ring);
  uint2 sum = make_uint2(0u, 0u);
  int head = 0;  // the slot of step t's prefix: t mod slots
  const int steps = length + s.max_arm;
  for (int t0 = 0; t0 < steps; t0 += AHEAD) {
#pragma unroll
    for (int a = 0; a < AHEAD; ++a) {
      const int t = t0 + a;
      const Loaded l = queue[a];
      queue[a] = load(t + AHEAD);
      // The prefix through position t, in slot t mod slots.
      const float2 f = __half22float2(l.value);
      const float v[2] = {f.x, f.y};
      const uint2 w = fixed_point<2>(v, s.scale, true);
      sum = make_uint2(sum.x + w.x, sum.y + w.y);
      ring[head * LANES + lane] = sum;
      const int now = head;
      head = head + 1 == slots ? 0 : head + 1;
      // The cell max_arm positions behind leaves: its window is I[x + after] - I[x - before - 1].
      const int x = t - s.max_arm;
      if (x < 0 || x >= length || !active) continue;
      const int col = H ? x : line;
      const unsigned own = l.own >> shift;
      const int own_before = min(int(own & 0xFFu), s.max_arm), own_after = min(int((own >> 8) & 0xFFu), s.max_arm);
      const unsigned pd[2] = {l.pd0 >> shift, l.pd1 >> shift};
      float out_v[2];
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int xd = col + offset_d + j * s.sign;
        const bool inside = xd >= 0 && xd < s.width;
        const int before = inside ? min(own_before, int(pd[j] & 0xFFu)) : 0;
        const int after = inside ? min(own_after, int((pd[j] >> 8) & 0xFFu)) : 0;
        int hi = now - (s.max_arm - after);
        hi += hi < 0 ? slots : 0;
        int lo = now - (s.max_arm + before + 1);
        lo += lo < 0 ? slots : 0;
        out_v[j] = float(ring_levels[(hi * LANES + lane) * 2 + j] - ring_levels[(lo * LANES + lane) * 2 + j]) * inv_scale;
        if constexpr (LOAD) out_v[j] = divide_by_count(out_v[j], float((l.counts >> (16 * j)) & 0xFFFFu));
      }
      *reinterpret_cast<__half2*>(out + (base + std::size_t(x) * stride)) = __floats2half2_rn(out_v[0], out_v[1]);
    }
  }
}

template <int AXIS, bool LOAD>
void launch(const ArmSumPass& pass, std::size_t bytes, unsigned blocks, cudaStream_t stream) {
  const auto kernel = arm_sum_walk_kernel<AXIS, LOAD>;
  if (bytes > 48 * 1024) CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  const WalkShape shape{pass.width, pass.height, pass.levels, pass.region.sign, pass.region.min_d, pass.max_arm,
                        fixed_point_scale(pass.max_arm)};
  kernel<<<blocks, LANES, bytes, stream>>>(reinterpret_cast<const __half*>(pass.in),
                                           reinterpret_cast<__half*>(pass.out), pass.arms, pass.region.other_arms,
                                           pass.region.load_counts, shape);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

bool walks_apply(const ArmSumPass& pass) {
  return levels_a_lane(pass) == 2 && pass.cost == nullptr && pass.region.store_counts == nullptr &&
         pass.region.divide == nullptr;
}

void launch_arm_sum_walk(const ArmSumPass& pass, cudaStream_t stream) {
  require(walks_apply(pass), "adcensus/cuda aggregate_cost: a walk is a pass over the combined region at two levels a "
                             "lane that neither counts nor computes the cost");
  const std::size_t bytes = std::size_t(2 * pass.max_arm + 2) * LANES * sizeof(uint2);
  const long long lanes = static_cast<long long>(pass.horizontal ? pass.height : pass.width) * (pass.levels / 2);
  require(lanes <= 0x7FFFFFFF, "adcensus/cuda aggregate_cost: volume too large for one grid");
  require_int_pixels(pass.width, pass.height, "adcensus/cuda aggregate_cost");
  const auto blocks = static_cast<unsigned>((lanes + LANES - 1) / LANES);
  const bool load = pass.region.load_counts != nullptr;
  if (pass.horizontal)
    load ? launch<1, true>(pass, bytes, blocks, stream) : launch<1, false>(pass, bytes, blocks, stream);
  else
    load ? launch<2, true>(pass, bytes, blocks, stream) : launch<2, false>(pass, bytes, blocks, stream);
}

}  // namespace stereo::cu::adcensus
