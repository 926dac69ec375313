// salap/cuda's accounting for `stereo bench` (issue 38): the fewest bytes each lap of a frame
// moves through device memory in this design, inputs read once and outputs written once, so
// that bench sets each lap's time against the time those bytes take at the device's copy rate.
// Transfers over the host link (the upload, the read-back of indices) are not counted: the
// link, not device memory, sets their time, and bench times them apart from the algorithm.

#include <algorithm>
#include <array>
#include <cstddef>

#include "methods/salap/cuda/salap_cuda.h"

namespace stereo::salap_cuda {

cu::StageBytes stage_bytes(const cu::ProblemSize& size, int channels, const cu::salap::FusedPlan* plan,
                           int radius) {
  const double px = size.pixels;
  const double levels = double(size.range.count);
  // The read-back holds the winning level index: 1 byte up to 256 levels, 2 above.
  const double index = DisparityMap::index_form(size.range.count) == DisparityMap::Form::index_u16 ? 2.0 : 1.0;
  // pack_pair: both images' 8-bit pixels read, one 32-bit word a pixel written for each.
  const double pack = 2.0 * px * double(channels) + 2.0 * px * 4.0;
  if (plan == nullptr) {
    // The stage path, per level: tad_cost reads both packed words (8 B) and writes D (4);
    // the two horizontal filters read D and write C_L, C_R (2 x 8); the four vertical
    // filters read C_L or C_R and write C0..C3 (4 x 8); window_cost reads C0..C3 and writes
    // Cmin (20); wta_update reads Cmin and the best cost (8) and writes only where a level
    // wins, which every pixel does at the first level (best and d, 8 B once). reset_wta
    // writes the best cost once (4).
    const double per_level = 12.0 + 16.0 + 32.0 + 20.0 + 8.0;
    return cu::StageBytes{
        {lap::PACK, pack},
        {lap::STAGES, px * 4.0 + levels * px * per_level + px * 8.0},
        {lap::LEVEL_INDEX, px * 4.0 + px * index},  // the float map read, the index written
    };
  }
  const double chunks = double(plan->chunks);
  // The fused kernel reads the two packed images (its volume never leaves the chip: TAD, the
  // filters, eq. 3-4 and the running WTA are in registers and shared memory) and writes one
  // 8-byte (cost, level) key a pixel for each chunk of levels, in float and in half alike.
  const double fused = 2.0 * px * 4.0 + chunks * px * 8.0;
  // merge_chunks_index reads every chunk's key of a pixel and writes its index (the device
  // map of compute_into writes 4-byte floats instead; bench reads back indices).
  const double merge_per_pixel = chunks * 8.0 + index;
  cu::StageBytes out{{lap::PACK, pack}, {lap::FUSED, fused}, {lap::MERGE, px * merge_per_pixel}};
  if (slabs_apply(size.height, *plan)) {
    // In row slabs, the lap holds every slab's pack and every band's fused launch, and the
    // merges of the launch groups before the last (the last group's merge is in the
    // read-back): the pixels of the bands those groups launched.
    const int band_rows = cu::salap::fused_band_rows(plan->tile);
    const std::array<SlabLaunch, SLABS> slabs = slab_launches(size.height, band_rows, radius);
    int last_group_first_band = 0;
    for (const SlabLaunch& slab : slabs)
      if (slab.end_band > slab.first_band) last_group_first_band = slab.first_band;
    const double merged_rows = std::min(double(last_group_first_band) * double(band_rows), double(size.height));
    out.emplace_back(lap::SLABBED, pack + fused + merged_rows * double(size.width) * merge_per_pixel);
  }
  return out;
}

}  // namespace stereo::salap_cuda
