// aggr_H: eq. 5 (ESMP eq. 14), the three-sample pass along x over a slab of disparity planes. The
// weights depend on the pixel only: each thread computes them once and applies them to every plane
// of the slab, so the exp() work is per pixel, not per cell. A warp's 32 threads read 32
// consecutive halves of a row at p - s, p and p + s: three 64-byte runs, misaligned by s but served
// by L1/L2 sectors, which is what the paper's shared-memory staging (Fig. 11) bought on a GPU
// without caches. The kernel and its launch are aggr_pass.cuh's, with DX = 1.

#include "methods/esaw/cuda/aggr_pass.cuh"
#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {

void aggr_H(const PassWeights& weights, const PassInputs& in, std::uint16_t* out, cudaStream_t stream,
            const ForwardMinSum* forward) {
  detail::run_pass<1, 0>("aggr_H", weights, in, out, nullptr, 0, stream, forward);
}

}  // namespace stereo::cu::esaw
