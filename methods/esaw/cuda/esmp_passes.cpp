// ESMP's passes on CUDA (the esmp/cuda matcher's stages after the grey and lab8 images): the
// min-sum messages of eq. 13-21 as the reading in force lays them out. cost2msg needs every
// disparity of a pixel, so the passes run over the whole volume one after the other; a clock
// lap closes each kernel.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "methods/esaw/cuda/esaw_cuda.h"

namespace stereo {

namespace ce = cu::esaw;

void run_esmp_passes(const EsmpParams& p, const EsmpCudaOptions& options, const PassTables& passes,
                     EsawBuffers& w, DisparityRange range, cu::StageClock& clock, cudaStream_t s) {
  const std::vector<int>& steps = passes.steps;
  const std::vector<ce::WeightTable>& tables = passes.tables;
  const ce::Border border = passes.border;
  const cu::DeviceImage<uchar4>& guide = w.weight_guide();
  const float eta = p.eta_factor * float(range.count - 1);  // eta = 0.0375 d_max, as the cpu backend reads it
  const bool literal = p.esmp_variant == "literal";
  const int levels = range.count;
  // The literal reading's first messages come from C0 alone: with fuse_init_cost, eq. 3 is
  // computed inside cost2msg and C0 is never stored (init_cost2msg, cost2msg.cu).
  const bool fuse_init = literal && options.fuse_init_cost;
  const ce::CostSlab slab{w.grey_left, w.grey_right, range.min, levels, p.lambda, p.tau};  // every level
  const auto weights = [&](std::size_t t) { return ce::PassWeights{guide, steps[t], tables[t], border}; };
  if (!fuse_init) {
    ce::init_cost(slab, w.a.plane(0), s);
    clock.lap("init_cost");
  }
  const auto first_messages = [&] {  // the messages of C0 into b
    if (fuse_init) {
      ce::init_cost2msg(slab, p.c, eta, w.b.plane(0), s);
      clock.lap("init_cost+cost2msg");
    } else {
      ce::cost2msg(w.a.plane(0), w.width, w.height, levels, p.c, eta, w.b.plane(0), s);
      clock.lap("cost2msg");
    }
  };
  if (literal && options.fold_cost2msg) {
    // cost2msg- folded into the next pass (aggr_msg.cu): after the first aggr_H+, every pass
    // reads the forward values and truncations of the one before and writes its own,
    // ping-ponging (a, truncation) <-> (b, truncation_next); the last runs the WTA.
    const ce::ForwardMinSum forward{p.c, eta, &w.truncation};
    first_messages();
    ce::aggr_H(weights(0), {w.b.plane(0), w.b.plane(0), levels}, w.a.plane(0), s, &forward);
    clock.lap("aggr_H+");
    const int count = 2 * int(steps.size());
    for (int j = 1; j < count; ++j) {
      const bool vertical = j % 2 == 1, last = j + 1 == count;
      const std::size_t t = std::size_t(j / 2);
      const bool from_a = j % 2 == 1;
      const std::uint16_t* in = from_a ? w.a.plane(0) : w.b.plane(0);
      const cu::DeviceImage<float>& h_in = from_a ? w.truncation : w.truncation_next;
      std::uint16_t* out = last ? nullptr : (from_a ? w.b.plane(0) : w.a.plane(0));
      cu::DeviceImage<float>* h_out = last ? nullptr : (from_a ? &w.truncation_next : &w.truncation);
      ce::aggr_msg(weights(t), vertical, {in, h_in, levels}, p.c, eta,
                   {out, h_out, last ? &w.winner : nullptr, range.min}, s);
      clock.lap(std::string("cost2msg-+") + (vertical ? "aggr_V+" : "aggr_H+") + (last ? "select_disparity" : ""));
    }
  } else if (literal) {
    // The paper's reorganisation (Sec. IV): every aggregation but the last stores the forward
    // min-sum of its output (aggr_H+, aggr_V+) and cost2msg- finishes the messages, so the
    // min-sum needs no shared memory. a: C0, then forward values; b: messages.
    const ce::ForwardMinSum forward{p.c, eta, &w.truncation};
    first_messages();
    for (std::size_t t = 0; t < steps.size(); ++t) {
      const bool last = t + 1 == steps.size();
      ce::aggr_H(weights(t), {w.b.plane(0), w.b.plane(0), levels}, w.a.plane(0), s, &forward);
      clock.lap("aggr_H+");
      ce::cost2msg_backward(w.a.plane(0), w.truncation, levels, p.c, w.b.plane(0), s);
      clock.lap("cost2msg-");
      if (last) {
        ce::aggr_V(weights(t), {w.b.plane(0), w.b.plane(0), levels}, nullptr, &w.winner, range.min, s);
        clock.lap("aggr_V+select_disparity");
      } else {
        ce::aggr_V(weights(t), {w.b.plane(0), w.b.plane(0), levels}, w.a.plane(0), nullptr, 0, s, &forward);
        clock.lap("aggr_V+");
        ce::cost2msg_backward(w.a.plane(0), w.truncation, levels, p.c, w.b.plane(0), s);
        clock.lap("cost2msg-");
      }
    }
  }
  for (std::size_t t = 0; !literal && t < steps.size(); ++t) {
    const bool last = t + 1 == steps.size();
    // centre: a: the costs, b: their messages, c: the horizontal result.
    ce::cost2msg(w.a.plane(0), w.width, w.height, levels, p.c, eta, w.b.plane(0), s);
    clock.lap("cost2msg");
    ce::aggr_H(weights(t), {literal ? w.b.plane(0) : w.a.plane(0), w.b.plane(0), levels}, w.c.plane(0), s);
    clock.lap("aggr_H");
    ce::cost2msg(w.c.plane(0), w.width, w.height, levels, p.c, eta, w.b.plane(0), s);
    clock.lap("cost2msg");
    ce::aggr_V(weights(t), {literal ? w.b.plane(0) : w.c.plane(0), w.b.plane(0), levels},
               last ? nullptr : w.a.plane(0), last ? &w.winner : nullptr, range.min, s);
    clock.lap(last ? "aggr_V+select_disparity" : "aggr_V");
  }
}

cu::StageBytes esmp_stage_bytes(const EsmpParams& params, const EsmpCudaOptions& options, double px,
                                double cells) {
  const double T = double(params.iterations);
  if (params.esmp_variant == "literal" && options.fold_cost2msg)
    return {
        {"rgb2grey", px * 2.0 * (3.0 + 4.0 + 1.0)},
        {"init_cost", cells * 2.0},           // (fuse_init_cost: none)
        {"cost2msg", cells * 4.0},            // (fuse_init_cost: none)
        {"init_cost+cost2msg", cells * 2.0},  // (without fuse_init_cost: none)
        {"aggr_H+", cells * 4.0 + px * 4.0},
        // forward values in, forward values out, h in (3 samples, mostly cached) and out
        {"cost2msg-+aggr_V+", cells * 4.0 * (T - 1.0) + px * 8.0 * (T - 1.0)},
        {"cost2msg-+aggr_H+", cells * 4.0 * (T - 1.0) + px * 8.0 * (T - 1.0)},
        {"cost2msg-+aggr_V+select_disparity", cells * 2.0 + px * 12.0},
        {"median_filter", px * 8.0},
    };
  if (params.esmp_variant == "literal")
    return {
        {"rgb2grey", px * 2.0 * (3.0 + 4.0 + 1.0)},
        {"init_cost", cells * 2.0},
        {"cost2msg", cells * 4.0},  // once, on C0
        {"init_cost+cost2msg", cells * 2.0},
        {"aggr_H+", cells * 4.0 * T + px * 4.0 * T},  // messages in, forward values + h out
        {"cost2msg-", cells * 4.0 * (2.0 * T - 1.0) + px * 4.0 * (2.0 * T - 1.0)},
        {"aggr_V+", cells * 4.0 * (T - 1.0) + px * 4.0 * (T - 1.0)},
        {"aggr_V+select_disparity", cells * 2.0 + px * 8.0},  // the last pass writes no volume
        {"median_filter", px * 8.0},
    };
  return {
      {"rgb2grey", px * 2.0 * (3.0 + 4.0 + 1.0)},
      {"init_cost", cells * 2.0},
      {"cost2msg", cells * 4.0 * 2.0 * T},
      {"aggr_H", cells * 6.0 * T},
      {"aggr_V", cells * 6.0 * (T - 1.0)},
      {"aggr_V+select_disparity", cells * 4.0 + px * 8.0},
      {"median_filter", px * 8.0},
  };
}

}  // namespace stereo
