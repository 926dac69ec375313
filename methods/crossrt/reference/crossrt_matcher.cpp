// The `cpu` backend of the real-time cross-based method: the reference stages of
// reference/crossrt.h behind the Matcher interface, timed stage by stage with the host clock
// under the paper's Table II names. Each stage's output is shown to the pass inspector under
// the names crossrt/cuda gives the same buffers (cuda/crossrt_inspect.h), so a CUDA buffer
// compares with its CPU twin by name; the CPU adds the volumes the CUDA stages never store
// (C, and CA before its winner-takes-all).

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

  StereoResult run(const ImageU8& left_input, const ImageU8& right_input, DisparityRange range) override {
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
    show("SD.left", "the scaled grey image (eq. 2)", left);
    show("SD.right", "the scaled grey image (eq. 2)", right);

    const auto ax_left = rc::arms_x(left, params_.wx, params_.tc);
    const auto ax_right = rc::arms_x(right, params_.wx, params_.tc);
    clock.lap("arms x");
    show("arms x.left", "horizontal arm lengths: left, right", ax_left);
    show("arms x.right", "horizontal arm lengths: left, right", ax_right);
    const auto ay_left = rc::arms_y(left, params_.wy, params_.tc);
    const auto ay_right = rc::arms_y(right, params_.wy, params_.tc);
    clock.lap("arms y");
    show("arms y.left", "vertical arm lengths: up, down", ay_left);
    show("arms y.right", "vertical arm lengths: up, down", ay_right);

    auto c = rc::cost(left, right, levels, params_);
    auto cax_left = rc::aggregate_x(c, ax_left, false);
    auto cax_right = rc::aggregate_x(c, ax_right, true);
    clock.lap("C+CA_x");
    show("C+CA_x.cost", "C: AD + mini-census cost (eq. 3-5), per scaled level", c);
    show("C+CA_x.left", "CA_x: the cost summed along the horizontal arms (eq. 3-7), per scaled level", cax_left);
    show("C+CA_x.right", "CA_x: the cost summed along the horizontal arms (eq. 3-7), per scaled level", cax_right);
    c = {};

    auto ca = rc::aggregate_y(cax_left, ay_left);
    cax_left = {};
    const ImageF d_left = rc::wta(ca);
    // The GCP test compares integer levels; the post stages take the refined map when asked.
    const ImageF d_post = params_.subpixel ? rc::wta_subpixel(ca) : d_left;
    show("CA.volume_left", "CA: CA_x summed along the vertical arms (eq. 8), per scaled level", ca);
    ca = rc::aggregate_y(cax_right, ay_right);
    cax_right = {};
    const ImageF d_right = rc::wta(ca);
    show("CA.volume_right", "CA: CA_x summed along the vertical arms (eq. 8), per scaled level", ca);
    ca = {};
    clock.lap("CA");
    show("CA.left", "the winner-takes-all of CA (eq. 8-9), scaled disparity", d_left);
    show("CA.right", "the winner-takes-all of CA (eq. 8-9), scaled disparity", d_right);

    const auto g = rc::gcp(d_left, d_right);
    clock.lap("CC");
    show("CC", "the ground control points (eq. 10): 1 where the maps agree", g);

    const ImageF median = reference::median_3x3(d_post);
    ImageF d = rc::bilateral_fill(median, g, left, params_.t);
    clock.lap("Post");
    show("Post.median", "the 3x3 median of the left map", median);
    show("Post", "the filled map (eq. 11)", d);

    if (params_.scale == 2) d = rc::scale_up(d, grey_left, params_.t, range);
    clock.lap("SU");
    if (params_.scale == 2) show("SU", "the full-size map (Sec. IV-H)", d);

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
