// Stage 5: scanline optimisation (Sec. 2.3), the paths of eq. 4.
//
// A group of GROUP lanes walks one scanline (a warp holds 32 / GROUP of them); the four
// directions are blockIdx.y, so all of them run in one launch (at 1080p that is 2 x 1080 +
// 2 x 1920 warps, enough to fill an H100, where one direction alone would leave most of it
// idle). Each lane holds V consecutive levels in registers: the d +- 1 neighbours are in the
// lane's own registers except at its ends (one shuffle each way), and min_k C_r(p - r, k) is a
// log2(GROUP)-step shuffle reduction. Up to 32 levels a lane holds 4 and a group is 4 or 8
// lanes (a warp walks 8 or 4 lines): one lane a level had left Tsukuba's 16 and Venus's 20
// levels 16 and 12 idle lanes of 32 (scanline+wta on the H100 0.272 -> 0.230 and 0.394 ->
// 0.348 ms). For 33 to 64 levels, two a lane over the whole warp measured faster than 16 lanes
// of four (Teddy 0.450 against 0.482 ms): half as many warps with longer steps, and one view's
// 825 warps leave the H100's schedulers without enough to hide the steps' latency. From 129 to
// 256 levels a lane holds 16 and a group is 16 lanes (two lines a warp): at 1080p one view's
// 6,000 walks are 3,000 warps, one wave of the H200's resident warps (24 an SM at 80
// registers), where one line a warp of 8 levels a lane ran the last column walks in a second
// wave (scanline+wta 9.87 -> 9.05 ms, the same registers). The costs
// of the next few pixels are loaded before the current one is computed, so the load latency
// overlaps the recurrence. Arithmetic is fp32 in the order of reference::scanline_optimize;
// only the stored path values are rounded to fp16.
//
// P1 and P2 depend on D2 = D_c(pd, pd - r) per level, a colour difference in the other image.
// It depends on the level only through pd's column, so it is a property of the other image's
// pixels: edge_bits_kernel writes, once per view, one bit per pixel for "D_c to the left
// neighbour >= tau_SO" and one for "D_c to the upper neighbour >= tau_SO" (0 where that
// neighbour lies outside the image, which is the reference's "D2 counts as no edge"). A lane's
// V levels then read V consecutive bits of one row: one 64-bit window, one shift, instead of 2V
// gathered RGBA loads and 6V byte operations per step (what ncu had as the bulk of the
// kernel's instructions). The right-to-left and bottom-to-top paths compare pd with pd + 1 and
// the row below, i.e. the bits of pd + 1 and of the next row.
//

#include <cuda_fp16.h>

#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "cuda/shared/colour_difference.cuh"
#include "methods/adcensus/cuda/scanline_paths.cuh"
#include "methods/adcensus/cuda/stages.h"
#include "methods/adcensus/model.h"

namespace stereo::cu::adcensus {
namespace {

constexpr int PATH_WARPS = 4;  // scanlines per block
constexpr unsigned FULL_MASK = 0xFFFFFFFFu;

// P1 and P2 for 0, 1 and 2 edges (Sec. 2.3: Pi, Pi / 4, Pi / 10), divided as the reference
// divides them (float).
struct Penalties {
  float p1[3];
  float p2[3];
};

// The minimum over each aligned group of GROUP lanes.
template <int GROUP>
__device__ float group_min(float v) {
  for (int offset = GROUP / 2; offset > 0; offset /= 2) v = fminf(v, __shfl_xor_sync(FULL_MASK, v, offset));
  return v;
}

// Word w of row y of both bit images of `image`: bit i of the horizontal word is
// D_c(q, q - 1) >= tau for q = 32 w + i (0 for q = 0 and q >= width), of the vertical word
// D_c((q, y), (q, y - 1)) >= tau (0 on row 0 and for q >= width).
__global__ void edge_bits_kernel(const uchar4* __restrict__ image, int width, int height, int words, int tau,
                                 std::uint32_t* __restrict__ edges) {
  const int w = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y);
  if (w >= words) return;
  const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(width);
  std::uint32_t h = 0u, v = 0u;
  for (int i = 0; i < 32; ++i) {
    const int q = w * 32 + i;
    if (q >= width) break;
    const uchar4 c = image[row + q];
    if (q >= 1 && max_channel_difference(c, image[row + q - 1]) >= tau) h |= 1u << i;
    if (y >= 1 && max_channel_difference(c, image[row - static_cast<std::size_t>(width) + q]) >= tau) v |= 1u << i;
  }
  const std::size_t at = static_cast<std::size_t>(y) * static_cast<std::size_t>(words) + static_cast<std::size_t>(w);
  edges[at] = h;
  edges[static_cast<std::size_t>(height) * static_cast<std::size_t>(words) + at] = v;
}

// 32-bit part i of a word (i constant after unrolling, so these stay in registers).
__device__ __forceinline__ unsigned part(const uint4& w, int i) {
  return i == 0 ? w.x : i == 1 ? w.y : i == 2 ? w.z : w.w;
}
__device__ __forceinline__ unsigned part(const uint2& w, int i) { return i == 0 ? w.x : w.y; }
__device__ __forceinline__ unsigned part(unsigned w, int) { return w; }
__device__ __forceinline__ void set_part(uint4& w, int i, unsigned v) {
  if (i == 0) w.x = v;
  else if (i == 1) w.y = v;
  else if (i == 2) w.z = v;
  else w.w = v;
}
__device__ __forceinline__ void set_part(uint2& w, int i, unsigned v) {
  if (i == 0) w.x = v;
  else w.y = v;
}
__device__ __forceinline__ void set_part(unsigned& w, int, unsigned v) { w = v; }

// Level j of the lane's words (two levels a 32-bit part).
template <int V, class Word>
__device__ __forceinline__ __half level_of(const Word (&w)[lane_word_count<V>], int j) {
  constexpr int PARTS = int(sizeof(Word)) / 4;
  const unsigned u = part(w[(j / 2) / PARTS], (j / 2) % PARTS);
  return __ushort_as_half(static_cast<unsigned short>((j % 2) ? (u >> 16) : (u & 0xFFFFu)));
}

// WHOLE: the level count is a multiple of V, so each lane's levels are whole aligned words (one
// vector load and one vector store a step instead of V 2-byte ones; ncu had the 2-byte stores of
// the eq. 5 mean as most of its time, and the same shape here). GROUP lanes a line (GROUP x V
// >= the level count). The parameters stay separate: as restricted kernel parameters the
// cost's loads go through the read-only path (ld.global.nc), which a struct of pointers loses.
template <int V, bool WHOLE, int GROUP>
__global__ void __launch_bounds__(WARP * PATH_WARPS)
    path_kernel(const __half* __restrict__ cost, const uchar4* __restrict__ ref, const std::uint32_t* __restrict__ edges,
                int words, int width, int height, int levels, int min_d, int sign, Penalties pen, int tau_so,
                Paths paths) {
  static_assert(V >= 2 && V <= 32, "a lane's levels are whole 32-bit words and one 32-bit window of edge bits");
  const int direction = static_cast<int>(blockIdx.y);
  const int rx = direction == 0 ? 1 : (direction == 1 ? -1 : 0);
  const int ry = direction == 2 ? 1 : (direction == 3 ? -1 : 0);
  const bool horizontal = ry == 0;
  const int lines = horizontal ? height : width;
  const int length = horizontal ? width : height;
  static_assert(GROUP >= 1 && GROUP <= WARP && WARP % GROUP == 0, "groups tile the warp");
  constexpr int LINES_PER_WARP = WARP / GROUP;
  const int first_line = (static_cast<int>(blockIdx.x) * PATH_WARPS + static_cast<int>(threadIdx.x) / WARP) *
                         LINES_PER_WARP;
  if (first_line >= lines) return;  // the whole warp leaves together
  // A group past the last line walks the last line again (every lane takes part in the
  // shuffles) and stores nothing.
  const int group_line = first_line + static_cast<int>(threadIdx.x) % WARP / GROUP;
  const bool stores = group_line < lines;
  const int line = min(group_line, lines - 1);
  const int lane = static_cast<int>(threadIdx.x) % GROUP;
  const bool forward = rx + ry > 0;
  // Selected, not indexed: a run-time index into the parameter array would copy it to the stack.
  __half* __restrict__ out = direction == 0   ? paths.direction[0]
                             : direction == 1 ? paths.direction[1]
                             : direction == 2 ? paths.direction[2]
                                              : paths.direction[3];
  // Edge bits of this path's direction: horizontal neighbours for the row paths, vertical for
  // the column paths; pd - r is pd's left (upper) neighbour for r = +x (+y), else pd's right
  // (lower) neighbour, whose own bit it is.
  const std::uint32_t* bits = edges + (horizontal ? 0 : static_cast<std::size_t>(height) * static_cast<std::size_t>(words));
  const int column_shift = rx < 0 ? 1 : 0;
  const int row_shift = ry < 0 ? 1 : 0;
  // The lane's levels k = lane V + j match column x + sign (min_d + k): with sign -1 they run
  // down from x - min_d - lane V, with +1 up from x + min_d + lane V.
  const int lane_offset = sign * (min_d + lane * V);

  float prev[V], cur[V];
#pragma unroll
  for (int j = 0; j < V; ++j) prev[j] = cur[j] = FLT_MAX;  // set by step 0 before any read
  float prev_min = 0.0f;

  // Where step s reads and writes, as a start plus s times a per-step increment (ncu had the
  // recomputed 64-bit addresses as a large share of the ~170 instructions a step on Teddy,
  // where the schedulers issued on 62 % of the cycles): the path's pixel, the lane's first
  // level of it in the volumes, and D2's window (row and lowest column of the edge bits).
  const int first_i = forward ? 0 : length - 1;
  const long long pixel_step = (forward ? 1 : -1) * (horizontal ? 1LL : static_cast<long long>(width));
  const long long first_pixel =
      horizontal ? static_cast<long long>(line) * width + first_i : static_cast<long long>(first_i) * width + line;
  const int lane_level = lane * V;
  const long long cell_step = pixel_step * levels;
  const long long first_cell = first_pixel * levels + lane_level;
  const int first_x = horizontal ? first_i : line;
  const int first_y = horizontal ? line : first_i;
  // The lane's lowest matched column at step 0 and its change per step (V consecutive bits
  // from there are the lane's levels, lowest column first).
  const int first_low = first_x + lane_offset + column_shift - (sign < 0 ? V - 1 : 0);
  const int low_step = horizontal ? (forward ? 1 : -1) : 0;
  const long long first_row = static_cast<long long>(first_y + row_shift) * words;
  const long long row_step = horizontal ? 0 : (forward ? words : -static_cast<long long>(words));
  const std::uint32_t* ref32 = reinterpret_cast<const std::uint32_t*>(ref);

  // Everything a step reads from memory, loaded AHEAD steps before the step runs and kept as
  // loaded (packed RGBA, edge words; fp16 costs up to 128 levels): the pixel's costs, the two
  // reference pixels of D1 (p and p - r, the path's previous pixel) and the two words of edge
  // bits around D2's window. Nothing waits on a load until the step that needs it; ncu had the
  // kernel stalled on the fp16-to-fp32 conversion right behind each load (a third of the
  // samples on Teddy, where one view's 1,650 warps leave most of the GPU idle and every step's
  // latency shows).
  // V > 4 (more than 128 levels) converts the costs at load time: at 1080p x 256 the kernel
  // is issue-bound with 24 warps per SM, and the fp16 ring measured 35 % slower there.
  // (With the vector loads, keeping V = 8 as loaded measured the same: 12.0 against 11.9 ms.)
  constexpr bool RAW = V <= 4;
  using Stored = std::conditional_t<RAW, __half, float>;
  // A level past the count costs +inf (fp16) or FLT_MAX from its load on: eq. 4 keeps it there
  // (x + y - z rounds back to it for finite y, z) and no neighbour's minimum takes it, so the
  // step tests no level against the count.
  const __half NO_LEVEL = __ushort_as_half(static_cast<unsigned short>(0x7C00u));
  struct Inputs {
    Stored c[V];
    std::uint32_t here, before;  // ref at p and at p - r (packed RGBA)
    std::uint32_t word0, word1;  // edge words w0 and w0 + 1 of D2's window
  };
  // The load cursor: step `load_step`'s first cell, pixel, edge row and lowest column.
  long long load_cell = first_cell, load_pixel = first_pixel, load_row = first_row;
  int load_low = first_low, load_step = 0;
  const auto load = [&](Inputs& in) {
    const __half* c = cost + load_cell;
    if constexpr (WHOLE) {
      using Word = typename LaneWords<V>::Word;
      Word words[lane_word_count<V>];
#pragma unroll
      for (int w = 0; w < lane_word_count<V>; ++w)
        words[w] = lane_level < levels ? reinterpret_cast<const Word*>(c)[w] : Word{};
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const __half h = level_of<V>(words, j);
        if constexpr (RAW)
          in.c[j] = lane_level < levels ? h : NO_LEVEL;
        else
          in.c[j] = lane_level < levels ? __half2float(h) : FLT_MAX;
      }
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        if constexpr (RAW)
          in.c[j] = lane_level + j < levels ? c[j] : NO_LEVEL;
        else
          in.c[j] = lane_level + j < levels ? __half2float(c[j]) : FLT_MAX;
      }
    }
    in.here = in.before = in.word0 = in.word1 = 0u;
    if (load_step > 0) {  // a path starts with C1: no D1, no D2
      in.here = __ldg(ref32 + load_pixel);
      in.before = __ldg(ref32 + (load_pixel - pixel_step));
      const std::uint32_t* row = bits + load_row;
      const int w0 = load_low >> 5;  // floor, also for negative columns
      in.word0 = (w0 >= 0 && w0 < words) ? __ldg(row + w0) : 0u;
      in.word1 = (w0 + 1 >= 0 && w0 + 1 < words) ? __ldg(row + w0 + 1) : 0u;
    }
    load_cell += cell_step;
    load_pixel += pixel_step;
    load_row += row_step;
    load_low += low_step;
    ++load_step;
  };
  // The step cursor: where `advance` writes, and D2's window position.
  long long step_cell = first_cell;
  int step_low = first_low;

  // One step of eq. 4 at `step` with its inputs.
  const auto advance = [&](int step, const Inputs& in) {
    if (step == 0) {
#pragma unroll
      for (int j = 0; j < V; ++j) cur[j] = lane_level + j < levels ? float(in.c[j]) : FLT_MAX;  // C1
    } else {
      const uchar4 p = *reinterpret_cast<const uchar4*>(&in.here);
      const uchar4 q = *reinterpret_cast<const uchar4*>(&in.before);
      const int d1 = max_channel_difference(p, q);
      // Levels lane * V - 1 and lane * V + V; none below level 0 or past the group's last lane
      // (a lane past the level count holds FLT_MAX, like the levels past it within a lane).
      const float below = __shfl_up_sync(FULL_MASK, prev[V - 1], 1, GROUP);
      const float above = __shfl_down_sync(FULL_MASK, prev[0], 1, GROUP);
      const float lowest = lane == 0 ? FLT_MAX : below;
      const float highest = lane == GROUP - 1 ? FLT_MAX : above;
      // D2 of the lane's levels: V consecutive bits from the lowest column they match (bits
      // lo .. lo + 31 of the row, 0 outside it), turned so that bit j is level lane V + j.
      const unsigned shift = static_cast<unsigned>(step_low & 31);
      const std::uint32_t window = __funnelshift_r(in.word0, in.word1, shift);
      const std::uint32_t d2 = sign < 0 ? __brev(window) >> (32 - V) : window;
      // Cases 1-4 of Sec. 2.3 by edge count (case 4 read as Pi2 / 10 for P2, as the reference
      // reads it); D1's share is fixed for the step, D2 picks between two pairs per level.
      // min(a + p, b + p) = min(a, b) + p exactly (rounding is monotonic), so the neighbours'
      // minimum takes one addition a level and prev_min + P2 two a step, with the same bits.
      const bool e1 = d1 >= tau_so;
      const float p1_no = e1 ? pen.p1[1] : pen.p1[0], p1_edge = e1 ? pen.p1[2] : pen.p1[1];
      const float jump_no = prev_min + (e1 ? pen.p2[1] : pen.p2[0]);
      const float jump_edge = prev_min + (e1 ? pen.p2[2] : pen.p2[1]);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const bool edge = (d2 >> j) & 1u;
        const float next = fminf(j > 0 ? prev[j - 1] : lowest, j + 1 < V ? prev[j + 1] : highest);
        const float best = fminf(fminf(prev[j], edge ? jump_edge : jump_no), next + (edge ? p1_edge : p1_no));
        cur[j] = float(in.c[j]) + best - prev_min;  // eq. 4
      }
    }
    __half* o = out + step_cell;
    step_cell += cell_step;
    step_low += low_step;
    if constexpr (WHOLE) {
      using Word = typename LaneWords<V>::Word;
      Word words[lane_word_count<V>];
      constexpr int PARTS = int(sizeof(Word)) / 4;
#pragma unroll
      for (int i = 0; i < V / 2; ++i)
        set_part(words[i / PARTS], i % PARTS,
                 unsigned(__half_as_ushort(__float2half_rn(cur[2 * i]))) |
                     unsigned(__half_as_ushort(__float2half_rn(cur[2 * i + 1]))) << 16);
      if (stores && lane_level < levels) {
#pragma unroll
        for (int w = 0; w < lane_word_count<V>; ++w) reinterpret_cast<Word*>(o)[w] = words[w];
      }
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (stores && lane_level + j < levels) o[j] = __float2half_rn(cur[j]);
    }
    // The lane's minimum as a tree (log2 V dependent steps instead of V; min is exact, so any
    // order gives the same value), then the group's.
    float t[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      t[j] = cur[j];
      prev[j] = cur[j];
    }
#pragma unroll
    for (int w = V / 2; w > 0; w /= 2)
#pragma unroll
      for (int j = 0; j < w; ++j) t[j] = fminf(t[j], t[j + w]);
    prev_min = group_min<GROUP>(t[0]);
  };

  // The inputs of the next AHEAD pixels are in flight while a step computes: one step (~100s
  // of cycles) does not cover a DRAM load, a few do. The ring is indexed by compile-time u only
  // (the inner loop unrolls), so it stays in registers.
  constexpr int AHEAD = V <= 4 ? 4 : (V <= 8 ? 2 : 1);
  Inputs ring[AHEAD];
#pragma unroll
  for (int u = 0; u < AHEAD; ++u)
    if (u < length) load(ring[u]);
  for (int base = 0; base < length; base += AHEAD) {
#pragma unroll
    for (int u = 0; u < AHEAD; ++u) {
      const int step = base + u;
      if (step >= length) break;
      const Inputs in = ring[u];
      if (step + AHEAD < length) load(ring[u]);
      advance(step, in);
    }
  }
}

template <int V, int GROUP = WARP>
void launch_paths(const DeviceVolume& cost, const uchar4* ref, const DeviceImage<std::uint32_t>& edges,
                  const AdCensusParams& params, int sign, const Paths& paths, cudaStream_t stream) {
  Penalties pen{};
  for (int e = 0; e < 3; ++e) {
    pen.p1[e] = params.pi1 / stereo::adcensus::penalty_divisor(e);
    pen.p2[e] = params.pi2 / stereo::adcensus::penalty_divisor(e);
  }
  const int lines = cost.width > cost.height ? cost.width : cost.height;
  const auto launch = [&](auto kernel) {
    kernel<<<dim3(unsigned(div_up(lines, PATH_WARPS * (WARP / GROUP))), 4u), WARP * PATH_WARPS, 0, stream>>>(
        reinterpret_cast<const __half*>(cost.get()), ref, edges.get(), edge_words_per_row(cost.width), cost.width,
        cost.height, cost.range.count, cost.range.min, sign, pen, params.tau_so, paths);
  };
  if (cost.range.count % V == 0) launch(path_kernel<V, true, GROUP>);
  else launch(path_kernel<V, false, GROUP>);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void scanline_paths(const DeviceVolume& cost, const RgbPair& rgb, const AdCensusParams& params, bool right_view,
                    PathVolumes& paths, cudaStream_t stream) {
  const int levels = cost.range.count;
  const uchar4* ref = right_view ? rgb.right.get() : rgb.left.get();
  const uchar4* other = right_view ? rgb.left.get() : rgb.right.get();
  const int sign = right_view ? +1 : -1;
  const int words = edge_words_per_row(cost.width);
  if (paths.edges.width != words || paths.edges.height != 2 * cost.height)
    paths.edges = DeviceImage<std::uint32_t>(words, 2 * cost.height, "adcensus/cuda scanline_optimize", "edge bits");
  {
    constexpr int THREADS = 64;
    edge_bits_kernel<<<dim3(unsigned(div_up(words, THREADS)), unsigned(cost.height)), THREADS, 0, stream>>>(
        other, cost.width, cost.height, words, params.tau_so, paths.edges.get());
    CUDA_CHECK_LAUNCH();
  }
  const Paths p = path_pointers(paths);
  if (levels <= 16) launch_paths<4, 4>(cost, ref, paths.edges, params, sign, p, stream);
  else if (levels <= 32) launch_paths<4, 8>(cost, ref, paths.edges, params, sign, p, stream);
  else if (levels <= 64) launch_paths<2, WARP>(cost, ref, paths.edges, params, sign, p, stream);
  else if (levels <= 128) launch_paths<4>(cost, ref, paths.edges, params, sign, p, stream);
  else if (levels <= 256) launch_paths<16, 16>(cost, ref, paths.edges, params, sign, p, stream);
  else if (levels <= 512) launch_paths<16>(cost, ref, paths.edges, params, sign, p, stream);
  else launch_paths<32>(cost, ref, paths.edges, params, sign, p, stream);
}

}  // namespace stereo::cu::adcensus
