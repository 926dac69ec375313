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

namespace {

// "aggr_H.t3": what pass `pass` of iteration t (from 1) left, as the cpu backend names it.
std::string pass_name(const char* pass, std::size_t t) { return std::string(pass) + ".t" + std::to_string(t); }
// "cost2msg.4": the n-th messages of the run (from 1), as the cpu backend counts them.
std::string messages_name(std::size_t n) { return "cost2msg." + std::to_string(n); }

}  // namespace

std::vector<ce::KeptStage> esmp_kept_stages(const EsmpParams& p, const EsmpCudaOptions& options,
                                            const std::vector<int>& steps) {
  const bool literal = p.esmp_variant == "literal";
  std::vector<ce::KeptStage> plan;
  const auto step_of = [&](std::size_t t) { return " (iteration " + std::to_string(t) + ", step " +
                                                   std::to_string(steps[t - 1]) + ")"; };
  const auto messages = [&](std::size_t n, const char* kernel) {
    plan.push_back({messages_name(n), std::string("the min-sum messages (eq. 13-21), call ") + std::to_string(n) +
                                          " of the run, from " + kernel});
  };
  const auto forward = [&](const char* pass, std::size_t t) {
    plan.push_back({pass_name(pass, t), std::string("the forward min-sum (eq. 17-19) of ") + pass +
                                            "'s output, as the next cost2msg- reads it" + step_of(t)});
  };
  const auto aggregate = [&](const char* pass, std::size_t t) {
    const bool last = t == steps.size() && std::string(pass) == "aggr_V";
    plan.push_back({pass_name(pass, t),
                    std::string(pass) + " of iteration " + std::to_string(t) + " (step " + std::to_string(steps[t - 1]) +
                        ")" + (last ? "; stored by the WTA pass itself while keeping, its time includes the store" : ""),
                    last});
  };
  if (!(literal && options.fuse_init_cost)) plan.push_back({"init_cost", "C0: lambda min(|I_L - I_R|, tau) (eq. 3)"});
  const std::size_t T = steps.size();
  if (literal && options.fold_cost2msg) {
    messages(1, options.fuse_init_cost ? "init_cost+cost2msg" : "cost2msg");
    forward("aggr_H+", 1);
    for (std::size_t j = 1; j + 1 < 2 * T; ++j) forward(j % 2 == 1 ? "aggr_V+" : "aggr_H+", j / 2 + 1);
  } else if (literal) {
    // Fused (aggr_cost2msg): the forward values never exist, the messages are kept.
    const bool fused = options.fuse_cost2msg;
    messages(1, options.fuse_init_cost ? "init_cost+cost2msg" : "cost2msg");
    for (std::size_t t = 1; t <= T; ++t) {
      if (!fused) forward("aggr_H+", t);
      messages(2 * t, fused ? "aggr_H+cost2msg-" : "cost2msg-");
      if (t == T) {
        aggregate("aggr_V", t);
      } else {
        if (!fused) forward("aggr_V+", t);
        messages(2 * t + 1, fused ? "aggr_V+cost2msg-" : "cost2msg-");
      }
    }
  } else {
    for (std::size_t t = 1; t <= T; ++t) {
      messages(2 * t - 1, "cost2msg");
      aggregate("aggr_H", t);
      messages(2 * t, "cost2msg");
      aggregate("aggr_V", t);
    }
  }
  return plan;
}

void run_esmp_passes(const EsmpParams& p, const EsmpCudaOptions& options, const PassTables& passes,
                     EsawBuffers& w, DisparityRange range, cu::StageClock& clock, cudaStream_t s,
                     ce::StageKeeper& keep) {
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
    keep.copy("init_cost", w.a.plane(0), 0, levels, s);
  }
  const auto first_messages = [&] {  // the messages of C0 into b
    if (fuse_init) {
      ce::init_cost2msg(slab, p.c, eta, w.b.plane(0), s, options.init_pairs);
      clock.lap("init_cost+cost2msg");
    } else {
      ce::cost2msg(w.a.plane(0), w.width, w.height, levels, p.c, eta, w.b.plane(0), s);
      clock.lap("cost2msg");
    }
    keep.copy(messages_name(1), w.b.plane(0), 0, levels, s);
  };
  if (literal && options.fold_cost2msg) {
    // cost2msg- folded into the next pass (aggr_msg.cu): after the first aggr_H+, every pass
    // reads the forward values and truncations of the one before and writes its own,
    // ping-ponging (a, truncation) <-> (b, truncation_next); the last runs the WTA.
    const ce::ForwardMinSum forward{p.c, eta, &w.truncation};
    first_messages();
    ce::aggr_H(weights(0), {w.b.plane(0), w.b.plane(0), levels}, w.a.plane(0), s, &forward);
    clock.lap("aggr_H+");
    keep.copy(pass_name("aggr_H+", 1), w.a.plane(0), 0, levels, s);
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
      if (!last) keep.copy(pass_name(vertical ? "aggr_V+" : "aggr_H+", t + 1), out, 0, levels, s);
    }
  } else if (literal) {
    // The paper's reorganisation (Sec. IV): every aggregation but the last stores the forward
    // min-sum of its output (aggr_H+, aggr_V+) and cost2msg- finishes the messages, so the
    // min-sum needs no shared memory. a: C0, then forward values; b: messages.
    const ce::ForwardMinSum forward{p.c, eta, &w.truncation};
    // fuse_cost2msg: each aggregation and its cost2msg- in one kernel, the messages ping-ponging
    // between b and a; otherwise a holds the forward values and b the messages. The forward
    // values are kept only where the plan has them (not fused).
    const bool fused = options.fuse_cost2msg && ce::aggr_cost2msg_fits(w.width, w.height, levels);
    const bool keep_forward = !options.fuse_cost2msg;
    std::uint16_t* msg = w.b.plane(0);
    std::uint16_t* spare = w.a.plane(0);
    // One aggregation and its cost2msg-: the messages in `msg` become the next ones, in `msg`.
    const auto pass = [&](std::size_t t, bool vertical, std::size_t n) {
      const char* name = vertical ? "aggr_V+" : "aggr_H+";
      if (fused) {
        ce::aggr_cost2msg(weights(t), vertical, {msg, msg, levels}, p.c, eta, spare, s, options.msg_half_forward);
        std::swap(msg, spare);
        clock.lap(std::string(name) + "cost2msg-");
      } else {
        if (vertical)
          ce::aggr_V(weights(t), {msg, msg, levels}, spare, nullptr, 0, s, &forward);
        else
          ce::aggr_H(weights(t), {msg, msg, levels}, spare, s, &forward);
        clock.lap(name);
        if (keep_forward) keep.copy(pass_name(name, t + 1), spare, 0, levels, s);
        ce::cost2msg_backward(spare, w.truncation, levels, p.c, msg, s);
        clock.lap("cost2msg-");
      }
      keep.copy(messages_name(n), msg, 0, levels, s);
    };
    first_messages();
    for (std::size_t t = 0; t < steps.size(); ++t) {
      pass(t, false, 2 * t + 2);
      if (t + 1 == steps.size()) {
        // Keeping: the WTA pass also stores its aggregated costs, straight into the kept volume.
        ce::aggr_V(weights(t), {msg, msg, levels}, keep.slot(pass_name("aggr_V", t + 1), 0), &w.winner, range.min,
                   s);
        clock.lap("aggr_V+select_disparity");
      } else {
        pass(t, true, 2 * t + 3);
      }
    }
  }
  for (std::size_t t = 0; !literal && t < steps.size(); ++t) {
    const bool last = t + 1 == steps.size();
    // centre: a: the costs, b: their messages, c: the horizontal result.
    ce::cost2msg(w.a.plane(0), w.width, w.height, levels, p.c, eta, w.b.plane(0), s);
    clock.lap("cost2msg");
    keep.copy(messages_name(2 * t + 1), w.b.plane(0), 0, levels, s);
    ce::aggr_H(weights(t), {literal ? w.b.plane(0) : w.a.plane(0), w.b.plane(0), levels}, w.c.plane(0), s);
    clock.lap("aggr_H");
    keep.copy(pass_name("aggr_H", t + 1), w.c.plane(0), 0, levels, s);
    ce::cost2msg(w.c.plane(0), w.width, w.height, levels, p.c, eta, w.b.plane(0), s);
    clock.lap("cost2msg");
    keep.copy(messages_name(2 * t + 2), w.b.plane(0), 0, levels, s);
    // Keeping: the last (WTA) pass also stores its aggregated costs, straight into the kept volume.
    ce::aggr_V(weights(t), {literal ? w.b.plane(0) : w.c.plane(0), w.b.plane(0), levels},
               last ? keep.slot(pass_name("aggr_V", t + 1), 0) : w.a.plane(0), last ? &w.winner : nullptr,
               range.min, s);
    clock.lap(last ? "aggr_V+select_disparity" : "aggr_V");
    if (!last) keep.copy(pass_name("aggr_V", t + 1), w.a.plane(0), 0, levels, s);
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
        // fuse_cost2msg: messages in, messages out (the forward values stay on chip)
        {"aggr_H+cost2msg-", cells * 4.0 * T},
        {"aggr_V+cost2msg-", cells * 4.0 * (T - 1.0)},
        // without it (or where a frame does not fit the fused kernel):
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
