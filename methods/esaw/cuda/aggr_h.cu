// aggr_H: eq. 5 (ESMP eq. 14), the three-sample pass along x over a slab of disparity planes. The
// weights depend on the pixel only: each thread computes them once and applies them to every plane
// of the slab, so the exp() work is per pixel, not per cell. A warp's 32 threads read 32
// consecutive halves of a row at p - s, p and p + s: three 64-byte runs, misaligned by s but served
// by L1/L2 sectors, which is what the paper's shared-memory staging (Fig. 11) bought on a GPU
// without caches. The kernel is aggr_pass.cuh's, with DX = 1.

#include <cuda_fp16.h>

#include "methods/esaw/cuda/aggr_pass.cuh"
#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {

void aggr_H(const DeviceImage<uchar4>& guide, const std::uint16_t* centre, const std::uint16_t* side, int planes,
            int step, const WeightTable& table, reference::Border border, std::uint16_t* out,
            cudaStream_t stream, const ForwardMinSum* forward) {
  Winner* winner = nullptr;
  const int first_disparity = 0;
  require(step >= 1, "esaw/cuda: aggr_H: step must be >= 1, got " + std::to_string(step));
  require(planes >= 1, "esaw/cuda: aggr_H: needs at least one plane, got " + std::to_string(planes));
  require(out || winner, "esaw/cuda: aggr_H: neither an output volume nor a winner to update");
  require(out != centre && out != side, "esaw/cuda: aggr_H: the output may not alias an input");
  if (winner)
    require(winner->cost.width == guide.width && winner->cost.height == guide.height,
            "esaw/cuda: aggr_H: winner map size differs from the image");
  if (forward) {
    require(out && !winner, "esaw/cuda: aggr_H+: the forward min-sum needs an output volume and no fused WTA");
    require(forward->truncation && forward->truncation->width == guide.width &&
                forward->truncation->height == guide.height,
            "esaw/cuda: aggr_H+: the truncation map is missing or differs in size from the image");
  }
  const dim3 grid(unsigned(div_up(guide.width, detail::AGGR_BLOCK_X)),
                  unsigned(div_up(guide.height, detail::AGGR_BLOCK_Y)));
  detail::launch_pass<1, 0>(
      grid, stream, guide.get(), guide.width, guide.height, reinterpret_cast<const __half*>(centre),
      reinterpret_cast<const __half*>(side), planes, step, table, border == reference::Border::clamp,
      reinterpret_cast<__half*>(out), winner ? winner->cost.get() : nullptr,
      winner ? winner->disparity.get() : nullptr, first_disparity, forward ? forward->c : 0.0f,
      forward ? forward->eta : 0.0f, forward ? forward->truncation->get() : nullptr);
  CUDA_CHECK_LAUNCH();
}

}  // namespace stereo::cu::esaw
