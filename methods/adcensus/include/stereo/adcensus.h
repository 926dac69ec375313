#pragma once
/// \file methods/adcensus/include/stereo/adcensus.h
/// AD-Census: X. Mei, X. Sun, M. Zhou, S. Jiao, H. Wang, X. Zhang, "On building an accurate
/// stereo matching system on graphics hardware", ICCV Workshops 2011. Parameters of every
/// backend; the defaults are the paper's Table 1 unless a comment says why not.
///
/// The parameters as a typed struct (stereo::adcensus::Params): fields with the paper's defaults,
/// each citing where it comes from, and create() for it beside the string overrides (`--set`,
/// stereo/stereo.h's create(name, backend, overrides)); both bind the same keys.

#include <string>

#include "stereo/params.h"

namespace stereo {

namespace adcensus {

struct Params {
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
};

}  // namespace adcensus

class StereoMatcher;  // stereo/stereo.h, which a caller of create() includes

/// The matcher of adcensus on `backend` with `params`; `options` sets the backend's own knobs
/// (stereo::options("adcensus", backend)) and may name parameters too, which then win over
/// `params`. The map is the one create("adcensus", backend, overrides) gives for the same values.
/// Throws stereo::Error as that create() does (a value out of range names the key).
StereoMatcher create(const adcensus::Params& params, const std::string& backend, const Overrides& options = {});

}  // namespace stereo
