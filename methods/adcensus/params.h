#pragma once
/// \file host/methods/adcensus.h
/// AD-Census: X. Mei, X. Sun, M. Zhou, S. Jiao, H. Wang, X. Zhang, "On building an accurate
/// stereo matching system on graphics hardware", ICCV Workshops 2011. Parameters of every
/// backend; the defaults are the paper's Table 1 unless a comment says why not.

#include <string>

#include "core/error.h"

namespace stereo {

struct AdCensusParams {
  float lambda_ad = 10.0f;      // rho fall-off of C_AD, Table 1
  float lambda_census = 30.0f;  // rho fall-off of C_census, Table 1
  int arm_l1 = 34;              // L1, longest arm, Table 1
  int arm_l2 = 17;              // L2, beyond which the tighter tau2 applies, Table 1
  int tau1 = 20;                // colour threshold tau1, Table 1
  int tau2 = 6;                 // colour threshold tau2, Table 1
  int aggregation_iterations = 4;  // Sec. 2.2: 4 iterations, alternating H/V order
  float pi1 = 1.0f;             // Pi1, Table 1
  float pi2 = 3.0f;             // Pi2, Table 1
  int tau_so = 15;              // tau_SO, Table 1
  int tau_s = 20;               // region voting: minimum reliable pixels, Table 1
  float tau_h = 0.4f;           // region voting: minimum winning share, Table 1
  int voting_iterations = 5;    // Sec. 2.4: 5 iterations
  // Not in the paper (a choice): the cost of a match p - d outside the other image. 2.0 is the
  // bound of eq. 2 (each rho < 1), so such a match never beats one inside the image and the
  // pixel is left to the LR check and the refinement, which exist for occlusions like it.
  float out_of_image_cost = 2.0f;
  std::string refine = "full";  // stop after a refinement step, for the paper's Fig. 7 table

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
                std::to_string(out_of_image_cost));
  }
};

}  // namespace stereo
