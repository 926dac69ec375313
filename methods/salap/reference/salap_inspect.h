#pragma once
/// \file methods/salap/reference/salap_inspect.h
/// The cpu backend's pass inspector: every reference stage (reference/salap.h) of a run, one
/// disparity level per slice, under the names the GL passes carry (methods/salap/stage_names.h),
/// so "GL pass against CPU stage" is one loop over names.

#include "core/disparity_range.h"
#include "core/image.h"
#include "core/pass_table.h"
#include "core/thread_pool.h"
#include "methods/salap/params.h"

namespace stereo::reference {

/// Fills `table` with tad, horizontal.c_left/c_right, vertical.c0..c3 and window_cost of every
/// level of `range` (each the whole-frame reference function at `quantize`, which the banded
/// cpu run equals bit for bit), then select: `disparity` (the run's map) as level indices.
/// Levels run in parallel on `pool`.
void keep_salap_stages(PassTable& table, const ImageU8& left, const ImageU8& right, DisparityRange range,
                       const ImageF& disparity, const SalapParams& params, int quantize, ThreadPool& pool);

}  // namespace stereo::reference
