// The `cuda` backends of ESAW and ESMP (methods/esaw/cuda/stages.h), in the CUDA matcher frame
// (cuda/matcher_frame.h). ESAW runs slab by slab: a run of disparity planes goes through
// init_cost and all 2T passes of all iterations, the last pass updating the running arg-min,
// before the next slab starts (the passes are independent across disparities; only the
// weights, one image, are shared). The default slab is the whole volume (slab_planes below); an
// L2-sized slab is a --set away. ESMP's cost2msg needs every disparity of a pixel, so it runs
// pass by pass over the whole volume (esmp_passes.cpp). NOTES.md gives the bytes and the expected
// bound of every kernel.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "cuda/common.h"
#include "cuda/matcher_frame.h"
#include "cuda/shared/median.h"
#include "methods/esaw/cuda/esaw_cuda.h"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/model.h"
#include "methods/esaw/params.h"
#include "methods/esaw/register.h"

namespace stereo {
namespace {

namespace ce = cu::esaw;

template <class Params>
using OptionsOf = std::conditional_t<std::is_same_v<Params, EsmpParams>, EsmpCudaOptions, EsawCudaOptions>;

template <class Params>
class EsawFamilyCuda final : public cu::FrameMatcher<Params, OptionsOf<Params>, EsawBuffers> {
  using Base = cu::FrameMatcher<Params, OptionsOf<Params>, EsawBuffers>;
  using Key = EsawBuffers::Key;
  using Base::options_;
  using Base::params_;
  using Base::workspace_;

 public:
  static constexpr bool ESMP = std::is_same_v<Params, EsmpParams>;

  explicit EsawFamilyCuda(const Overrides& overrides) : Base(ESMP ? "esmp/cuda" : "esaw/cuda", overrides) {
    const std::string component = this->component();
    require(params_.storage == "fp16", component + ": storage=" + params_.storage +
                                           " is for the cpu backend; the CUDA volumes hold fp16 (NOTES.md)");
    if constexpr (ESMP)
      require(params_.esmp_variant != "data", component + ": esmp_variant=data runs on the cpu backend only "
                                                          "(the reading measured worst; README \"ESMP readings\")");
    // One colour table for every pass (it depends on gamma_c alone); each pass's WeightTable
    // points at it.
    if (params_.colour == "lab8") lab8_colour_ = ce::lab8_colour_table(params_.gamma_c, component);
    passes_.border = params_.border == "clamp" ? ce::Border::clamp : ce::Border::drop;
    for (int t = 1; t <= params_.iterations; ++t) {
      passes_.steps.push_back(stereo::esaw::esaw_step(params_.base, t));
      passes_.tables.push_back(
          ce::weight_table(params_.gamma_c, params_.gamma_p, passes_.steps.back(), lab8_colour_.get()));
    }
    int l2 = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, this->ordinal()));
    l2_bytes_ = std::size_t(l2);
    if constexpr (!ESMP) hv_device_max_step_ = ce::aggr_hv_max_step();
    if constexpr (ESMP)
      kept_plan_ = esmp_kept_stages(params_, options_, passes_.steps);
    else
      kept_plan_ = esaw_kept_stages();
  }

 private:
  Key key_for(const ImageView& left, DisparityRange range) const override {
    // ESAW: two slabs; ESMP literal: costs/forward values and messages; centre also the H result.
    int volumes = 2;
    if constexpr (ESMP) volumes = params_.esmp_variant == "literal" ? 2 : 3;
    return Key{left.width,    left.height, left.channels, range.count, volumes, lab8_colour_ != nullptr, 0,
               this->keeping() ? int(kept_plan_.size()) : 0};
  }

  // ESAW's planes per slab. --set slab_planes=K wins. Otherwise the whole volume when the
  // buffers with its two copies fit in 90 % of the free memory: every pass then streams the
  // volume through DRAM once (4 B a cell), with its side rows and RGBA reused from L1/L2 (rows
  // in step order). Chosen from the H100's figures at 1920 x 1080 x 256 (not yet measured for
  // ESAW itself): the L2 slabs hold only 3 planes there and moved 697 GB/s (55 ms for ESAW-9),
  // while ESMP's whole-volume aggr_H+, which does more per cell, streamed 1661 GB/s. Where the
  // volume does not fit: the most planes whose two slab buffers fill half the L2 (NOTES.md).
  // ESMP: the whole volume, always.
  void choose(Key& key, std::size_t free_bytes) const override {
    key.slab = key.levels;
    if constexpr (!ESMP) {
      if (options_.slab_planes > 0) {
        key.slab = std::min(options_.slab_planes, key.levels);
      } else if (double(workspace_.bytes(key)) > 0.9 * double(free_bytes)) {
        const std::size_t plane = std::size_t(key.width) * std::size_t(key.height) * 2;
        key.slab = int(std::clamp<std::size_t>((l2_bytes_ / 2) / (2 * plane), 1, std::size_t(key.levels)));
      }
    }
  }

  // The pass inspector: the images the workspace holds after a frame, named as the cpu
  // backend's laps (reference/esaw_matcher.cpp) so each compares with its CPU twin by name.
  // The volumes are the copies kept while keep_passes(true) holds (esaw_inspect.h): the slabs
  // and the passes' ping-pong overwrite every stage's volume with the next one's. The
  // winner-takes-all runs inside the last pass here; its map and costs are select_disparity's.
  void show_stages(cu::StageShow& show, const EsawBuffers& w, DisparityRange range) const override {
    show.image("rgb2grey.left", "the grey image: integer BT.601 luma", w.grey_left);
    show.image("rgb2grey.right", "the grey image: integer BT.601 luma", w.grey_right);
    if (w.lab8) show.image("rgb2lab8", "the weights' guide: the left image in 8-bit CIELAB", w.lab8_left);
    // ESAW copies inside its slab loop (one timed stage, often one graph); ESMP after each lap.
    ce::show_kept(show, kept_plan_, w.kept, range,
                  ESMP ? std::string("; copied outside the stage's time (Timing stage \"") + ce::StageKeeper::KEEP_LAP +
                             "\")"
                       : std::string("; copied slab by slab inside the slabs' stage, whose time includes the copies"));
    show.image("select_disparity.cost", "the aggregated cost of the winning disparity", w.winner.cost);
    show.image("select_disparity", "the winner-takes-all of the aggregated costs, disparity in pixels",
               w.winner.disparity);
    if (params_.median) show.image("median_filter", "the 3x3 median of the map (step 4)", w.disparity);
  }

  // The fused WTA's range.min + k, and the median of nine of them: a sequence reads back level
  // indices (a pixel no level won keeps +inf, and its frame comes back as floats).
  [[nodiscard]] bool whole_levels(DisparityRange /*range*/) const override { return true; }

  // Captured before the timed region, the stream idle since the last match: the launches are
  // recorded, not run (a host cost of ~1 us each, once per size and range). The graph holds the
  // buffers' addresses, so a new workspace or range re-captures it.
  void before_frame(EsawBuffers& w, DisparityRange range, cudaStream_t s) override {
    if constexpr (!ESMP) {
      if (options_.cuda_graph && (!slab_graph_ || graph_generation_ != workspace_.generation() ||
                                  graph_range_min_ != range.min || graph_range_count_ != range.count)) {
        slab_graph_.reset();
        slab_graph_ = cu::capture_graph(s, [&] { enqueue_slabs(w, range, s); });
        graph_generation_ = workspace_.generation();
        graph_range_min_ = range.min;
        graph_range_count_ = range.count;
      }
    }
  }

  const cu::DeviceImage<float>& run_stages(EsawBuffers& w, DisparityRange range, cu::StageClock& clock,
                                           cudaStream_t s) override {
    ce::rgb2grey(w.raw_left.get(), w.channels, w.rgba_left, w.grey_left, s);
    ce::rgb2grey(w.raw_right.get(), w.channels, w.rgba_right, w.grey_right, s);
    clock.lap("rgb2grey");
    if (lab8_colour_) {
      ce::rgb2lab8(w.rgba_left, w.lab8_left, s);
      clock.lap("rgb2lab8");
    }
    ce::wta_reset(w.winner, s);
    if constexpr (!ESMP) {
      // Slab by slab: the kernels of one slab are timed together (events per launch would cost
      // more than the launches); NOTES.md splits the time by the bytes each kernel moves.
      if (options_.cuda_graph)
        CUDA_CHECK(cudaGraphLaunch(slab_graph_.get(), s));
      else
        enqueue_slabs(w, range, s);
      clock.lap("init_cost+aggr_H+aggr_V+select_disparity (slabs)");
    } else {
      ce::StageKeeper keep(this->component(), kept_plan_, w.kept, &clock);
      run_esmp_passes(params_, options_, passes_, w, range, clock, s, keep);
    }
    if (!params_.median) return w.winner.disparity;
    cu::median_3x3(w.winner.disparity, w.disparity, s);
    clock.lap("median_filter");
    return w.disparity;
  }

  /// The fewest bytes each timed stage moves (NOTES.md): each pass reads its volume once and
  /// writes it once. ESAW's default slab is the whole volume (DRAM traffic); with slab_planes
  /// set to an L2-sized slab the figure is L2 traffic and may exceed the DRAM copy rate.
  [[nodiscard]] std::optional<cu::StageBytes> stage_bytes(const cu::ProblemSize& size) const override {
    const double px = size.pixels, cells = size.cells;
    cu::StageBytes bytes;
    if constexpr (!ESMP) {
      // Bytes per cell, iteration by iteration, as enqueue_slabs runs them: init_cost writes 2;
      // a pass reads 2 and writes 2, the last writes nothing (fused WTA); a fused aggr_HV reads 2
      // and writes 2 (its halo re-reads not counted); computing C0 inside the first kernel saves
      // its read (and the write of init_cost).
      double per_cell = options_.fuse_init_cost ? 0.0 : 2.0;
      const bool vh = fuse_vh() && ce::aggr_VH_fits(size.width, size.height, size.range.count);
      if (vh)  // the first aggr_H (2 B out, 2 more in from a stored C0), T - 1 fused V + H kernels (2
               // in, 2 out), the last aggr_V (2 in, the WTA writes no volume)
        per_cell += (options_.fuse_init_cost ? 2.0 : 4.0) + 4.0 * double(params_.iterations - 1) + 2.0;
      for (int t = 1; !vh && t <= params_.iterations; ++t) {
        const bool last = t == params_.iterations, from_grey = t == 1 && options_.fuse_init_cost;
        if (!last && stereo::esaw::esaw_step(params_.base, t) <= fuse_hv_max_step())
          per_cell += from_grey ? 2.0 : 4.0;
        else
          per_cell += (from_grey ? 2.0 : 4.0) + (last ? 2.0 : 4.0);
      }
      bytes = {
          {"rgb2grey", px * 2.0 * (3.0 + 4.0 + 1.0)},
          {"init_cost+aggr_H+aggr_V+select_disparity (slabs)", cells * per_cell + px * 8.0},
          {"median_filter", px * 8.0},
      };
    } else {
      bytes = esmp_stage_bytes(params_, options_, px, cells);
    }
    if (lab8_colour_) bytes.emplace_back("rgb2lab8", px * 8.0);  // RGBA in, lab8 out
    return bytes;
  }

  // ESAW's slab loop: init_cost and all 2T passes on a slab of planes, the last pass updating the
  // running arg-min, then the next slab. Enqueued directly (cuda_graph=false) or captured.
  void enqueue_slabs(EsawBuffers& w, DisparityRange range, cudaStream_t s) const {
    const Params& p = params_;
    const std::vector<int>& steps = passes_.steps;
    const std::vector<ce::WeightTable>& tables = passes_.tables;
    const ce::Border border = passes_.border;
    const cu::DeviceImage<uchar4>& guide = w.weight_guide();
    static_assert(ce::HV_MAX_STEP == 16, "EsawCudaOptions::validate bounds fuse_hv_max_step by 16");
    ce::StageKeeper keep(this->component(), kept_plan_, w.kept);  // a copy of each slab into its planes
    for (int k0 = 0; k0 < range.count; k0 += w.slab) {
      const int n = std::min(w.slab, range.count - k0);
      // `volume` holds the current iteration's input (C0, or the last V result); `spare` takes
      // the H result of an unfused iteration, or the output of a fused one (then they swap).
      std::uint16_t* volume = w.a.plane(0);
      std::uint16_t* spare = w.b.plane(0);
      bool c0_stored = false;
      const ce::CostSlab slab{w.grey_left, w.grey_right, range.min + k0, n, p.lambda, p.tau};
      // Keeping only (no name is even made otherwise: an L2-sized slab loop is launch-bound).
      const auto kept = [&](const std::string& name, const std::uint16_t* src) {
        if (keep.on()) keep.copy(name, src, k0, n, s);
      };
      if (!options_.fuse_init_cost) {
        ce::init_cost(slab, volume, s);
        c0_stored = true;
        kept("init_cost", volume);
      }
      const auto weights_of = [&](std::size_t t) { return ce::PassWeights{guide, steps[t], tables[t], border}; };
      if (fuse_vh() && ce::aggr_VH_fits(w.width, w.height, n)) {
        // aggr_H of iteration 1, then each aggr_V with the next aggr_H (aggr_vh.cu): `spare` holds
        // the latest H result; the last aggr_V runs the WTA.
        if (c0_stored)
          ce::aggr_H(weights_of(0), {volume, volume, n}, spare, s);
        else
          ce::init_aggr_H(slab, weights_of(0), spare, s);
        if (keep.on()) kept(pass_name("aggr_H", 0), spare);
        for (std::size_t t = 0; t + 1 < steps.size(); ++t) {
          ce::aggr_VH(weights_of(t), weights_of(t + 1), spare, n, volume, s);
          std::swap(volume, spare);
          if (keep.on()) kept(pass_name("aggr_H", t + 1), spare);
        }
        const std::size_t t = steps.size() - 1;
        std::uint16_t* last_out = keep.on() ? keep.slot(pass_name("aggr_V", t), k0) : nullptr;
        ce::aggr_V(weights_of(t), {spare, spare, n}, last_out, &w.winner, range.min + k0, s);
        continue;
      }
      for (std::size_t t = 0; t < steps.size(); ++t) {
        const bool last = t + 1 == steps.size();
        const bool from_grey = t == 0 && !c0_stored;
        const ce::PassWeights weights{guide, steps[t], tables[t], border};
        if (!last && steps[t] <= fuse_hv_max_step()) {
          if (from_grey)
            ce::init_aggr_HV(slab, weights, spare, s);
          else
            ce::aggr_HV(weights, volume, n, spare, s);
          std::swap(volume, spare);
          if (keep.on()) kept(pass_name("aggr_V", t), volume);
          continue;
        }
        if (from_grey)
          ce::init_aggr_H(slab, weights, spare, s);
        else
          ce::aggr_H(weights, {volume, volume, n}, spare, s);
        if (keep.on()) kept(pass_name("aggr_H", t), spare);
        // Keeping: the last (WTA) pass also stores its aggregated costs, straight into their planes.
        std::uint16_t* last_out = last && keep.on() ? keep.slot(pass_name("aggr_V", t), k0) : nullptr;
        ce::aggr_V(weights, {spare, spare, n}, last ? last_out : volume, last ? &w.winner : nullptr, range.min + k0, s);
        if (!last && keep.on() && !fuse_vh()) kept(pass_name("aggr_V", t), volume);  // fuse_vh: not in the plan
      }
    }
  }

  // "aggr_H.t3": pass `pass` of iteration index t (from 0), as the cpu backend names it.
  static std::string pass_name(const char* pass, std::size_t t) {
    return std::string(pass) + ".t" + std::to_string(t + 1);
  }

  // The volumes enqueue_slabs keeps for the inspector, in its order: C0 where it is stored, each
  // pass's output (a fused iteration's H result never exists), the last pass's costs too.
  std::vector<ce::KeptStage> esaw_kept_stages() const {
    std::vector<ce::KeptStage> plan;
    if (!options_.fuse_init_cost) plan.push_back({"init_cost", "C0: lambda min(|I_L - I_R|, tau) (eq. 3)"});
    const std::vector<int>& steps = passes_.steps;
    for (std::size_t t = 0; t < steps.size(); ++t) {
      const std::string of = " of iteration " + std::to_string(t + 1) + " (step " + std::to_string(steps[t]) + ")";
      if (fuse_vh()) {  // every aggr_H; the V results but the last stay in shared memory
        plan.push_back({pass_name("aggr_H", t), "aggr_H" + of});
        if (t + 1 == steps.size())
          plan.push_back({pass_name("aggr_V", t),
                          "aggr_V" + of + "; stored by the WTA pass itself while keeping (the slabs' time includes "
                                          "the store)",
                          true});
        continue;
      }
      if (t + 1 == steps.size() || steps[t] > fuse_hv_max_step())
        plan.push_back({pass_name("aggr_H", t), "aggr_H" + of + (t == 0 && options_.fuse_init_cost
                                                                        ? ", eq. 3 computed inside (init_aggr_H)"
                                                                        : "")});
      if (t + 1 == steps.size())
        plan.push_back({pass_name("aggr_V", t), "aggr_V" + of + "; stored by the WTA pass itself while keeping (the slabs' time includes the store)", true});
      else
        plan.push_back({pass_name("aggr_V", t), "aggr_V" + of});
    }
    return plan;
  }

  // ESAW: the largest step whose iteration runs as one aggr_HV kernel (0: none). ESMP has no
  // such kernel (its passes need every level of a pixel for the min-sum).
  int fuse_hv_max_step() const {
    if constexpr (ESMP)
      return 0;
    else
      return std::min(options_.fuse_hv_max_step, hv_device_max_step_);
  }

  // ESAW: whether each aggr_V runs with the next aggr_H (aggr_vh.cu) where a frame fits it.
  bool fuse_vh() const {
    if constexpr (ESMP)
      return false;
    else
      return options_.fuse_vh && fuse_hv_max_step() == 0;
  }

  std::size_t l2_bytes_ = 0;
  int hv_device_max_step_ = 0;  // ESAW: the largest step aggr_HV can run on this GPU (its shared memory)
  cu::DeviceBuffer<float> lab8_colour_;  // colour=lab8: exp(-Delta_c/gamma_c) by squared distance; else empty
  PassTables passes_;  // every iteration's step and weights
  std::vector<ce::KeptStage> kept_plan_;  // what keep_passes(true) keeps (esaw_inspect.h)
  // ESAW's captured slab loop (cuda_graph=true) and what it was captured for.
  cu::GraphExec slab_graph_;
  std::uint64_t graph_generation_ = 0;
  int graph_range_min_ = 0, graph_range_count_ = 0;
};

}  // namespace

void register_esaw_cuda(Registry& registry) {
  registry.add(cu::backend_entry<EsawFamilyCuda<EsawParams>>(
      "esaw", "ESAW (Yu et al. TCSVT 2010), CUDA: fp16 disparity planes, slabs (whole volume or L2-sized), fused WTA, "
              "one CUDA graph"));
}

void register_esmp_cuda(Registry& registry) {
  registry.add(cu::backend_entry<EsawFamilyCuda<EsmpParams>>(
      "esmp", "ESMP (Yu et al. TCSVT 2010), CUDA: fp16 disparity planes, cost2msg- folded into the passes, fused WTA"));
}

}  // namespace stereo
