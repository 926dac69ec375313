// The `cpu` backend of the real-time cross-based method: the reference stages of
// reference/crossrt.h behind the Matcher interface, timed stage by stage with the host clock
// under the paper's Table II names.

#include <string>
#include <utility>

#include "methods/crossrt/register.h"
#include "methods/crossrt/params.h"
#include "reference/cpu_matcher.h"
#include "methods/crossrt/reference/crossrt.h"
#include "reference/grey.h"
#include "reference/host_stage_clock.h"
#include "reference/median.h"
#include "core/registry.h"

namespace stereo {
namespace {

class CrossRtCpu final : public reference::CpuMatcher<CrossRtParams> {
 public:
  explicit CrossRtCpu(const Overrides& overrides) : CpuMatcher("crossrt/cpu", overrides) {}

  StereoResult match(const ImageU8& left_input, const ImageU8& right_input, DisparityRange range) override {
    namespace rc = reference::crossrt;
    StereoResult result;
    reference::HostStageClock clock(result.timing);

    // Grey conversion is AD-Census's integer BT.601 luma (one definition in the suite).
    const ImageU8 grey_left = reference::grey_image(left_input);
    const ImageU8 grey_right = reference::grey_image(right_input);
    const ImageU8 left = rc::scale_down(grey_left, params_.scale);
    const ImageU8 right = rc::scale_down(grey_right, params_.scale);
    const DisparityRange levels = rc::scaled_range(range, params_.scale);
    clock.lap("SD");

    const auto ax_left = rc::arms_x(left, params_.wx, params_.tc);
    const auto ax_right = rc::arms_x(right, params_.wx, params_.tc);
    clock.lap("arms x");
    const auto ay_left = rc::arms_y(left, params_.wy, params_.tc);
    const auto ay_right = rc::arms_y(right, params_.wy, params_.tc);
    clock.lap("arms y");

    auto c = rc::cost(left, right, levels, params_);
    auto cax_left = rc::aggregate_x(c, ax_left, false);
    auto cax_right = rc::aggregate_x(c, ax_right, true);
    c = {};
    clock.lap("C+CA_x");

    auto ca = rc::aggregate_y(cax_left, ay_left);
    cax_left = {};
    const ImageF d_left = rc::wta(ca);
    // The GCP test compares integer levels; the post stages take the refined map when asked.
    const ImageF d_post = params_.subpixel ? rc::wta_subpixel(ca) : d_left;
    ca = rc::aggregate_y(cax_right, ay_right);
    cax_right = {};
    const ImageF d_right = rc::wta(ca);
    ca = {};
    clock.lap("CA");

    const auto g = rc::gcp(d_left, d_right);
    clock.lap("CC");

    ImageF d = rc::bilateral_fill(reference::median_3x3(d_post), g, left, params_.t);
    clock.lap("Post");

    if (params_.scale == 2) d = rc::scale_up(d, grey_left, params_.t, range);
    clock.lap("SU");

    result.disparity = std::move(d);
    clock.finish();
    return result;
  }
};

}  // namespace

void register_crossrt_cpu(Registry& registry) {
  registry.add(reference::cpu_backend_entry<CrossRtCpu>(
      "crossrt", "Chang-Maruyama real-time cross-based stereo, CPU reference (scale down x2, AD + mini-census, GCPs)"));
}

}  // namespace stereo
