#pragma once
/// \file cuda/shared/prefetch.cuh
/// A hint to the L2: fetch the line holding `p` now, without a register to receive it and
/// without waiting. Streaming kernels issue it some steps ahead of their loads so that DRAM
/// works on the next steps while the current one computes (ESAW's passes, AD-Census's
/// aggregation).

namespace stereo::cu {

__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

}  // namespace stereo::cu
