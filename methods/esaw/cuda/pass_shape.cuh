#pragma once
// What the three-sample pass kernels share (aggr_pass.cuh's one pixel a thread, aggr_pair.cuh's
// two, aggr_msg.cu, init_aggr_h.cu): the vertical passes' row order, a thread's pixel, what a
// pass does with its outputs, its sizes and scalars, and the maps beside its volume.

#include <cuda_runtime.h>

#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/cuda/weights.cuh"

namespace stereo::cu::esaw::detail {

// Vertical passes visit rows in the order q, q + s, q + 2s, ... for q = 0 .. s - 1 (row slot v of
// the grid is row vertical_row_order(v)), so the rows a pass reads as sides (y +- s) are the
// centre rows of the threads just before and after it and are still in L2 when the volume
// streams from DRAM; in plain order they are s rows apart and, with many planes per thread,
// evicted before their third read. The grid has vertical_row_slots(step, height) row slots;
// the slots past the image map to rows >= height.
__host__ __device__ inline int vertical_row_slots(int step, int height) {
  const int stride = step < height ? step : height;
  return stride * ((height + stride - 1) / stride);
}
__device__ __forceinline__ int vertical_row_order(int slot, int step, int height) {
  const int stride = min(step, height), per_class = (height + stride - 1) / stride;
  if (slot >= stride * per_class) return height;  // the grid's rounding to whole blocks
  return (slot % per_class) * stride + slot / per_class;
}

// The start of a pass kernel whose blocks are BLOCK_X x BLOCK_Y threads, each thread taking
// PIXELS pixels of a row: the block copies the weight table to `shared` (stage_table: every
// thread takes part and meets its barrier, so none may return before), and the thread's first
// pixel is (x, y) in the grid's order. A vertical pass then maps y to its row
// (vertical_row_order); a thread past the image returns. (aggr_pair.cuh and aggr_pass.cuh copy x
// and y to plain ints: bound as `auto [x, y]`, nvcc 13.0 orders the two tests of their exit the
// other way round, other sm_90 code for the same values.)
template <int BLOCK_X, int BLOCK_Y, int PIXELS>
__device__ __forceinline__ int2 pass_pixel(WeightTable& shared, const WeightTable& table) {
  stage_table(shared, table, threadIdx.y * BLOCK_X + threadIdx.x, BLOCK_X * BLOCK_Y);
  return make_int2(PIXELS * int(blockIdx.x * BLOCK_X + threadIdx.x), int(blockIdx.y * BLOCK_Y + threadIdx.y));
}

// What a pass does with its output cells, fixed at compile time so that a plain pass carries no
// registers for the others: store them (plain), also keep the running arg-min (winner; the store
// then optional), or store their forward min-sum and min + eta (forward, ESMP's aggr_H+/aggr_V+).
enum class PassOutput { plain, winner, forward };

// A pass's sizes and scalars: the image's size, the planes, the step and the border, the
// disparity of plane 0 (winner), eq. 10's c and eta (forward).
struct PassShape {
  int width;
  int height;
  int planes;
  int step;
  bool clamp_border;
  int first_disparity;
  float c;
  float eta;
};

// The outputs beside the volume: the running arg-min (winner) or the truncation map (forward).
struct PassSinks {
  float* winner_cost;
  float* winner_disparity;
  float* truncation;
};

}  // namespace stereo::cu::esaw::detail
