// aggr_V: eq. 6 (ESMP eq. 16), the three-sample pass along y over a slab of disparity planes. The
// weights depend on the pixel only: each thread computes them once and applies them to every plane
// of the slab, so the exp() work is per pixel, not per cell. The rows y - s and y + s are read as
// whole coalesced rows; with the WTA fused, the last pass of an iteration never writes its volume
// (the paper's select_disparity folded in). The kernel and its launch are aggr_pass.cuh's, with
// DY = 1.

#include "methods/esaw/cuda/aggr_pass.cuh"
#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {

void aggr_V(const PassWeights& weights, const PassInputs& in, std::uint16_t* out, Winner* winner, int first_disparity,
            cudaStream_t stream, const ForwardMinSum* forward) {
  detail::run_pass<0, 1>("aggr_V", weights, in, out, winner, first_disparity, stream, forward);
}

}  // namespace stereo::cu::esaw
