#pragma once
/// \file methods/esaw/cuda/esaw_cuda.h
/// What the ESAW and ESMP CUDA matchers (esaw_cuda.cpp) share with ESMP's pass sequences
/// (esmp_passes.cpp): the backend's Options, the buffers of one problem and the per-iteration
/// weight tables.

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/disparity_range.h"
#include "core/error.h"
#include "cuda/common.h"
#include "cuda/matcher_frame.h"
#include "cuda/stage_clock.h"
#include "cuda/workspace.h"
#include "methods/esaw/cuda/esaw_inspect.h"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/params.h"

namespace stereo {

/// ESAW's CUDA knobs (bound beside EsawParams). None changes the result.
struct EsawCudaOptions {
  // Disparity planes per slab that runs through all passes before the next (methods/esaw/cuda/NOTES.md).
  // 0 = the whole volume where two copies fit in the GPU's memory (each pass streams it through
  // DRAM), else the most planes whose two buffers fill half the L2; K > 0 = K planes (3 = the L2
  // slabs at 1080p). A tuning knob.
  int slab_planes = 0;
  // Launch the slab loop (init_cost and 2T passes per slab, ~1600 launches at 1920 x 1080 x 256)
  // as one CUDA graph, captured once per image size and range, instead of launch by launch.
  // false = the launch-by-launch loop, for comparison.
  bool cuda_graph = true;
  // Compute eq. 3 inside the first aggr_H (methods/esaw/cuda/init_aggr_h.cu) instead of storing C0.
  // false = init_cost then aggr_H.
  bool fuse_init_cost = true;
  // An iteration whose step is at most this runs aggr_H and aggr_V as one kernel
  // (methods/esaw/cuda/aggr_hv.cu), the H result of a tile kept in shared memory, so the volume crosses
  // DRAM twice per iteration instead of four times. 0 = never; at most cu::esaw::HV_MAX_STEP
  // (16). The last iteration keeps its two kernels (the WTA is fused there). Off by default:
  // measured on the H100 (1920 x 1080 x 256, ESAW-9, passes with the L2 prefetch) 23.1 ms
  // unfused against 24.0 with steps <= 4 fused and 28.1 with <= 16; before the prefetch the
  // fused kernel won (29.2 against 31.0). methods/esaw/cuda/NOTES.md, "Round 3".
  int fuse_hv_max_step = 0;
  // Each iteration's aggr_V and the next iteration's aggr_H run as one kernel
  // (methods/esaw/cuda/aggr_vh.cu: a block owns a whole row, the V result stays in shared memory),
  // so between the first aggr_H and the last aggr_V each iteration crosses DRAM twice instead of
  // four times. Only where fuse_hv_max_step is 0 and the frame fits the kernel (an even width);
  // otherwise the separate kernels run, keeping the same volumes for the inspector.
  bool fuse_vh = true;

  template <class B>
  void describe(B& b) {
    b.field("slab_planes", slab_planes,
            "disparity planes per slab through all passes (0 = the whole volume if it fits, else two slabs fill "
            "half the L2; no effect on the result)");
    b.field("cuda_graph", cuda_graph, "run the slab loop as one captured CUDA graph (no effect on the result)");
    b.field("fuse_init_cost", fuse_init_cost,
            "compute the costs inside the first aggr_H instead of storing them (no effect on the result)");
    b.field("fuse_hv_max_step", fuse_hv_max_step,
            "iterations with a step up to this run aggr_H and aggr_V as one kernel (0 = never, at most 16; no "
            "effect on the result)");
    b.field("fuse_vh", fuse_vh,
            "run each aggr_V and the next iteration's aggr_H as one kernel, whole rows in shared memory (with "
            "fuse_hv_max_step 0; no effect on the result)");
  }

  void validate(const std::string& component) const {
    require(slab_planes >= 0,
            component + ": slab_planes must be >= 0 (0 = automatic), got " + std::to_string(slab_planes));
    require(fuse_hv_max_step >= 0 && fuse_hv_max_step <= 16,
            component + ": fuse_hv_max_step must be in 0..16, got " + std::to_string(fuse_hv_max_step));
  }
};

/// ESMP's CUDA knobs (bound beside EsmpParams). None changes the result.
struct EsmpCudaOptions {
  // In the literal reading, finish each pass's messages (cost2msg-) inside the next aggregation
  // (methods/esaw/cuda/aggr_msg.cu), so a pass reads and writes the volume once. Off by default:
  // measured on the H100 at 1920x1080x256 the folded passes ran at 444-567 GB/s (64.5 ms in all)
  // against 41.5 ms for the paper's separate aggr_H+ / cost2msg- / aggr_V+ kernels (issue-bound,
  // not memory-bound; methods/esaw/cuda/NOTES.md).
  bool fold_cost2msg = false;
  // In the literal reading, run each aggr_H+ / aggr_V+ and the cost2msg- after it as one kernel
  // (methods/esaw/cuda/aggr_cost2msg.cu: the forward values in shared memory, never stored), so a
  // pass reads and writes the volume once. Where a frame does not fit it (an odd width), the two
  // kernels run.
  bool fuse_cost2msg = true;
  // The literal reading's first cost2msg computes eq. 3 on the fly (methods/esaw/cuda/cost2msg.cu
  // init_cost2msg) instead of reading a stored C0.
  bool fuse_init_cost = true;
  // That first cost2msg with two pixels a thread where the width is even (cost2msg.cu
  // init_cost2msg_pair_kernel: half the stores, eq. 3 from a per-block table of the 256 costs).
  bool init_pairs = true;
  // The fused aggregation + cost2msg- passes (aggr_cost2msg.cu) do eq. 18-19 in half2 arithmetic
  // where c is a half (aggr_pair.cuh forward_step): the same values with fewer instructions
  // (ESMP-8 at 1080p x 256: methods/esaw/cuda/NOTES.md).
  bool msg_half_forward = true;

  template <class B>
  void describe(B& b) {
    b.field("fold_cost2msg", fold_cost2msg,
            "literal reading: finish the messages inside the next aggregation (no cost2msg- pass; no effect on the "
            "result)");
    b.field("fuse_cost2msg", fuse_cost2msg,
            "literal reading: each aggregation and its cost2msg- in one kernel (no effect on the result)");
    b.field("fuse_init_cost", fuse_init_cost,
            "literal reading: compute the costs inside the first cost2msg instead of storing them (no effect on the "
            "result)");
    b.field("msg_half_forward", msg_half_forward,
            "literal reading, fused passes: the forward min-sum in half2 arithmetic where c is a half (no effect on "
            "the result)");
    b.field("init_pairs", init_pairs,
            "literal reading: the first cost2msg takes two pixels a thread where the width is even (no effect on the "
            "result)");
  }
};

/// Every buffer of one problem (cuda/workspace.h).
struct EsawBuffers : cu::InputPair {
  struct Key {
    int width = 0, height = 0, channels = 0, levels = 0;
    int volumes = 2;    // ESAW: two slabs; ESMP: three whole volumes (centre) or two (literal)
    bool lab8 = false;  // colour=lab8: the weights' guide image
    // Planes per volume: chosen for a new set from the free memory (the ESAW matcher's choose);
    // a held set serves its size whatever it is, so it stays out of the comparison.
    int slab = 0;
    // Whole volumes kept for the pass inspector (esaw_inspect.h): the matcher's plan while
    // keep_passes(true) holds, else 0.
    int kept = 0;
    bool operator==(const Key& o) const {
      return width == o.width && height == o.height && channels == o.channels && levels == o.levels &&
             volumes == o.volumes && lab8 == o.lab8 && kept == o.kept;
    }
  };
  int slab = 0;
  bool lab8 = false;
  cu::DeviceImage<uchar4> rgba_left, rgba_right;
  cu::DeviceImage<uchar4> lab8_left;  // colour=lab8 only: the weights' guide (rgb2lab8 of rgba_left)
  cu::DeviceImage<std::uint8_t> grey_left, grey_right;
  cu::esaw::Winner winner;
  cu::DeviceImage<float> disparity;        // after the median
  cu::DeviceImage<float> truncation;       // ESMP's min + eta per pixel, from aggr_H+/aggr_V+
  cu::DeviceImage<float> truncation_next;  // ESMP folded: the pass after writes here (its neighbours read the other)
  cu::esaw::DeviceVolume a, b, c;          // ESAW: two slabs (a, b); ESMP: whole volumes
  std::vector<cu::esaw::DeviceVolume> kept;  // keep_passes(true) only: a whole volume per kept stage

  static std::string describe(const Key& k) {
    return std::to_string(k.width) + "x" + std::to_string(k.height) + " with " + std::to_string(k.levels) +
           " levels";
  }

  void declare(cu::BufferList& list, const Key& k) {
    declare_inputs(list, k.width, k.height, k.channels);
    const int w = k.width, h = k.height;
    list.views(rgba_left, rgba_right, w, h, "RGBA image");
    lab8 = k.lab8;
    if (lab8) list.image(lab8_left, w, h, "the left lab8 image");
    list.views(grey_left, grey_right, w, h, "grey image");
    list.image(winner.cost, w, h, "the winning costs");
    list.image(winner.disparity, w, h, "the winning disparities");
    list.image(disparity, w, h, "the disparity map");
    list.image(truncation, w, h, "the min-sum truncation map");
    list.image(truncation_next, w, h, "the next min-sum truncation map");
    slab = k.slab;
    const char* what = k.slab < k.levels ? "a slab of cost planes" : "a cost volume";
    for (cu::esaw::DeviceVolume* v : {&a, &b, &c}) {
      if (v == &c && k.volumes < 3) break;
      v->width = w;
      v->height = h;
      v->planes = k.slab;
      list.buffer(v->data, cu::esaw::DeviceVolume::cells(w, h, k.slab), what);
    }
    kept.resize(std::size_t(k.kept));
    for (cu::esaw::DeviceVolume& v : kept) {
      v.width = w;
      v.height = h;
      v.planes = k.levels;
      list.buffer(v.data, cu::esaw::DeviceVolume::cells(w, h, k.levels), "a stage's volume kept for keep_passes");
    }
  }

  /// The image the weights read: the left RGBA image (max_rgb) or its lab8 (colour=lab8,
  /// written by rgb2lab8 ahead of the passes).
  [[nodiscard]] const cu::DeviceImage<uchar4>& weight_guide() const { return lab8 ? lab8_left : rgba_left; }
};

/// The weights of every iteration's passes, made once per matcher.
struct PassTables {
  std::vector<int> steps;                    // eq. 4's step of each iteration
  std::vector<cu::esaw::WeightTable> tables;  // the weight factors of each step
  cu::esaw::Border border = cu::esaw::Border::drop;
};

/// ESMP's passes after rgb2grey (and rgb2lab8) up to the fused WTA, as the reading in force and
/// the options lay them out, a clock lap after each kernel (esmp_passes.cpp).
/// `keep` copies each volume of the plan esmp_kept_stages gives (a no-op when not keeping).
void run_esmp_passes(const EsmpParams& params, const EsmpCudaOptions& options, const PassTables& passes,
                     EsawBuffers& w, DisparityRange range, cu::StageClock& clock, cudaStream_t s,
                     cu::esaw::StageKeeper& keep);

/// The volumes run_esmp_passes keeps for the pass inspector, in pipeline order, for `steps`
/// (one per iteration).
std::vector<cu::esaw::KeptStage> esmp_kept_stages(const EsmpParams& params, const EsmpCudaOptions& options,
                                                 const std::vector<int>& steps);

/// The fewest bytes each of ESMP's timed stages moves at `pixels` and `cells` (NOTES.md).
cu::StageBytes esmp_stage_bytes(const EsmpParams& params, const EsmpCudaOptions& options, double pixels,
                                double cells);

}  // namespace stereo
