// Eq. 3-7 into the DSI: for every pixel p = (x, y) and level k (d = range.min + k),
//   S = L_w(x) + R_w(x - d), A = L_w(x) - R_w(x - d) for each wavelet w (complex s + i a),
//   E_S = sum(|Re S| - |Im S|) / sum |S|,   E_A = sum(|Im A| - |Re A|) / sum |A|,   E = E_A E_S.
//
// The paper's Fig. 1 mapping, carried one step further. A block covers 64 pixels x 32 levels of
// one row (the range's last tile: 8, 16, 24 or 32 levels, whichever covers its rest). The left view's responses of those 64 pixels are what every level of the block reads
// (the paper keeps them in shared memory); here the right view's 64 + 31 responses the block's
// levels reach are staged in shared memory too, a chunk of 16 wavelets at a time, because each
// is read by up to 32 (x, d) pairs with the same x - d. Each thread then holds a 4 x 4 tile of
// (x, d) pairs in registers (x = x0 + tx + 16 i, k = k0 + td + 8 j): 4 left and 10 right values
// per wavelet feed 16 pairs, so shared-memory traffic is 14 loads per 16 pairs instead of 2 per
// pair. The x spacing of 16 keeps each half-warp's 64-bit loads on consecutive addresses (no
// bank conflicts).
//
// The work per (pair, wavelet) is ~14 fp32 operations and 2 square roots; the square roots go to
// the SFU (16 per clock per SM against 128 fp32 lanes): about 16 issued instructions and 2 SFU
// operations per (pair, wavelet), so issue and SFU limits are about equal (NOTES.md). Sums are
// fp32 over <= 256 terms.
//
// The right view's responses are mirrored (computed on the flipped image): R(q) is read at
// W-1-q, which is Algorithm 1's step 8 without a pass over N complex images.

#include <string>

#include "methods/symstereo/cuda/stages.h"
#include "methods/symstereo/model.h"
#include "methods/symstereo/params.h"

namespace stereo::cu::symstereo {
namespace {

constexpr int TX = 16;               // threads along x
constexpr int TD = 8;                // threads along the levels
constexpr int PX = 4;                // pixels per thread (stride TX)
constexpr int PD_MAX = 4;            // levels per thread (stride TD) in a full level tile
constexpr int BX = TX * PX;          // 64 pixels per block
constexpr int BD_MAX = TD * PD_MAX;  // 32 levels per full level tile
constexpr int RIGHT_PAD = BX + BD_MAX;  // row pitch in shared memory (>= the 95 a full tile reaches)
constexpr int KC = 16;               // wavelets staged per chunk
constexpr int THREADS = TX * TD;     // 128
constexpr int LEFT_ROWS = THREADS / BX;  // wavelets whose left responses one pass of the block stages
static_assert(THREADS % BX == 0 && KC % LEFT_ROWS == 0 && BX + BD_MAX - 1 <= THREADS, "staging layout");

// |re + i im| with one SFU instruction: sqrt.approx is MUFU.SQRT on sm_75 and later (relative
// error about 2^-23, zero at zero), where sqrtf would be the IEEE-rounded multi-instruction
// sequence and v * rsqrt(v) two instructions and a clamp away from zero.
__device__ __forceinline__ float magnitude(float re, float im) {
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fmaf(re, re, im * im)));
  return r;
}

// One block's tile: 64 pixels x TD * PD levels from level k0. The last level tile of a range
// whose count is not a multiple of 32 runs with PD = ceil(rest / 8) < 4, so it computes at
// most 7 unused levels instead of up to 31 (170 levels: 176 computed instead of 192; 69: 72
// instead of 96; Table 2's 7: 8 instead of 32). The x - d offsets of a thread's pairs are
// 16 i - 8 j = 8 m, m = 2i - j in -(PD-1)..6: RM right values feed its PX x PD pairs.
template <int PD>
__device__ __forceinline__ void energy_tile(float2 (&left_s)[KC][BX], float2 (&right_s)[KC][RIGHT_PAD],
                                            const float2* __restrict__ left,
                                            const float2* __restrict__ right_mirrored, int width, int height,
                                            int row_pitch, std::size_t wavelet_pitch, int wavelets,
                                            int min_disparity, int levels, int k0, float* __restrict__ dsi) {
  constexpr int BD = TD * PD;
  constexpr int RIGHT = BX + BD - 1;  // right-view responses the tile reaches
  constexpr int RM = 2 * (PX - 1) + (PD - 1) + 1;
  const int tx = int(threadIdx.x) % TX;
  const int td = int(threadIdx.x) / TX;
  const int x0 = int(blockIdx.x) * BX;
  const int y = int(blockIdx.z);
  // q of right_s[.][0]: the smallest x - d of the tile, x0 - (range.min + k0 + BD - 1).
  const int q_base = x0 - (min_disparity + k0 + BD - 1);
  const std::size_t plane = std::size_t(width) * std::size_t(height);

  // A tile wholly outside the right image (x - d < 0 for its largest x and smallest d, or
  // >= W for the opposite corner) only writes the out-of-image value: at 1024 x 768 with 170
  // levels that is 6 of every 96 tiles.
  if (x0 + BX - 1 - (min_disparity + k0) < 0 || q_base >= width) {
#pragma unroll
    for (int j = 0; j < PD; ++j) {
      const int k = k0 + td + TD * j;
#pragma unroll
      for (int i = 0; i < PX; ++i) {
        const int x = x0 + tx + TX * i;
        if (k < levels && x < width)
          dsi[std::size_t(k) * plane + std::size_t(y) * std::size_t(width) + std::size_t(x)] = SYMSTEREO_OUT_OF_IMAGE;
      }
    }
    return;  // uniform over the block: before any barrier
  }

  float num_s[PX][PD], den_s[PX][PD], num_a[PX][PD], den_a[PX][PD];
#pragma unroll
  for (int i = 0; i < PX; ++i)
#pragma unroll
    for (int j = 0; j < PD; ++j) num_s[i][j] = den_s[i][j] = num_a[i][j] = den_a[i][j] = 0.0f;

  const std::size_t row = std::size_t(y) * std::size_t(row_pitch);
  for (int w0 = 0; w0 < wavelets; w0 += KC) {
    const int kc = min(KC, wavelets - w0);
    __syncthreads();  // the previous chunk is consumed
    // Staging with compile-time trip counts and no branch between the loads: every load reads
    // a valid address (a wavelet past the chunk's last re-reads the last, a position outside
    // the row reads its first value) and the value is chosen afterwards, so each thread has
    // its 8 left and up to 16 right loads in flight at once and a chunk costs about one L2
    // round trip, with no index division per element. Rows kk >= kc are staged but never read.
    {
      const int xx = int(threadIdx.x) % BX, x = x0 + xx;
      const bool inside = x < width;
      const float2* src = left + (std::size_t(w0) * wavelet_pitch + row + std::size_t(inside ? x : 0));
      float2 v[KC / LEFT_ROWS];
#pragma unroll
      for (int i = 0; i < KC / LEFT_ROWS; ++i) {
        const int kk = min(int(threadIdx.x) / BX + LEFT_ROWS * i, kc - 1);
        v[i] = src[std::size_t(kk) * wavelet_pitch];
      }
#pragma unroll
      for (int i = 0; i < KC / LEFT_ROWS; ++i)
        left_s[int(threadIdx.x) / BX + LEFT_ROWS * i][xx] = inside ? v[i] : float2{0, 0};
    }
    if (int(threadIdx.x) < RIGHT) {  // RIGHT <= 95 < THREADS: one position of every wavelet
      const int rr = int(threadIdx.x), q = q_base + rr;
      const bool inside = q >= 0 && q < width;
      const float2* src =
          right_mirrored + (std::size_t(w0) * wavelet_pitch + row + std::size_t(inside ? width - 1 - q : 0));
      float2 v[KC];
#pragma unroll
      for (int kk = 0; kk < KC; ++kk) v[kk] = src[std::size_t(min(kk, kc - 1)) * wavelet_pitch];
#pragma unroll
      for (int kk = 0; kk < KC; ++kk) right_s[kk][rr] = inside ? v[kk] : float2{0, 0};
    }
    __syncthreads();
#pragma unroll 2
    for (int kk = 0; kk < kc; ++kk) {
      float2 l[PX], r[RM];
#pragma unroll
      for (int i = 0; i < PX; ++i) l[i] = left_s[kk][tx + TX * i];
      // x - d = x0 + tx + 16 i - (min + k0 + td + 8 j); its index in right_s is
      // tx - td + (BD - 1) + 8 (2i - j).
#pragma unroll
      for (int m = 0; m < RM; ++m) r[m] = right_s[kk][tx - td + (BD - 1) + TD * (m - (PD - 1))];
#pragma unroll
      for (int i = 0; i < PX; ++i)
#pragma unroll
        for (int j = 0; j < PD; ++j) {
          const float2 rv = r[2 * i - j + (PD - 1)];
          const float s_sym = l[i].x + rv.x, a_sym = l[i].y + rv.y;    // eq. 3
          const float s_anti = l[i].x - rv.x, a_anti = l[i].y - rv.y;  // eq. 4
          num_s[i][j] += fabsf(s_sym) - fabsf(a_sym);                  // eq. 5
          den_s[i][j] += magnitude(s_sym, a_sym);
          num_a[i][j] += fabsf(a_anti) - fabsf(s_anti);  // eq. 6
          den_a[i][j] += magnitude(s_anti, a_anti);
        }
    }
  }
#pragma unroll
  for (int j = 0; j < PD; ++j) {
    const int k = k0 + td + TD * j;
    if (k >= levels) continue;
#pragma unroll
    for (int i = 0; i < PX; ++i) {
      const int x = x0 + tx + TX * i;
      if (x >= width) continue;
      const int q = x - (min_disparity + k);
      float e = SYMSTEREO_OUT_OF_IMAGE;
      if (q >= 0 && q < width)
        e = (num_a[i][j] / (den_a[i][j] + SYMSTEREO_EPSILON)) * (num_s[i][j] / (den_s[i][j] + SYMSTEREO_EPSILON));
      dsi[std::size_t(k) * plane + std::size_t(y) * std::size_t(width) + std::size_t(x)] = e;  // eq. 7
    }
  }
}

// The kernel's sizes: the responses' layout and the range (the pointers stay __restrict__
// parameters of the kernel).
struct EnergyShape {
  int width;
  int height;
  int row_pitch;
  std::size_t wavelet_pitch;
  int wavelets;
  int min_disparity;
  int levels;
};

// One kernel per tile height, so each gets its own register allocation (the four heights
// switched in one kernel took 156 registers, 3 blocks per SM, and spilled when held to 128).
// The bound of 4 blocks per SM (<= 128 registers: 122 for the full tile, 16 warps per SM) stops
// ptxas squeezing a short tile into 64 registers with spills (it did for PD = 2, nvcc 13.0).
// blockIdx.y counts level tiles from level k_first.
template <int PD>
__global__ void __launch_bounds__(THREADS, 4) energy_kernel(const float2* __restrict__ left,
                                                         const float2* __restrict__ right_mirrored, EnergyShape s,
                                                         int k_first, float* __restrict__ dsi) {
  __shared__ float2 left_s[KC][BX];
  __shared__ float2 right_s[KC][RIGHT_PAD];
  energy_tile<PD>(left_s, right_s, left, right_mirrored, s.width, s.height, s.row_pitch, s.wavelet_pitch, s.wavelets,
                  s.min_disparity, s.levels, k_first + int(blockIdx.y) * TD * PD, dsi);
}

template <int PD>
void launch(const float2* left, const float2* right_mirrored, const EnergyShape& shape, int k_first, int tiles,
            float* dsi, cudaStream_t stream) {
  const dim3 grid(unsigned(div_up(shape.width, BX)), unsigned(tiles), unsigned(shape.height));
  energy_kernel<PD><<<grid, THREADS, 0, stream>>>(left, right_mirrored, shape, k_first, dsi);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void energy(const DeviceResponses& responses, DisparityRange range, float* dsi, cudaStream_t stream) {
  const int width = responses.width, height = responses.height, wavelets = responses.wavelets;
  const int row_pitch = responses.row_pitch;
  const std::size_t wavelet_pitch = responses.wavelet_pitch;
  require(width >= 1 && height >= 1 && range.count >= 1 && wavelets >= 1 && wavelets <= MAX_WAVELETS, [&] {
    return "symstereo/cuda: energy: bad sizes " + std::to_string(width) + " x " + std::to_string(height) + ", " +
           std::to_string(range.count) + " levels, " + std::to_string(wavelets) + " wavelets";
  });
  require(height <= 65535,
          [&] { return "symstereo/cuda: energy: height " + std::to_string(height) + " exceeds the grid's 65535"; });
  require(row_pitch >= width && wavelet_pitch >= std::size_t(row_pitch) * std::size_t(height), [&] {
    return "symstereo/cuda: energy: wavelet pitch " + std::to_string(wavelet_pitch) + " is less than one image";
  });
  const auto* l = reinterpret_cast<const float2*>(responses.left);
  const auto* r = reinterpret_cast<const float2*>(responses.right_mirrored);
  const EnergyShape shape{width, height, row_pitch, wavelet_pitch, wavelets, range.min, range.count};
  // Full 32-level tiles, then one tile of the rest's height (ceil(rest / 8) x 8 levels).
  const int full_tiles = range.count / BD_MAX, rest = range.count - full_tiles * BD_MAX;
  if (full_tiles > 0) launch<4>(l, r, shape, 0, full_tiles, dsi, stream);
  const int k_rest = full_tiles * BD_MAX;
  switch (div_up(rest, TD)) {
    case 0: break;
    case 1: launch<1>(l, r, shape, k_rest, 1, dsi, stream); break;
    case 2: launch<2>(l, r, shape, k_rest, 1, dsi, stream); break;
    case 3: launch<3>(l, r, shape, k_rest, 1, dsi, stream); break;
    default: launch<4>(l, r, shape, k_rest, 1, dsi, stream); break;
  }
}

}  // namespace stereo::cu::symstereo
