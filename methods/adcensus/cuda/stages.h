#pragma once
/// \file methods/adcensus/cuda/stages.h
/// The AD-Census stages on the GPU (Mei et al., ICCV Workshops 2011), one .cu per stage, named
/// as in reference/adcensus.h and reference/adcensus_refine.h so a test can compare each stage
/// with its CPU twin:
///
///   census.cu     pack_rgb, grey_image, census_transform (9x7: 62 bits)
///   cost.cu       ad_census_cost                    eq. 1-3
///   cross.cu      cross_arms, region_sizes          Sec. 2.2 enhanced rules
///   aggregate.cu  aggregate_cost                    one H-V / V-H iteration: two arm-sum passes
///                 ad_census_cost_aggregated         eq. 1-3 fused into iteration 1, then the rest
///     arm_sum.cu        the arm-sum pass: a tile's 1D fixed-point integral (arm_sum.h, internal)
///     arm_sum_tiles.cu  the pass's tile size, shared memory and fixed-point scale
///   right_view.cu right_view_from_left              the right view's volume: the left's, skewed
///   scanline.cu   scanline_optimize, scanline_disparity   eq. 5 (the mean) and the fused WTA
///     scanline_paths.cu the four paths of eq. 4, a lane group per scanline (scanline_paths.cuh)
///   wta.cu        winner_takes_all                  smallest d wins a tie
///   refine.cu     left_right_check ... median_3x3   Sec. 2.4
///   memory.cu     uploads, downloads, poison        tests and set-up (fp16 <-> float)
///   adcensus_cuda.cpp  the matcher ("adcensus", "cuda")
///
/// What the paper specifies and the reference uses too (the census window, the arm order, the
/// penalty divisors, the outlier labels, the interpolation directions) is in
/// methods/adcensus/model.h.
///
/// Precision and layout (see NOTES.md): cost volumes are disparity fastest, like the
/// reference's CostVolume (index (y * W + x) * D + k), and store IEEE half precision (fp16)
/// values; every kernel computes in fp32 and rounds once when it stores. At 1920x1080x256 a
/// volume is 0.53 G cells: 1.06 GB in fp16 instead of 2.1 GB in fp32, which halves the bytes of
/// the memory-bound stages (aggregation and the scanline paths). The price is a relative
/// rounding error of at most 2^-11 per stored value. Indices into volumes are 64-bit.
///
/// Disparity maps are float images holding d itself (range.min + k), +inf where a stage marks
/// no disparity, as the reference does. All launches go on `stream`.

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cuda/common.h"
#include "core/disparity_range.h"
#include "core/image.h"
#include "methods/adcensus/model.h"
#include "methods/adcensus/params.h"

namespace stereo::cu::adcensus {

/// A cost volume on the device: fp16 bits (std::uint16_t so that host code need not include
/// cuda_fp16.h), disparity fastest.
struct DeviceVolume {
  int width = 0;
  int height = 0;
  DisparityRange range;
  DeviceBuffer<std::uint16_t> data;

  DeviceVolume() = default;
  DeviceVolume(int w, int h, DisparityRange r, const std::string& component, const std::string& what)
      : width(w), height(h), range(r), data(make_device_buffer<std::uint16_t>(cells(w, h, r.count), component, what)) {}
  [[nodiscard]] static std::size_t cells(int w, int h, int levels) {
    return static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(levels);
  }
  [[nodiscard]] std::size_t count() const { return cells(width, height, range.count); }
  [[nodiscard]] std::uint16_t* get() { return data.get(); }
  [[nodiscard]] const std::uint16_t* get() const { return data.get(); }
};

/// Largest disparity count the scanline kernel holds in registers (32 lanes x 32 levels).
constexpr int MAX_LEVELS = 1024;

// ---- test and set-up helpers (synchronous) -----------------------------------------------

/// A volume's cells as host floats (disparity fastest, DeviceVolume::cells(width, height,
/// range.count) of them) -> device fp16 (round to nearest even), and back. The fp16 conversion
/// lives here so that host code needs no cuda_fp16.h; the tests wrap these for the reference's
/// volumes (methods/adcensus/tests/cuda_stage_util.h).
DeviceVolume upload_volume(int width, int height, DisparityRange range, const std::vector<float>& cells);
std::vector<float> download_cells(const DeviceVolume& volume);
/// The same values rounded to fp16 and back: what a volume holds after upload_volume.
std::vector<float> round_to_half(std::vector<float> cells);
/// Fills with 0xFFFF (an fp16 NaN), so an unwritten cell cannot pass a test.
void poison(DeviceVolume& volume);

/// An interleaved 1-, 3- or 4-channel host image -> packed RGBA on the device (grey is
/// replicated, alpha dropped), so every kernel reads one 32-bit word per pixel.
DeviceImage<uchar4> upload_rgb(const ImageU8& image);
/// Single-channel images of other element types (census codes: one uint64 a pixel), and
/// 4-channel arms (adcensus::Arm order) as their uchar4 words.
DeviceImage<std::uint8_t> upload_u8(const ImageU8& image);
DeviceImage<std::uint64_t> upload_census(const Image<std::uint64_t>& image);
DeviceImage<uchar4> upload_arms(const Image<std::uint8_t>& arms);
ImageU8 download_u8(const DeviceImage<std::uint8_t>& image);
Image<std::uint64_t> download_census(const DeviceImage<std::uint64_t>& image);
Image<std::uint8_t> download_arms(const DeviceImage<uchar4>& arms);

// ---- stages ------------------------------------------------------------------------------

/// Interleaved 8-bit pixels already on the device (1, 3 or 4 channels) -> packed RGBA.
void pack_rgb(const std::uint8_t* d_pixels, int width, int height, int channels, DeviceImage<uchar4>& out,
              cudaStream_t stream = nullptr);

/// (77 R + 150 G + 29 B + 128) >> 8 (as reference::grey_image; a replicated grey is returned as is).
void grey_image(const DeviceImage<uchar4>& rgb, DeviceImage<std::uint8_t>& out, cudaStream_t stream = nullptr);

/// 9x7 census (model.h's window), bit i for neighbour i in row-major order (centre skipped),
/// clamp-to-edge.
void census_transform(const DeviceImage<std::uint8_t>& grey, DeviceImage<std::uint64_t>& out,
                      cudaStream_t stream = nullptr);

/// The two views' images on the device that the cost (eq. 1-3) reads: packed RGBA and census
/// codes, all of one size (as reference::CostImages on the host).
struct CostImages {
  const DeviceImage<uchar4>& left_rgb;
  const DeviceImage<uchar4>& right_rgb;
  const DeviceImage<std::uint64_t>& left_census;
  const DeviceImage<std::uint64_t>& right_census;
};

/// The two views' packed RGBA images (the scanline stage's D1 and D2 colour differences).
struct RgbPair {
  const DeviceImage<uchar4>& left;
  const DeviceImage<uchar4>& right;
};

/// Eq. 1-3 for every pixel and level into `out` (whose range is the one searched).
/// `right_view`: the right image is the reference and p is matched with p + d.
void ad_census_cost(const CostImages& images, const AdCensusParams& params, bool right_view, DeviceVolume& out,
                    cudaStream_t stream = nullptr);

/// Enhanced cross arms (Sec. 2.2), uchar4 = (left, right, up, down) (adcensus::Arm), as
/// reference::cross_arms.
void cross_arms(const DeviceImage<uchar4>& rgb, const AdCensusParams& params, DeviceImage<uchar4>& out,
                cudaStream_t stream = nullptr);

/// Pixel counts of every pixel's support region for both sum orders: `h_then_v` for
/// iterations 1 and 3 (sum over the vertical arm of the horizontal arm lengths), `v_then_h`
/// for 2 and 4. They do not depend on d, so aggregate_cost divides by them.
void region_sizes(const DeviceImage<uchar4>& arms, DeviceImage<float>& h_then_v, DeviceImage<float>& v_then_h,
                  cudaStream_t stream = nullptr);

/// p's own support region (reference::aggregate_cost without other_arms): its cross arms and
/// its pixel counts for both sum orders (region_sizes). `max_arm` bounds every arm (arm_l1 - 1):
/// it sizes the shared-memory halo, and longer arms are clipped to it.
struct OwnRegion {
  const DeviceImage<uchar4>& arms;
  const DeviceImage<float>& h_then_v;
  const DeviceImage<float>& v_then_h;
  int max_arm = 0;
};

/// Zhang et al.'s combined region (reference::aggregate_cost with other_arms): at level k every
/// arm is the shorter of p's (`arms`, this view) and pd's (`other_arms`, the other view; pd =
/// p - d, or p + d with `right_view`). `max_arm` as in OwnRegion.
struct CombinedRegion {
  const DeviceImage<uchar4>& arms;
  const DeviceImage<uchar4>& other_arms;
  bool right_view = false;
  int max_arm = 0;
};

/// The volumes an aggregation writes: the first 1D arm sum of an iteration goes to `scratch`,
/// the second to `out`. Both have the cost's size and range, and differ from each other.
struct AggregationVolumes {
  DeviceVolume& scratch;
  DeviceVolume& out;
};

/// One aggregation iteration (1-based, as reference::aggregate_cost): the first 1D arm sum
/// from `cost` into `to.scratch`, the second from there into `to.out`, divided by the region
/// size of that order. `to.out` may be `cost` (the iteration then runs in place of its input).
void aggregate_cost(const DeviceVolume& cost, const OwnRegion& region, int iteration, const AggregationVolumes& to,
                    cudaStream_t stream = nullptr);

/// Fused eq. 1-3 and aggregation iteration 1: `to.out` = aggregate_cost(ad_census_cost(...),
/// region, 1) without storing C (the first pass computes each cost as it loads it, in fp32).
/// `to.out`'s range is the one searched.
void ad_census_cost_aggregated(const CostImages& images, const AdCensusParams& params, bool right_view,
                               const OwnRegion& region, const AggregationVolumes& to, cudaStream_t stream = nullptr);

/// aggregate_cost over the combined region, as reference::aggregate_cost with other_arms:
/// the second pass divides by that region's pixel count, counted per (p, d) as it sums; where
/// pd lies outside the other image the region is p alone (the cell keeps its cost). The
/// matcher's choice.
void aggregate_cost(const DeviceVolume& cost, const CombinedRegion& region, int iteration, const AggregationVolumes& to,
                    cudaStream_t stream = nullptr);

/// The combined region's pixel count per (p, d) for each sum order, one 16-bit integer a cell
/// in a volume's layout: iterations 1 and 2 store them, 3 and 4 read them instead of counting
/// again (the count is the same for every iteration of an order: it depends on the arms only).
/// Exact while (2 max_arm + 1)^2 < 2^16; with longer arms every iteration counts.
struct RegionCounts {
  std::size_t cells = 0;
  DeviceBuffer<std::uint16_t> h_then_v, v_then_h;

  RegionCounts() = default;
  RegionCounts(std::size_t n, const std::string& component)
      : cells(n),
        h_then_v(make_device_buffer<std::uint16_t>(n, component, "the H-V region counts")),
        v_then_h(make_device_buffer<std::uint16_t>(n, component, "the V-H region counts")) {}
  /// Whether arms up to max_arm keep every count below 2^16 (else the counts go unused).
  static bool fit_16_bits(int max_arm);
};

/// Eq. 1-3 and `iterations` (>= 1) aggregation iterations over the combined region, as
/// reference::ad_census_cost followed by reference::aggregate_cost(..., other_arms, i,
/// right_view) for i = 1..iterations, for the view `region.right_view`, into `to.out` (whose
/// range is the one searched): C is never stored (the first pass of iteration 1 computes it in
/// fp32), the later iterations run in place on `to.out` with `to.scratch` between their two
/// passes. With `counts` (volume-sized) the counts of iterations 1 and 2 are kept for the later
/// ones. What the matcher runs.
void ad_census_cost_aggregated(const CostImages& images, const AdCensusParams& params, const CombinedRegion& region,
                               int iterations, const AggregationVolumes& to, cudaStream_t stream = nullptr,
                               RegionCounts* counts = nullptr);

/// reference::right_view_from_left: right(x, y, d) = left(x + d, y, d) where x + d lies inside
/// the image, else out_of_image_cost (rounded to fp16), for a cost or combined-region
/// aggregated left volume; a copy of fp16 values, so bit-exact. The matcher's right view:
/// its aggregation is the left one's, skewed (test: the right view's own aggregation, bit for
/// bit). right must have left's size and range and may not alias it.
void right_view_from_left(const DeviceVolume& left, float out_of_image_cost, DeviceVolume& right,
                          cudaStream_t stream = nullptr);

/// The four path volumes of eq. 4 (left-right, right-left, top-bottom, bottom-top); `paths`
/// holds four volumes of the cost's size. `edges` holds the other image's tau_SO edge bits
/// (edge_words_per_row words a row, two images of `height` rows: horizontal then vertical
/// neighbours); scanline_optimize sizes it on first use when it is empty (the matcher allocates
/// it with the volumes).
struct PathVolumes {
  DeviceVolume lr, rl, tb, bt;
  DeviceImage<std::uint32_t> edges;
};

/// 32-bit words of one row of edge bits for a `width`-wide image (one bit a pixel, and a word of
/// zeros after the last, so that any 64-bit window of the row can be read).
inline int edge_words_per_row(int width) { return (width + 31) / 32 + 1; }

/// Eq. 4 along the four directions into `paths`, then eq. 5 (their mean) into `out`, which
/// may be `cost` (the paths are complete before the mean overwrites it). When
/// `disparity` is not null the same pass also writes the winner of the fp32 mean (the fused
/// WTA; ties go to the smaller d) as range.min + k.
void scanline_optimize(const DeviceVolume& cost, const RgbPair& rgb, const AdCensusParams& params, bool right_view,
                       PathVolumes& paths, DeviceVolume& out, DeviceImage<float>* disparity = nullptr,
                       cudaStream_t stream = nullptr);

/// scanline_optimize without storing C2: the paths and the fused WTA only (the right view,
/// whose C2 nothing reads, saves a volume write).
void scanline_disparity(const DeviceVolume& cost, const RgbPair& rgb, const AdCensusParams& params, bool right_view,
                        PathVolumes& paths, DeviceImage<float>& disparity, cudaStream_t stream = nullptr);

/// Disparity (range.min + k) of the smallest cost per pixel; the smallest d wins a tie.
void winner_takes_all(const DeviceVolume& cost, DeviceImage<float>& out, cudaStream_t stream = nullptr);

// ---- refinement (Sec. 2.4), as reference/adcensus_refine.h --------------------------------
// Outlier maps hold adcensus::OutlierKind values (model.h: 0 reliable, 1 occlusion, 2
// mismatch). Every step reads its inputs and writes separate outputs, like the reference, so one
// kernel per pass gives the reference's maps bit for bit.

/// LR check and Hirschmueller's occlusion / mismatch classification over `range`.
void left_right_check(const DeviceImage<float>& left_disparity, const DeviceImage<float>& right_disparity,
                      DisparityRange range, DeviceImage<std::uint8_t>& outliers, cudaStream_t stream = nullptr);

/// `disparity` with +inf wherever `outliers` is not reliable.
void with_outliers_as_inf(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& outliers,
                          DeviceImage<float>& out, cudaStream_t stream = nullptr);

/// One voting iteration (eq. 6), one warp per pixel with its histogram in shared memory.
void region_voting_iteration(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& outliers,
                             const DeviceImage<uchar4>& arms, DisparityRange range, const AdCensusParams& params,
                             DeviceImage<float>& out_disparity, DeviceImage<std::uint8_t>& out_outliers,
                             cudaStream_t stream = nullptr);

/// params.voting_iterations iterations, ping-ponging with the two scratch maps; the result is
/// left in `disparity` and `outliers` (whose buffers may have been exchanged with the scratch).
void region_voting(DeviceImage<float>& disparity, DeviceImage<std::uint8_t>& outliers, const DeviceImage<uchar4>& arms,
                   DisparityRange range, const AdCensusParams& params, DeviceImage<float>& scratch_disparity,
                   DeviceImage<std::uint8_t>& scratch_outliers, cudaStream_t stream = nullptr);

/// Nearest reliable pixel in 16 directions (adcensus::INTERPOLATION_DIRECTIONS): the smallest
/// disparity for an occlusion, the closest colour for a mismatch.
void proper_interpolation(const DeviceImage<float>& disparity, const DeviceImage<std::uint8_t>& outliers,
                          const DeviceImage<uchar4>& rgb, DeviceImage<float>& out_disparity,
                          DeviceImage<std::uint8_t>& out_outliers, cudaStream_t stream = nullptr);

/// Depth discontinuity adjustment against the scanline costs C2 (fp16, compared in fp32).
void discontinuity_adjustment(const DeviceImage<float>& disparity, const DeviceVolume& cost, DeviceImage<float>& out,
                              cudaStream_t stream = nullptr);

/// Eq. 7 in fp64, as the reference computes it, from the fp16 costs C2, where C2(d) is below
/// both neighbours.
void subpixel_enhancement(const DeviceImage<float>& disparity, const DeviceVolume& cost, DeviceImage<float>& out,
                          cudaStream_t stream = nullptr);


}  // namespace stereo::cu::adcensus
