// Stage 7: multi-step refinement (Sec. 2.4), one kernel per step, each mirroring its
// reference/adcensus_refine.cpp twin operation for operation (the same float and double
// expressions), so the maps agree bit for bit given the same inputs. Every kernel reads its
// input maps and writes separate outputs: no pixel sees a neighbour updated in the same pass.

#include <cuda_fp16.h>

#include "cuda/shared/lr_consistency.cuh"
#include "cuda/shared/colour_difference.cuh"
#include "methods/adcensus/cuda/stages.h"
#include "methods/adcensus/model.h"

namespace stereo::cu::adcensus {
namespace {

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;
constexpr int WARP = 32;
constexpr int VOTE_WARPS = 8;  // pixels per block, each with its own histogram
constexpr unsigned FULL_MASK = 0xFFFFFFFFu;
namespace model = stereo::adcensus;  // methods/adcensus/model.h

constexpr std::uint8_t RELIABLE = std::uint8_t(model::OutlierKind::reliable);
constexpr std::uint8_t OCCLUSION = std::uint8_t(model::OutlierKind::occlusion);
constexpr std::uint8_t MISMATCH = std::uint8_t(model::OutlierKind::mismatch);

// The model's 16 directions in constant memory: the lanes of a pixel index them by their own
// direction, a dynamic index (a __constant__ array cannot be initialised from another array,
// hence the struct and its constant-evaluated copy).
struct Directions {
  int dxdy[model::INTERPOLATION_DIRECTION_COUNT][2];
};
constexpr Directions model_directions() {
  Directions d{};
  for (int i = 0; i < model::INTERPOLATION_DIRECTION_COUNT; ++i)
    for (int j = 0; j < 2; ++j) d.dxdy[i][j] = model::INTERPOLATION_DIRECTIONS[i][j];
  return d;
}
__constant__ Directions DIRECTIONS = model_directions();

dim3 grid_for(int width, int height) {
  return dim3(unsigned(div_up(width, BLOCK_X)), unsigned(div_up(height, BLOCK_Y)));
}

// The level k of an integer disparity d inside the range, or -1 (reference level_index).
__device__ int level_index(float d, int min_d, int levels) {
  if (!isfinite(d) || d != floorf(d)) return -1;
  const int k = int(d) - min_d;
  return k >= 0 && k < levels ? k : -1;
}

// Whether level k of the left-view pixel x matches inside the right image (reference
// matched_in_image): outside it the volume holds out_of_image_cost, a constant.
__device__ bool matched_in_image(int x, int k, int min_d, int width) {
  const int xm = x - (min_d + k);
  return xm >= 0 && xm < width;
}

__device__ bool consistent(const float* __restrict__ right, int width, int x, int y, float d) {
  return lr_consistent(right, width, x, y, d);  // cuda/shared/lr_consistency.cuh
}

__global__ void lrc_kernel(const float* __restrict__ left, const float* __restrict__ right, int width, int height,
                           int min_d, int levels, std::uint8_t* __restrict__ outliers) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const std::size_t i = static_cast<std::size_t>(y) * width + x;
  if (consistent(right, width, x, y, left[i])) {
    outliers[i] = RELIABLE;
    return;
  }
  // Does the epipolar line of p meet D_R anywhere in the range? Where part of the line leaves
  // the right image, "no" is not established: a mismatch (reference left_right_check).
  bool meets = !(matched_in_image(x, 0, min_d, width) && matched_in_image(x, levels - 1, min_d, width));
  for (int k = 0; k < levels && !meets; ++k) meets = consistent(right, width, x, y, float(min_d + k));
  outliers[i] = meets ? MISMATCH : OCCLUSION;
}

__global__ void inf_kernel(const float* __restrict__ disparity, const std::uint8_t* __restrict__ outliers,
                           std::size_t pixels, float* __restrict__ out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  out[i] = outliers[i] == RELIABLE ? disparity[i] : __int_as_float(0x7F800000);
}

// A block takes VOTE_PIXELS consecutive pixels: every thread copies its pixel to the outputs
// and puts it on the block's list if it is an outlier; then each warp votes for the listed
// pixels in turn (the region's histogram in its own slice of shared memory). One warp per
// pixel of the image, as before, launched 2 M warps at 1080p for the 5-14 % of pixels that
// vote; the list keeps every warp busy. Its pointers stay restricted kernel parameters rather
// than members of one struct, which would lose the read-only loads (as path_kernel's did).
constexpr int VOTE_PIXELS = WARP * VOTE_WARPS;

__global__ void __launch_bounds__(WARP * VOTE_WARPS)
    vote_kernel(const float* __restrict__ disparity, const std::uint8_t* __restrict__ outliers,
                const uchar4* __restrict__ arms, int width, int height, int min_d, int levels, int tau_s,
                double tau_h, float* __restrict__ out_disparity, std::uint8_t* __restrict__ out_outliers) {
  extern __shared__ int histograms[];  // [VOTE_WARPS][levels]
  __shared__ int listed;
  __shared__ int list[VOTE_PIXELS];
  const int warp = static_cast<int>(threadIdx.x) / WARP;
  const int lane = static_cast<int>(threadIdx.x) % WARP;
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * VOTE_PIXELS;
  if (threadIdx.x == 0) listed = 0;
  __syncthreads();
  {
    const std::size_t i = first + threadIdx.x;
    if (i < pixels) {
      const std::uint8_t kind = outliers[i];
      out_disparity[i] = disparity[i];  // the result unless the vote below replaces it
      out_outliers[i] = kind;
      if (kind != RELIABLE) list[atomicAdd(&listed, 1)] = static_cast<int>(threadIdx.x);
    }
  }
  __syncthreads();
  int* histogram = histograms + static_cast<std::size_t>(warp) * levels;
  for (int entry = warp; entry < listed; entry += VOTE_WARPS) {
    const std::size_t i = first + static_cast<std::size_t>(list[entry]);
    const int y = static_cast<int>(i / static_cast<std::size_t>(width));
    const int x = static_cast<int>(i - static_cast<std::size_t>(y) * width);
    for (int k = lane; k < levels; k += WARP) histogram[k] = 0;
    __syncwarp();
    // The support region of Fig. 2: the horizontal arms of the pixels on p's vertical arm.
    const uchar4 a = arms[i];
    int total = 0;
    for (int qy = y - a.z; qy <= y + a.w; ++qy) {
      const std::size_t row = static_cast<std::size_t>(qy) * width;
      const uchar4 q = arms[row + x];
      for (int qx = x - q.x + lane; qx <= x + q.y; qx += WARP) {
        if (outliers[row + qx] != RELIABLE) continue;
        const int k = level_index(disparity[row + qx], min_d, levels);
        if (k < 0) continue;
        atomicAdd(&histogram[k], 1);
        ++total;
      }
    }
    __syncwarp();
    for (int offset = WARP / 2; offset > 0; offset /= 2) total += __shfl_xor_sync(FULL_MASK, total, offset);
    // The fullest bin, the smallest k on a tie.
    int best_count = -1;
    int best_k = levels;
    for (int k = lane; k < levels; k += WARP)
      if (histogram[k] > best_count) {
        best_count = histogram[k];
        best_k = k;
      }
    for (int offset = WARP / 2; offset > 0; offset /= 2) {
      const int c = __shfl_xor_sync(FULL_MASK, best_count, offset);
      const int k = __shfl_xor_sync(FULL_MASK, best_k, offset);
      if (c > best_count || (c == best_count && k < best_k)) {
        best_count = c;
        best_k = k;
      }
    }
    // Eq. 6 as the reference writes it: S_p > tau_S and H_p(d*) > tau_H S_p, in double.
    if (lane == 0 && total > tau_s && double(best_count) > tau_h * double(total)) {
      out_disparity[i] = float(min_d + best_k);
      out_outliers[i] = RELIABLE;
    }
    __syncwarp();  // the histogram is read before the next entry clears it
  }
}

// 8 lanes a pixel, two directions each (d and d + 8), so the 16 walks of an outlier run 8 side by
// side: a walk is a chain of dependent loads (each step reads the outlier map before it knows
// whether to go on), and one thread walking all 16 in turn made the kernel latency-bound (ncu on
// Teddy: 18 % of the warps active, 71 us). 16 lanes a pixel measured faster on Teddy (42 us)
// but slower at 1080p (0.25 -> 0.30 ms: 16 threads for every reliable pixel too). The lanes'
// findings are reduced in the reference's order: occlusions take the smallest disparity;
// mismatches the closest colour, the earlier direction on a tie (the reference keeps the
// first strictly closer one).
constexpr int INTERPOLATION_THREADS = 256;  // 32 pixels a block
constexpr int PIXEL_LANES = 8;
constexpr int WALK_AHEAD = 8;

__global__ void __launch_bounds__(INTERPOLATION_THREADS)
    interpolation_kernel(const float* __restrict__ disparity, const std::uint8_t* __restrict__ outliers,
                         const uchar4* __restrict__ rgb, int width, int height, float* __restrict__ out_disparity,
                         std::uint8_t* __restrict__ out_outliers) {
  const int lane = static_cast<int>(threadIdx.x) % PIXEL_LANES;
  const std::size_t i = (static_cast<std::size_t>(blockIdx.x) * INTERPOLATION_THREADS + threadIdx.x) / PIXEL_LANES;
  if (i >= static_cast<std::size_t>(width) * height) return;  // the pixel's lanes leave together
  const unsigned group = 0xFFu << (threadIdx.x & 24u);         // this pixel's eighth of the warp
  const int y = static_cast<int>(i / static_cast<std::size_t>(width));
  const int x = static_cast<int>(i - static_cast<std::size_t>(y) * width);
  const std::uint8_t kind = outliers[i];
  if (lane == 0) {
    out_disparity[i] = disparity[i];
    out_outliers[i] = kind;
  }
  if (kind == RELIABLE) return;  // uniform over the pixel's lanes
  float found = __int_as_float(0x7F800000);
  int key = 0x7FFFFFFF;  // mismatch: colour difference x 16 + direction; none: the largest
  for (int dir = lane; dir < model::INTERPOLATION_DIRECTION_COUNT; dir += PIXEL_LANES) {
    const int dx = DIRECTIONS.dxdy[dir][0];
    const int dy = DIRECTIONS.dxdy[dir][1];
    // The walk reads WALK_AHEAD steps' outlier flags at once, then takes the first reliable one
    // before the border: the same pixel as one step at a time, but a run of outliers costs one
    // load latency per WALK_AHEAD steps instead of one per step (the walks through Teddy's
    // outlier regions, a new row of the map per step, had made the kernel 83 us on the H100).
    int found_at = -1;  // the index of the first reliable pixel, or -1 at the border
    for (int step = 1; found_at < 0; step += WALK_AHEAD) {
      std::uint8_t kinds[WALK_AHEAD];
      int at[WALK_AHEAD];
#pragma unroll
      for (int u = 0; u < WALK_AHEAD; ++u) {
        const int qx = x + (step + u) * dx / 2;  // truncating division, as in the reference
        const int qy = y + (step + u) * dy / 2;
        const bool inside = qx >= 0 && qy >= 0 && qx < width && qy < height;
        at[u] = inside ? qy * width + qx : -1;
        kinds[u] = inside ? outliers[at[u]] : RELIABLE;
      }
      bool border = false;
#pragma unroll
      for (int u = WALK_AHEAD - 1; u >= 0; --u) {  // the earliest step decides: scan backwards
        if (at[u] < 0) {
          border = true;
          found_at = -1;
        } else if (kinds[u] == RELIABLE) {
          border = false;
          found_at = at[u];
        }
      }
      if (border) break;
    }
    if (found_at >= 0) {
      const std::size_t q = static_cast<std::size_t>(found_at);
      const float d = disparity[q];
      if (kind == OCCLUSION) {
        found = fminf(found, d);  // the background: the smallest disparity
      } else {
        const int k = max_channel_difference(rgb[q], rgb[i]) * 16 + dir;
        if (k < key) {
          key = k;
          found = d;
        }
      }
    }
  }
  for (int offset = PIXEL_LANES / 2; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(group, found, offset);
    const int other_key = __shfl_xor_sync(group, key, offset);
    if (kind == OCCLUSION) {
      found = fminf(found, other);
    } else if (other_key < key) {
      key = other_key;
      found = other;
    }
  }
  if (lane == 0 && isfinite(found)) {
    out_disparity[i] = found;
    out_outliers[i] = RELIABLE;
  }
}

__global__ void adjustment_kernel(const float* __restrict__ disparity, const __half* __restrict__ cost, int width,
                                  int height, int min_d, int levels, float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const std::size_t i = static_cast<std::size_t>(y) * width + x;
  const float d = disparity[i];
  out[i] = d;
  const int k = level_index(d, min_d, levels);
  // No C2(p, D(p)) to undercut where p's own match leaves the right image (reference).
  if (k < 0 || !matched_in_image(x, k, min_d, width)) return;
  // All the edges (reference::discontinuity_adjustment): crossed horizontally -> the left and
  // right neighbours are candidates, vertically -> the upper and lower, both -> all four.
  const bool across_x = (x > 0 && fabsf(disparity[i - 1] - d) >= 1.0f) ||
                        (x + 1 < width && fabsf(disparity[i + 1] - d) >= 1.0f);
  const bool across_y = (y > 0 && fabsf(disparity[i - width] - d) >= 1.0f) ||
                        (y + 1 < height && fabsf(disparity[i + width] - d) >= 1.0f);
  if (!across_x && !across_y) return;
  const __half* c = cost + i * static_cast<std::size_t>(levels);
  float best_cost = __half2float(c[k]);
  float best = d;
  for (int n = 0; n < 4; ++n) {  // left, right, up, down: the earlier keeps a tie
    const int dx = n == 0 ? -1 : (n == 1 ? 1 : 0);
    const int dy = n == 2 ? -1 : (n == 3 ? 1 : 0);
    if (!(n < 2 ? across_x : across_y)) continue;
    const int qx = x + dx;
    const int qy = y + dy;
    if (qx < 0 || qy < 0 || qx >= width || qy >= height) continue;
    const float dq = disparity[static_cast<std::size_t>(qy) * width + qx];
    const int kq = level_index(dq, min_d, levels);
    if (kq < 0 || !matched_in_image(x, kq, min_d, width)) continue;
    const float cq = __half2float(c[kq]);
    if (cq < best_cost) {
      best_cost = cq;
      best = dq;
    }
  }
  out[i] = best;
}

__global__ void subpixel_kernel(const float* __restrict__ disparity, const __half* __restrict__ cost,
                                std::size_t pixels, int width, int min_d, int levels, float* __restrict__ out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const float d = disparity[i];
  out[i] = d;
  const int k = level_index(d, min_d, levels);
  if (k < 1 || k + 1 >= levels) return;
  const int x = static_cast<int>(i % static_cast<std::size_t>(width));
  if (!matched_in_image(x, k - 1, min_d, width) || !matched_in_image(x, k + 1, min_d, width)) return;
  const __half* c = cost + i * static_cast<std::size_t>(levels);
  const double c_minus = __half2float(c[k - 1]);
  const double c_mid = __half2float(c[k]);
  const double c_plus = __half2float(c[k + 1]);
  // Eq. 7 interpolates a cost minimum: only where d is one (as the reference decides). The
  // denominator is then positive and the vertex within half a level of d. 2.0 * c_mid is exact,
  // so a contracted fma(-2, c_mid, .) rounds as the reference's separate multiply and subtract.
  if (!(c_mid < c_minus && c_mid < c_plus)) return;
  const double offset = (c_plus - c_minus) / (2.0 * (c_plus + c_minus - 2.0 * c_mid));
  out[i] = float(double(d) - offset);  // eq. 7
}

template <class A, class B>
void require_same(const A& a, const B& b, const char* stage) {
  require(a.width == b.width && a.height == b.height,
          [&] { return std::string("adcensus/cuda ") + stage + ": maps must have one size"; });
}

}  // namespace

void left_right_check(const DeviceImage<float>& left_disparity, const DeviceImage<float>& right_disparity,
                      DisparityRange range, DeviceImage<std::uint8_t>& outliers, cudaStream_t stream) {
  require_same(left_disparity, right_disparity, "left_right_check");
  require_same(left_disparity, outliers, "left_right_check");
  const int w = left_disparity.width;
  const int h = left_disparity.height;
  lrc_kernel<<<grid_for(w, h), dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(left_disparity.get(), right_disparity.get(), w, h,
                                                                    range.min, range.count, outliers.get());
  CUDA_CHECK_LAUNCH();
}

void with_outliers_as_inf(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& outliers,
                          DeviceImage<float>& out, cudaStream_t stream) {
  require_same(disparity, outliers, "with_outliers_as_inf");
  require_same(disparity, out, "with_outliers_as_inf");
  const std::size_t pixels = disparity.count();
  inf_kernel<<<static_cast<unsigned>((pixels + 255) / 256), 256, 0, stream>>>(disparity.get(), outliers.get(), pixels,
                                                                              out.get());
  CUDA_CHECK_LAUNCH();
}

void region_voting_iteration(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& outliers,
                             const DeviceImage<uchar4>& arms, DisparityRange range, const AdCensusParams& params,
                             DeviceImage<float>& out_disparity, DeviceImage<std::uint8_t>& out_outliers,
                             cudaStream_t stream) {
  require_same(disparity, outliers, "region_voting");
  require_same(disparity, arms, "region_voting");
  require_same(disparity, out_disparity, "region_voting");
  require_same(disparity, out_outliers, "region_voting");
  require(out_disparity.get() != disparity.get() && out_outliers.get() != outliers.get(),
          "adcensus/cuda region_voting: outputs must differ from the inputs");
  require(range.count >= 1 && range.count <= MAX_LEVELS, [&] {
    return "adcensus/cuda region_voting: " + std::to_string(range.count) + " levels; histograms hold 1.." +
           std::to_string(MAX_LEVELS);
  });
  const std::size_t pixels = disparity.count();
  const std::size_t bytes = static_cast<std::size_t>(VOTE_WARPS) * static_cast<std::size_t>(range.count) * sizeof(int);
  vote_kernel<<<blocks_1d(pixels, VOTE_PIXELS, "adcensus/cuda region_voting"), WARP * VOTE_WARPS, bytes, stream>>>(
      disparity.get(), outliers.get(), arms.get(), disparity.width, disparity.height, range.min, range.count,
      params.tau_s, double(params.tau_h), out_disparity.get(), out_outliers.get());
  CUDA_CHECK_LAUNCH();
}

void region_voting(DeviceImage<float>& disparity, DeviceImage<std::uint8_t>& outliers, const DeviceImage<uchar4>& arms,
                   DisparityRange range, const AdCensusParams& params, DeviceImage<float>& scratch_disparity,
                   DeviceImage<std::uint8_t>& scratch_outliers, cudaStream_t stream) {
  for (int i = 0; i < params.voting_iterations; ++i) {
    region_voting_iteration(disparity, outliers, arms, range, params, scratch_disparity, scratch_outliers, stream);
    std::swap(disparity, scratch_disparity);
    std::swap(outliers, scratch_outliers);
  }
}

void proper_interpolation(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& outliers,
                          const DeviceImage<uchar4>& rgb, DeviceImage<float>& out_disparity,
                          DeviceImage<std::uint8_t>& out_outliers, cudaStream_t stream) {
  require_same(disparity, outliers, "proper_interpolation");
  require_same(disparity, rgb, "proper_interpolation");
  require_same(disparity, out_disparity, "proper_interpolation");
  require_same(disparity, out_outliers, "proper_interpolation");
  require(out_disparity.get() != disparity.get() && out_outliers.get() != outliers.get(),
          "adcensus/cuda proper_interpolation: outputs must differ from the inputs");
  const int w = disparity.width;
  const int h = disparity.height;
  require_int_pixels(w, h, "adcensus/cuda proper_interpolation");  // the walks index pixels in int
  const std::size_t threads = static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * PIXEL_LANES;
  interpolation_kernel<<<blocks_1d(threads, INTERPOLATION_THREADS, "adcensus/cuda proper_interpolation"),
                         INTERPOLATION_THREADS, 0, stream>>>(
      disparity.get(), outliers.get(), rgb.get(), w, h, out_disparity.get(), out_outliers.get());
  CUDA_CHECK_LAUNCH();
}

void discontinuity_adjustment(const DeviceImage<float>& disparity, const DeviceVolume& cost, DeviceImage<float>& out,
                              cudaStream_t stream) {
  require_same(disparity, cost, "discontinuity_adjustment");
  require_same(disparity, out, "discontinuity_adjustment");
  require(out.get() != disparity.get(), "adcensus/cuda discontinuity_adjustment: output must differ from the input");
  const int w = disparity.width;
  const int h = disparity.height;
  adjustment_kernel<<<grid_for(w, h), dim3(BLOCK_X, BLOCK_Y), 0, stream>>>(
      disparity.get(), reinterpret_cast<const __half*>(cost.get()), w, h, cost.range.min, cost.range.count, out.get());
  CUDA_CHECK_LAUNCH();
}

void subpixel_enhancement(const DeviceImage<float>& disparity, const DeviceVolume& cost, DeviceImage<float>& out,
                          cudaStream_t stream) {
  require_same(disparity, cost, "subpixel_enhancement");
  require_same(disparity, out, "subpixel_enhancement");
  const std::size_t pixels = disparity.count();
  subpixel_kernel<<<static_cast<unsigned>((pixels + 255) / 256), 256, 0, stream>>>(
      disparity.get(), reinterpret_cast<const __half*>(cost.get()), pixels, disparity.width, cost.range.min,
      cost.range.count, out.get());
  CUDA_CHECK_LAUNCH();
}


}  // namespace stereo::cu::adcensus
