// The `cpu` backends of ESAW and ESMP: the reference stages of reference/esaw.h behind the
// Matcher interface, timed stage by stage with the host clock. The pass inspector shows each
// stage's output under its lap's name; a pass of iteration t is "aggr_H.t<t>" (every
// iteration's volume is kept, so the last one's shows what select_disparity reads).

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "methods/esaw/register.h"
#include "methods/esaw/model.h"
#include "methods/esaw/params.h"
#include "reference/cpu_matcher.h"
#include "methods/esaw/reference/esaw.h"
#include "reference/host_stage_clock.h"
#include "core/registry.h"

namespace stereo {
namespace {

namespace ref = reference;

ref::Border border_of(const std::string& name) { return name == "clamp" ? ref::Border::clamp : ref::Border::drop; }

ref::Storage storage_of(const std::string& name) { return name == "fp16" ? ref::Storage::fp16 : ref::Storage::fp32; }

ref::ColourDistance colour_of(const std::string& name) {
  if (name == "lab") return ref::ColourDistance::lab;
  if (name == "lab8") return ref::ColourDistance::lab8;
  return ref::ColourDistance::max_rgb;
}

// What ESAW and ESMP share around their aggregation passes: the weight guide and eq. 3's
// costs before them, the WTA and step 4's median after them.
template <class Params>
class EsawFamilyCpu : public ref::CpuMatcher<Params> {
 public:
  using ref::CpuMatcher<Params>::CpuMatcher;

 protected:
  using ref::CpuMatcher<Params>::params_;
  using ref::CpuMatcher<Params>::show;

  // The adaptive weights' guide: the reference (left) image under the chosen Delta_c.
  [[nodiscard]] ref::WeightGuide weight_guide(const ImageU8& left_input) const {
    return {to_rgb(left_input), colour_of(params_.colour)};
  }

  // Eq. 3's costs C0 of the pair, timed (with the weight guide built before) as rgb2grey and
  // init_cost.
  [[nodiscard]] ref::CostVolume initial_cost(const ImageU8& left_input, const ImageU8& right_input,
                                             DisparityRange range, ref::HostStageClock& clock) {
    const ImageU8 grey_left = ref::rgb2grey(to_rgb(left_input));
    const ImageU8 grey_right = ref::rgb2grey(to_rgb(right_input));
    clock.lap("rgb2grey");
    show("rgb2grey.left", "the grey image: integer BT.601 luma", grey_left);
    show("rgb2grey.right", "the grey image: integer BT.601 luma", grey_right);
    ref::CostVolume cost =
        ref::init_cost(grey_left, grey_right, range, params_.lambda, params_.tau, storage_of(params_.storage));
    clock.lap("init_cost");
    show("init_cost", "C0: lambda min(|I_L - I_R|, tau) (eq. 3)", cost);
    return cost;
  }

  // Shows `volume`, what pass `name` of iteration t (step `step`) left.
  void show_pass(const char* name, int t, int step, const ref::CostVolume& volume) {
    show(std::string(name) + ".t" + std::to_string(t),
         std::string(name) + " of iteration " + std::to_string(t) + " (step " + std::to_string(step) + ")", volume);
  }

  // The WTA of the aggregated costs and, when asked, step 4's 3x3 median, each timed.
  [[nodiscard]] ImageF disparity_of(const ref::CostVolume& cost, ref::HostStageClock& clock) {
    ImageF disparity = ref::select_disparity(cost);
    clock.lap("select_disparity");
    show("select_disparity", "the winner-takes-all of the aggregated costs, disparity in pixels", disparity);
    if (params_.median) {
      disparity = ref::median_filter(disparity);
      clock.lap("median_filter");
      show("median_filter", "the 3x3 median of the map (step 4)", disparity);
    }
    return disparity;
  }
};

class EsawCpu final : public EsawFamilyCpu<EsawParams> {
 public:
  explicit EsawCpu(const Overrides& overrides) : EsawFamilyCpu("esaw/cpu", overrides) {}

  StereoResult run(const ImageU8& left_input, const ImageU8& right_input, DisparityRange range) override {
    StereoResult result;
    ref::HostStageClock clock(result.timing);
    const EsawParams& p = params_;
    const ref::Storage storage = storage_of(p.storage);

    const ref::WeightGuide left = weight_guide(left_input);
    ref::CostVolume cost = initial_cost(left_input, right_input, range, clock);
    for (int t = 1; t <= p.iterations; ++t) {
      const int step = stereo::esaw::esaw_step(p.base, t);
      cost = ref::aggr_H(cost, cost, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
      clock.lap("aggr_H");
      show_pass("aggr_H", t, step, cost);
      cost = ref::aggr_V(cost, cost, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
      clock.lap("aggr_V");
      show_pass("aggr_V", t, step, cost);
    }
    result.disparity = disparity_of(cost, clock);
    clock.finish();
    return result;
  }
};

class EsmpCpu final : public EsawFamilyCpu<EsmpParams> {
 public:
  explicit EsmpCpu(const Overrides& overrides) : EsawFamilyCpu("esmp/cpu", overrides) {}

  StereoResult run(const ImageU8& left_input, const ImageU8& right_input, DisparityRange range) override {
    StereoResult result;
    ref::HostStageClock clock(result.timing);
    const EsmpParams& p = params_;
    const ref::Storage storage = storage_of(p.storage);
    // eta = 0.0375 d_m, d_m "the maximum disparity value" (Sec. III-B), read as the span of
    // the range (levels - 1): the same for the paper's ranges, which start at 0, and never
    // negative (a range below zero would otherwise truncate every message under its minimum).
    const float eta = p.eta_factor * float(range.count - 1);
    int messages = 0;  // the inspector's count of cost2msg calls in this run
    const auto msg = [&](const ref::CostVolume& v) {
      ref::CostVolume m = ref::cost2msg(v, p.c, eta, storage);
      clock.lap("cost2msg");
      ++messages;
      show("cost2msg." + std::to_string(messages),
           "the min-sum messages (eq. 13-21), call " + std::to_string(messages) + " of the run", m);
      return m;
    };

    const ref::WeightGuide left = weight_guide(left_input);
    const ref::CostVolume c0 = initial_cost(left_input, right_input, range, clock);

    ref::CostVolume cost = c0;  // literal, centre: the aggregated costs; data: the messages A
    if (p.esmp_variant == "data") cost = ref::CostVolume(c0.width, c0.height, range, 0.0f);
    for (int t = 1; t <= p.iterations; ++t) {
      const int step = stereo::esaw::esaw_step(p.base, t);
      const ref::WeightParams weights{step, p.gamma_c, p.gamma_p, border_of(p.border)};
      for (int pass = 0; pass < 2; ++pass) {
        const auto aggr = pass == 0 ? ref::aggr_H : ref::aggr_V;
        const char* name = pass == 0 ? "aggr_H" : "aggr_V";
        if (p.esmp_variant == "literal") {
          const ref::CostVolume m = msg(cost);  // eq. 13 / 15
          cost = aggr(m, m, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);  // eq. 14 / 16
        } else if (p.esmp_variant == "costs") {  // control: no messages at all (ESAW with ESMP's settings)
          cost = aggr(cost, cost, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
        } else if (p.esmp_variant == "bp") {
          cost = ref::aggr_bp(cost, left, 1 - pass, pass, weights, p.c, eta, storage);
        } else if (p.esmp_variant == "sum") {
          const ref::CostVolume m = msg(cost);
          cost = ref::aggr_sum(m, m, left, 1 - pass, pass, weights, storage);
        } else if (p.esmp_variant == "bpsum") {
          // Belief propagation's own bookkeeping: the belief is the data plus every message
          // received (a sum, side weights not normalised), a message is the min-sum of the
          // sender's belief (new edges every pass: nothing to exclude). Each message is moved to
          // minimum 0, as BP normalises them: a per-pixel constant, so no argmin changes, and
          // the belief's minimum does not grow past fp16 over 16 passes.
          ref::CostVolume m = msg(cost);
          const int levels = m.range.count;
          for (std::size_t i = 0; i < m.data.size(); i += std::size_t(levels)) {
            const float lowest = *std::min_element(m.data.begin() + std::ptrdiff_t(i),
                                                   m.data.begin() + std::ptrdiff_t(i) + levels);
            for (int k = 0; k < levels; ++k) m.data[i + std::size_t(k)] -= lowest;
          }
          cost = ref::aggr_sum(cost, m, left, 1 - pass, pass, weights, storage);
        } else if (p.esmp_variant == "centre") {
          const ref::CostVolume m = msg(cost);
          cost = aggr(cost, m, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
        } else {  // data
          const ref::CostVolume m = msg(ref::add_volumes(c0, cost, storage));
          cost = aggr(cost, m, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
        }
        clock.lap(name);
        show_pass(name, t, step, cost);
      }
    }
    if (p.esmp_variant == "data") {
      cost = ref::add_volumes(c0, cost, storage);
      show("add_volumes", "C0 + the messages A: what select_disparity reads (esmp_variant=data)", cost);
    }
    result.disparity = disparity_of(cost, clock);
    clock.finish();
    return result;
  }
};

}  // namespace

void register_esaw_cpu(Registry& registry) {
  registry.add(ref::cpu_backend_entry<EsawCpu>(
      "esaw", "ESAW exponential-step adaptive-weight aggregation, CPU reference (Yu et al. TCSVT 2010)"));
}

void register_esmp_cpu(Registry& registry) {
  registry.add(ref::cpu_backend_entry<EsmpCpu>(
      "esmp", "ESMP exponential-step message propagation, CPU reference (Yu et al. TCSVT 2010)"));
}

}  // namespace stereo
