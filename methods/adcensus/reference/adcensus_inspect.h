#pragma once
/// \file methods/adcensus/reference/adcensus_inspect.h
/// The cpu backend's pass inspector: the reference stages (reference/adcensus.h) a run computed,
/// under the names adcensus/cuda gives the same quantities (cuda/adcensus_inspect.h), so a CUDA
/// buffer compares with its CPU twin in one loop over names:
///   census.left/right, cross.left/right   images (census as 4 channels of 16 bits)
///   cost+aggregate.right                  C1 of the right view, one level per slice
///   scanline+wta                          C2 of the left view, one level per slice
///   scanline+wta.left/right               the winner-takes-all maps
/// The right view's only with refinement (without it the run computes none).

#include <cstdint>

#include "core/image.h"
#include "core/pass_table.h"
#include "reference/cost_volume.h"

namespace stereo::reference {

/// What a run computed, copied into `table` (the volumes are copied: the run frees its own).
struct AdCensusStages {
  const Image<std::uint64_t>& census_left;
  const Image<std::uint64_t>& census_right;
  const Image<std::uint8_t>& arms_left;
  const Image<std::uint8_t>& arms_right;
  const CostVolume* c1_right;  // null without refinement
  const CostVolume& c2_left;
  const CostVolume* c2_right;  // null without refinement
};
void keep_adcensus_stages(PassTable& table, const AdCensusStages& stages);

}  // namespace stereo::reference
