// The `cpu` backend of AD-Census: the reference stages of reference/adcensus.h and
// reference/adcensus_refine.h behind the Matcher interface, timed stage by stage with the host
// clock. The right view's aggregated volume is the left one's, skewed (right_view_from_left);
// from there both views run the same stages (the right view with right_view = true). The right
// view is skipped when refine = none, where nothing reads it.

#include <string>
#include <utility>

#include "methods/adcensus/register.h"
#include "methods/adcensus/params.h"
#include "methods/adcensus/reference/adcensus.h"
#include "methods/adcensus/reference/adcensus_inspect.h"
#include "methods/adcensus/reference/adcensus_refine.h"
#include "reference/cpu_matcher.h"
#include "reference/host_stage_clock.h"
#include "core/registry.h"

namespace stereo {
namespace {

class AdCensusCpu final : public reference::CpuMatcher<AdCensusParams> {
 public:
  explicit AdCensusCpu(const Overrides& overrides) : CpuMatcher("adcensus/cpu", overrides) {}

  // The stages are copied out of the run when asked (adcensus_inspect.h), outside no timing
  // of their own: a kept run's scanline lap includes the copies.
  StereoResult run(const ImageU8& left_input, const ImageU8& right_input, DisparityRange range) override {
    StereoResult result;
    reference::HostStageClock clock(result.timing);
    const std::string& stop = params_.refine;
    const bool both_views = stop != "none";

    const ImageU8 left = to_rgb(left_input);
    const ImageU8 right = to_rgb(right_input);
    const reference::CensusImage left_census = reference::census_transform(reference::grey_image(left));
    const reference::CensusImage right_census = reference::census_transform(reference::grey_image(right));
    reference::CostVolume cost_left =
        reference::ad_census_cost({left, right, left_census, right_census}, range, params_, false);
    clock.lap("cost");

    // Both views' arms: each view's region at d combines p's cross with pd's (Zhang et al.).
    const reference::CrossArms arms_left = reference::cross_arms(left, params_);
    const reference::CrossArms arms_right = reference::cross_arms(right, params_);
    clock.lap("cross");

    for (int i = 1; i <= params_.aggregation_iterations; ++i)
      cost_left = reference::aggregate_cost(cost_left, arms_left, arms_right, i, false);
    // The right view's region at (x, d) is the left view's at (x + d, d) and its cost the same
    // pair's: its aggregated volume is the left one's, skewed (right_view_from_left).
    reference::CostVolume cost_right;
    if (both_views) cost_right = reference::right_view_from_left(cost_left, params_.out_of_image_cost);
    clock.lap("aggregate");

    const reference::CostVolume c2_left = reference::scanline_optimize(cost_left, left, right, params_, false);
    cost_left = {};
    reference::CostVolume c2_right;
    if (both_views) c2_right = reference::scanline_optimize(cost_right, left, right, params_, true);
    if (keeping())
      reference::keep_adcensus_stages(kept_stages(), {left_census, right_census, arms_left, arms_right,
                                        both_views ? &cost_right : nullptr, c2_left,
                                        both_views ? &c2_right : nullptr});
    cost_right = {};
    clock.lap("scanline");

    ImageF disparity = reference::winner_takes_all(c2_left);
    ImageF right_disparity;
    if (both_views) right_disparity = reference::winner_takes_all(c2_right);
    c2_right = {};
    clock.lap("wta");

    const auto finish = [&](ImageF map) {
      result.disparity = std::move(map);
      clock.finish();
      return std::move(result);
    };
    if (stop == "none") return finish(std::move(disparity));

    reference::RefinedDisparity refined{disparity, reference::left_right_check(disparity, right_disparity, range)};
    clock.lap("refine lrc");
    if (stop == "lrc") return finish(reference::with_outliers_as_inf(refined.disparity, refined.outliers));

    refined = reference::region_voting(refined.disparity, refined.outliers, arms_left, range, params_);
    clock.lap("refine vote");
    if (stop == "vote") return finish(reference::with_outliers_as_inf(refined.disparity, refined.outliers));

    refined = reference::proper_interpolation(refined.disparity, refined.outliers, left);
    clock.lap("refine interp");
    // A pixel with no reliable pixel in any of the 16 directions stays without a disparity.
    disparity = reference::with_outliers_as_inf(refined.disparity, refined.outliers);
    if (stop == "interp") return finish(std::move(disparity));

    disparity = reference::discontinuity_adjustment(disparity, c2_left);
    clock.lap("refine adjust");
    if (stop == "adjust") return finish(std::move(disparity));

    disparity = reference::subpixel_enhancement(disparity, c2_left);
    clock.lap("refine subpixel");
    if (stop == "subpixel") return finish(std::move(disparity));

    disparity = reference::median_3x3(disparity);
    clock.lap("refine median");
    return finish(std::move(disparity));
  }
};

}  // namespace

void register_adcensus_cpu(Registry& registry) {
  registry.add(reference::cpu_backend_entry<AdCensusCpu>(
      "adcensus", "AD-Census cross aggregation + scanline optimisation, CPU reference (Mei et al. ICCV-W 2011)"));
}

}  // namespace stereo
