// The `cpu` backends of ESAW and ESMP: the reference stages of reference/esaw.h behind the
// Matcher interface, timed stage by stage with the host clock.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "host/backends.h"
#include "host/methods/esaw.h"
#include "reference/esaw.h"

namespace stereo {
namespace {

namespace ref = reference;

// Adds the host time since the last lap to the named stage (stages repeat per iteration).
class StageClock {
 public:
  explicit StageClock(Timing& timing) : timing_(timing), last_(std::chrono::steady_clock::now()) {}
  void lap(const std::string& name) {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    for (auto& [stage, total] : timing_.stages)
      if (stage == name) {
        total += ms;
        return;
      }
    timing_.stages.emplace_back(name, ms);
  }

 private:
  Timing& timing_;
  std::chrono::steady_clock::time_point last_;
};

ref::Border border_of(const std::string& name) { return name == "clamp" ? ref::Border::clamp : ref::Border::drop; }

ref::Storage storage_of(const std::string& name) { return name == "fp16" ? ref::Storage::fp16 : ref::Storage::fp32; }

ref::ColourDistance colour_of(const std::string& name) {
  if (name == "lab") return ref::ColourDistance::lab;
  if (name == "lab8") return ref::ColourDistance::lab8;
  return ref::ColourDistance::max_rgb;
}

class EsawCpu final : public Matcher {
 public:
  explicit EsawCpu(const Overrides& overrides) {
    params_json_ = bind_params("esaw/cpu", overrides, params_);
    params_.validate("esaw/cpu");
  }

  StereoResult match(const ImageU8& left_input, const ImageU8& right_input, DisparityRange range) override {
    StereoResult result;
    result.timing.clock = "host clock";
    const auto start = std::chrono::steady_clock::now();
    StageClock clock(result.timing);
    const EsawParams& p = params_;
    const ref::Storage storage = storage_of(p.storage);

    const ref::WeightGuide left(to_rgb(left_input), colour_of(p.colour));
    const ImageU8 grey_left = ref::rgb2grey(to_rgb(left_input));
    const ImageU8 grey_right = ref::rgb2grey(to_rgb(right_input));
    clock.lap("rgb2grey");
    ref::CostVolume cost = ref::init_cost(grey_left, grey_right, range, p.lambda, p.tau, storage);
    clock.lap("init_cost");
    for (int t = 1; t <= p.iterations; ++t) {
      const int step = esaw_step(p.base, t);
      cost = ref::aggr_H(cost, cost, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
      clock.lap("aggr_H");
      cost = ref::aggr_V(cost, cost, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
      clock.lap("aggr_V");
    }
    result.disparity = ref::select_disparity(cost);
    clock.lap("select_disparity");
    if (p.median) {
      result.disparity = ref::median_filter(result.disparity);
      clock.lap("median_filter");
    }
    result.timing.algorithm_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  [[nodiscard]] nlohmann::json params() const override { return params_json_; }
  [[nodiscard]] std::string component() const override { return "esaw/cpu"; }
  [[nodiscard]] std::string device() const override { return cpu_name(); }

 private:
  EsawParams params_;
  nlohmann::json params_json_;
};

class EsmpCpu final : public Matcher {
 public:
  explicit EsmpCpu(const Overrides& overrides) {
    params_json_ = bind_params("esmp/cpu", overrides, params_);
    params_.validate("esmp/cpu");
  }

  StereoResult match(const ImageU8& left_input, const ImageU8& right_input, DisparityRange range) override {
    StereoResult result;
    result.timing.clock = "host clock";
    const auto start = std::chrono::steady_clock::now();
    StageClock clock(result.timing);
    const EsmpParams& p = params_;
    const ref::Storage storage = storage_of(p.storage);
    // eta = 0.0375 d_m, d_m "the maximum disparity value" (Sec. III-B), read as the span of
    // the range (levels - 1): the same for the paper's ranges, which start at 0, and never
    // negative (a range below zero would otherwise truncate every message under its minimum).
    const float eta = p.eta_factor * float(range.count - 1);
    const auto msg = [&](const ref::CostVolume& v) {
      ref::CostVolume m = ref::cost2msg(v, p.c, eta, storage);
      clock.lap("cost2msg");
      return m;
    };

    const ref::WeightGuide left(to_rgb(left_input), colour_of(p.colour));
    const ImageU8 grey_left = ref::rgb2grey(to_rgb(left_input));
    const ImageU8 grey_right = ref::rgb2grey(to_rgb(right_input));
    clock.lap("rgb2grey");
    const ref::CostVolume c0 = ref::init_cost(grey_left, grey_right, range, p.lambda, p.tau, storage);
    clock.lap("init_cost");

    ref::CostVolume cost = c0;  // literal, centre: the aggregated costs; data: the messages A
    if (p.esmp_variant == "data") cost = ref::CostVolume(c0.width, c0.height, range, 0.0f);
    for (int t = 1; t <= p.iterations; ++t) {
      const int step = esaw_step(p.base, t);
      for (int pass = 0; pass < 2; ++pass) {
        const auto aggr = pass == 0 ? ref::aggr_H : ref::aggr_V;
        const char* name = pass == 0 ? "aggr_H" : "aggr_V";
        if (p.esmp_variant == "literal") {
          const ref::CostVolume m = msg(cost);  // eq. 13 / 15
          cost = aggr(m, m, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);  // eq. 14 / 16
        } else if (p.esmp_variant == "costs") {  // control: no messages at all (ESAW with ESMP's settings)
          cost = aggr(cost, cost, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
        } else if (p.esmp_variant == "bp") {
          cost = ref::aggr_bp(cost, left, 1 - pass, pass, step, p.gamma_c, p.gamma_p, border_of(p.border), p.c, eta,
                              storage);
        } else if (p.esmp_variant == "sum") {
          const ref::CostVolume m = msg(cost);
          cost = ref::aggr_sum(m, m, left, 1 - pass, pass, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
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
          cost = ref::aggr_sum(cost, m, left, 1 - pass, pass, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
        } else if (p.esmp_variant == "centre") {
          const ref::CostVolume m = msg(cost);
          cost = aggr(cost, m, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
        } else {  // data
          const ref::CostVolume m = msg(ref::add_volumes(c0, cost, storage));
          cost = aggr(cost, m, left, step, p.gamma_c, p.gamma_p, border_of(p.border), storage);
        }
        clock.lap(name);
      }
    }
    if (p.esmp_variant == "data") cost = ref::add_volumes(c0, cost, storage);
    result.disparity = ref::select_disparity(cost);
    clock.lap("select_disparity");
    if (p.median) {
      result.disparity = ref::median_filter(result.disparity);
      clock.lap("median_filter");
    }
    result.timing.algorithm_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  [[nodiscard]] nlohmann::json params() const override { return params_json_; }
  [[nodiscard]] std::string component() const override { return "esmp/cpu"; }
  [[nodiscard]] std::string device() const override { return cpu_name(); }

 private:
  EsmpParams params_;
  nlohmann::json params_json_;
};

}  // namespace

void register_esaw_cpu(Registry& registry) {
  registry.add({"esaw", "cpu", "ESAW exponential-step adaptive-weight aggregation, CPU reference (Yu et al. TCSVT 2010)",
                [] { return std::optional<std::string>{}; },
                [](const Overrides& o) -> std::unique_ptr<Matcher> { return std::make_unique<EsawCpu>(o); }});
}

void register_esmp_cpu(Registry& registry) {
  registry.add({"esmp", "cpu", "ESMP exponential-step message propagation, CPU reference (Yu et al. TCSVT 2010)",
                [] { return std::optional<std::string>{}; },
                [](const Overrides& o) -> std::unique_ptr<Matcher> { return std::make_unique<EsmpCpu>(o); }});
}

}  // namespace stereo
