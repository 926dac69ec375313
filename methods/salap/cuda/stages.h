#pragma once
/// \file methods/salap/cuda/stages.h
/// The SA-LAP stages on the GPU, one .cu per stage, named as in reference/salap.h so a test
/// can compare each stage with its CPU twin:
///
///   prepare.cu    pack_pair                    8-bit images -> one 32-bit word per pixel
///   pair_upload.cpp upload_pair                a host pair uploaded and packed (tests, set-up)
///   cost.cu       tad_cost                     D = min(|I_L - I_R(x-d)|, tau) / tau
///   aggregate.cu  filter_horizontal/vertical   one-sided truncated SA-LAP sums / F1
///   select.cu     window_cost, wta_update,     eq. 3-4, winner-takes-all, chunk merge
///                 merge_chunks
///   fused.cu      salap_fused                  all of the above for every d in one kernel
///                                              (its thread-level steps: fused_device.cuh)
///   fused_plan.cpp plan_fused, fused_tile_for  the tile that fits, the chunks of d (block
///                                              shapes shared with the kernel: fused_shape.h)
///
/// The per-stage functions are the plain, unfused path (one thread per pixel, direct sums):
/// slow, but simple enough to trust, and the matcher can run it (option path=stages). The
/// fused kernel is the fast path; tests compare it with both the stage path and reference/.
/// Costs are in the normalised units of methods/salap/params.h. All launches go on `stream`.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "cuda/common.h"
#include "core/disparity_range.h"
#include "core/image.h"
#include "methods/salap/model.h"
#include "methods/salap/params.h"

namespace stereo::cu::salap {

/// Which one-sided half of the kernel (methods/salap/model.h).
using stereo::salap::Side;

/// How a pixel's 32-bit word is read: the byte-wise |dRGB| sum (rgb_mean, 3 channels), the
/// grey byte (1 channel, either cost), or the float bits of BT.601 luma (luma, 3 channels).
enum class PixelCode { rgb, grey, luma };

/// The rectified pair on the device, one 32-bit word per pixel (see PixelCode).
struct DevicePair {
  int width = 0;
  int height = 0;
  PixelCode code = PixelCode::rgb;
  DeviceBuffer<std::uint32_t> left;
  DeviceBuffer<std::uint32_t> right;
};

/// The code the params and channel count call for.
PixelCode pixel_code(const SalapParams& params, int channels);

/// Both images of a pair as uploaded: interleaved 8-bit pixels in device memory, dense rows.
struct RawPair {
  const std::uint8_t* left = nullptr;
  const std::uint8_t* right = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;  ///< 1, 3 or 4
};

/// Packs interleaved 8-bit images (1, 3 or 4 channels; alpha dropped) already on the device.
void pack_pair(const RawPair& raw, PixelCode code, std::uint32_t* d_left_packed, std::uint32_t* d_right_packed,
               cudaStream_t stream);

/// Uploads (by the CUDA frame's cu::upload_pair) and packs a host pair (synchronous; for tests
/// and set-up; pair_upload.cpp).
DevicePair upload_pair(const ImageU8& left, const ImageU8& right, const SalapParams& params);

/// min(|I_L(x,y) - I_R(x-d,y)|, tau) / tau with clamp-to-edge on x-d (reference::tad_cost).
void tad_cost(const DevicePair& pair, int d, const SalapParams& params, DeviceImage<float>& out,
              cudaStream_t stream = nullptr);

/// sum_k cost[x -/+ k] w[k] / F1, k = 0..W, clamped columns (reference::filter_horizontal).
void filter_horizontal(const DeviceImage<float>& cost, Side side, const SalapParams& params,
                       DeviceImage<float>& out, cudaStream_t stream = nullptr);

/// sum_l cost[y -/+ l] w[l] / F1, l = 0..W, clamped rows (reference::filter_vertical).
void filter_vertical(const DeviceImage<float>& cost, Side side, const SalapParams& params,
                     DeviceImage<float>& out, cudaStream_t stream = nullptr);

/// Eq. 3-4 on the normalised quadrant costs (reference::window_cost).
void window_cost(const DeviceImage<float>& c0, const DeviceImage<float>& c1, const DeviceImage<float>& c2,
                 const DeviceImage<float>& c3, const SalapParams& params, DeviceImage<float>& out,
                 cudaStream_t stream = nullptr);

/// best_cost, disparity <- cost, d where cost < best_cost (strict: the smallest d wins ties).
/// Start with best_cost = +inf (reset_wta) before d = 0.
void reset_wta(DeviceImage<float>& best_cost, cudaStream_t stream = nullptr);
void wta_update(const DeviceImage<float>& cost, int d, DeviceImage<float>& best_cost,
                DeviceImage<float>& disparity, cudaStream_t stream = nullptr);

/// The whole method on the unfused stage path: every stage above for d = 0..levels-1.
struct StageBuffers {
  DeviceImage<float> tad, cl, cr, c0, c1, c2, c3, cost, best;
  StageBuffers(int width, int height);
};
void salap_stages(const DevicePair& pair, DisparityRange range, const SalapParams& params, StageBuffers& buffers,
                  DeviceImage<float>& disparity, cudaStream_t stream = nullptr);
inline void salap_stages(const DevicePair& pair, int levels, const SalapParams& params, StageBuffers& buffers,
                         DeviceImage<float>& disparity, cudaStream_t stream = nullptr) {
  salap_stages(pair, DisparityRange{0, levels}, params, buffers, disparity, stream);
}

// ---- the fused path ---------------------------------------------------------------------

/// True when the fused kernel has an instantiation for this window: W in {8, 16, 24, 32}.
bool fused_supports(const SalapParams& params);

/// The fused kernel's block shape. Both tiles give bit-identical maps (every recursion
/// block starts at the same absolute row and column; see fused.cu); they differ in shared
/// memory per block and in speed.
enum class FusedTile {
  wide,    ///< 256 threads, 32-row bands: the fast one; 95744 .. 137216 B for W = 8 .. 32
  narrow,  ///< 128 threads, 32-row bands: 46592 .. 63488 B, fits every GPU from Turing on
};

/// "wide" / "narrow".
const char* tile_name(FusedTile tile);
/// "wide (256 threads, 32-row bands)", for the params JSON.
std::string tile_description(FusedTile tile);
/// Dynamic shared memory one block of `tile` asks for at the params' W (fused_supports must hold).
std::size_t fused_shared_bytes(const SalapParams& params, FusedTile tile);
/// The fastest tile whose block fits in `smem_limit` bytes of shared memory (the device's
/// opt-in limit, shared_memory_optin_limit), or nothing: no fused kernel for this W, or none
/// fits (run the stage path).
std::optional<FusedTile> fused_tile_for(const SalapParams& params, std::size_t smem_limit);

/// The fused kernel's arithmetic. float32 is the method's (the reference's numbers up to
/// float rounding). half2 runs two levels per thread, one in each half of a __half2: every
/// shared-memory word and instruction serves two levels, at half precision (11-bit
/// significands) in the filters and eq. 3-4, so near ties can rank differently; the maps are
/// not those of float32 (NOTES.md has the measured agreement).
enum class FusedArithmetic {
  float32,
  half2,
};
/// "float" / "half".
const char* arithmetic_name(FusedArithmetic arithmetic);

/// How the fused kernel splits the image and the disparity range across blocks.
struct FusedPlan {
  int chunk = 0;   ///< levels per block (<= 256; even with half2 unless one chunk is all levels)
  int chunks = 0;  ///< blocks along z; each writes its own best (cost, d) plane
  FusedTile tile = FusedTile::wide;  ///< block shape
  FusedArithmetic arithmetic = FusedArithmetic::float32;
  [[nodiscard]] std::size_t key_count(int width, int height) const {
    return static_cast<std::size_t>(chunks) * static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  }
};

/// `requested_chunk` 0 picks a chunk that gives every SM several blocks of `tile`.
/// With half2, an automatic chunk is rounded up to an even count (each thread takes two levels).
/// `frames_overlap` (a stream, whose next frame's blocks fill this launch's last wave): the
/// chunk count for ~4 waves as it is, without trading more chunks for a fuller last wave.
FusedPlan plan_fused(int width, int height, int levels, const SalapParams& params, int requested_chunk,
                     FusedTile tile = FusedTile::wide, FusedArithmetic arithmetic = FusedArithmetic::float32,
                     bool frames_overlap = false);

/// TAD + both horizontal and both vertical one-sided filters + eq. 3-4 + a running WTA for
/// d in each chunk, without materialising any cost volume. Writes the per-chunk best
/// (order-preserving cost bits << 32 | d) to `d_keys` (plan.key_count() words).
/// Level index k searches disparity range.min + k (clamp-to-edge on both sides of I_R).
void salap_fused(const DevicePair& pair, DisparityRange range, const SalapParams& params, const FusedPlan& plan,
                 std::uint64_t* d_keys, cudaStream_t stream = nullptr);

/// Rows of one band of the fused kernel's tile (its blocks cover bands of this many rows).
int fused_band_rows(FusedTile tile);

/// salap_fused for bands first_band .. first_band + bands - 1 only (rows 32 b .. 32 b + 31 of
/// band b): they read packed rows from 32 first_band - W to 32 (first_band + bands) + W - 1
/// (clamped), and write the keys of their own rows, the same bits as the whole launch. What a
/// caller uses to start on the top of a frame while its bottom is still uploading.
void salap_fused_bands(const DevicePair& pair, DisparityRange range, const SalapParams& params, const FusedPlan& plan,
                       int first_band, int bands, std::uint64_t* d_keys, cudaStream_t stream = nullptr);

inline void salap_fused(const DevicePair& pair, int levels, const SalapParams& params, const FusedPlan& plan,
                        std::uint64_t* d_keys, cudaStream_t stream = nullptr) {
  salap_fused(pair, DisparityRange{0, levels}, params, plan, d_keys, stream);
}

/// disparity = d_min + the level index of the smallest key over the chunks (ties: the smallest d).
void merge_chunks(const std::uint64_t* d_keys, int chunks, int d_min, DeviceImage<float>& disparity,
                  cudaStream_t stream = nullptr);
inline void merge_chunks(const std::uint64_t* d_keys, int chunks, DeviceImage<float>& disparity,
                         cudaStream_t stream = nullptr) {
  merge_chunks(d_keys, chunks, 0, disparity, stream);
}

/// The level index of the smallest key over the chunks, as `Index` (std::uint8_t for up to
/// 256 levels, std::uint16_t for up to 65536): merge_chunks without the float conversion, for
/// the compact read-back (core/matcher.h DisparityMap). `count` = width * height.
template <class Index>
void merge_chunks_index(const std::uint64_t* d_keys, int chunks, std::size_t count, Index* d_index,
                        cudaStream_t stream = nullptr);
/// The same for pixels first .. first + count - 1 of key planes of `plane` pixels each (the
/// rows a band launch finished).
template <class Index>
void merge_chunks_index(const std::uint64_t* d_keys, int chunks, std::size_t plane, std::size_t first,
                        std::size_t count, Index* d_index, cudaStream_t stream = nullptr);

/// index = disparity - d_min for the stage path's float map (whole levels), as `Index`.
template <class Index>
void disparity_to_index(const DeviceImage<float>& disparity, int d_min, Index* d_index,
                        cudaStream_t stream = nullptr);

}  // namespace stereo::cu::salap
