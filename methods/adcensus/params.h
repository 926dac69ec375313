#pragma once
/// \file methods/adcensus/params.h
/// AD-Census: X. Mei, X. Sun, M. Zhou, S. Jiao, H. Wang, X. Zhang, "On building an accurate
/// stereo matching system on graphics hardware", ICCV Workshops 2011. Parameters of every
/// backend; the defaults are the paper's Table 1 unless a comment says why not.

#include <string>

#include "core/error.h"
#include "stereo/adcensus.h"

namespace stereo {


/// stereo::adcensus::Params (stereo/adcensus.h) with its binding to the `--set` keys and
/// its range checks.
struct AdCensusParams : adcensus::Params {
  template <class B>
  void describe(B& b) {
    b.field("lambda_ad", lambda_ad, "rho fall-off of the AD cost (Mei et al. Table 1: 10)");
    b.field("lambda_census", lambda_census, "rho fall-off of the census cost (Table 1: 30)");
    b.field("arm_l1", arm_l1, "longest cross arm L1 in pixels (Table 1: 34)");
    b.field("arm_l2", arm_l2, "arm length L2 beyond which tau2 applies (Table 1: 17)");
    b.field("tau1", tau1, "cross colour threshold tau1 (Table 1: 20)");
    b.field("tau2", tau2, "cross colour threshold tau2 beyond L2 (Table 1: 6)");
    b.field("aggregation_iterations", aggregation_iterations, "cross aggregation iterations (Sec. 2.2: 4)");
    b.field("pi1", pi1, "scanline penalty Pi1 (Table 1: 1.0)");
    b.field("pi2", pi2, "scanline penalty Pi2 (Table 1: 3.0)");
    b.field("tau_so", tau_so, "scanline colour threshold tau_SO (Table 1: 15)");
    b.field("tau_s", tau_s, "region voting: reliable pixels needed, tau_S (Table 1: 20)");
    b.field("tau_h", tau_h, "region voting: winning share needed, tau_H (Table 1: 0.4)");
    b.field("voting_iterations", voting_iterations, "region voting iterations (Sec. 2.4: 5)");
    b.field("out_of_image_cost", out_of_image_cost,
            "cost of a match outside the other image (not in the paper: 2.0, the bound of eq. 2)");
    b.choice("refine", refine, {"none", "lrc", "vote", "interp", "adjust", "subpixel", "full"},
             "stop after this refinement step (none = WTA of the scanline costs; full = every step + median)");
  }

  void validate(const std::string& component) const {
    require(lambda_ad > 0.0f && lambda_census > 0.0f, component + ": lambda_ad and lambda_census must be > 0");
    require(arm_l1 >= 1 && arm_l1 <= 255, component + ": arm_l1 must be in 1..255, got " + std::to_string(arm_l1));
    require(arm_l2 >= 0 && arm_l2 <= arm_l1,
            component + ": arm_l2 must be in 0..arm_l1, got " + std::to_string(arm_l2));
    require(tau1 >= 0 && tau2 >= 0, component + ": tau1 and tau2 must be >= 0");
    require(aggregation_iterations >= 0, component + ": aggregation_iterations must be >= 0");
    require(pi1 >= 0.0f && pi2 >= pi1, component + ": need 0 <= pi1 <= pi2");
    require(tau_so >= 0, component + ": tau_so must be >= 0");
    require(tau_s >= 0 && tau_h >= 0.0f && tau_h <= 1.0f, component + ": need tau_s >= 0 and tau_h in [0, 1]");
    require(voting_iterations >= 0, component + ": voting_iterations must be >= 0");
    // Eq. 2 lies in [0, 2); the CUDA aggregation's fixed-point integral is sized for costs <= 2.
    require(out_of_image_cost >= 0.0f && out_of_image_cost <= 2.0f,
            component + ": out_of_image_cost must be in [0, 2] (the range of eq. 2), got " +
                number_text(out_of_image_cost));
  }
};

}  // namespace stereo
