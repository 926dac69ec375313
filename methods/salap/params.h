#pragma once
/// \file methods/salap/params.h
/// SA-LAP: variable centre-biased windowing over a truncated separable Laplacian kernel.
/// J. Lu, G. Lafruit, F. Catthoor, "Fast variable center-biased windowing for high-speed
/// stereo on programmable graphics hardware", ICIP 2007. Shared by every backend.
///
/// Units: every backend works on costs normalised by tau (TAD / tau in [0,1]) and by the
/// kernel weights (C_L / F1, C_i / F with F1 = sum of the W+1 one-sided weights, F = F1^2), so
/// the window costs of eq. 3 become Ca/tau, Cb/tau, Cc/tau. That is the range an RGBA8
/// texture stores (paper Sec. 3), and it leaves the winner of eq. 4 unchanged when alpha and
/// beta are given in units of tau, as the paper states them (0.02 tau, 0.04 tau).

#include <string>

#include "core/error.h"
#include "stereo/salap.h"

namespace stereo {


/// stereo::salap::Params (stereo/salap.h) with its binding to the `--set` keys and
/// its range checks.
struct SalapParams : salap::Params {
  template <class B>
  void describe(B& b) {
    b.field("gamma", gamma, "kernel fall-off gamma_p (Lu et al. Sec. 4: 5.0)");
    b.field("window", window, "kernel size N, odd, (N-1)/2 even (Sec. 4: 33)");
    b.field("tau", tau, "TAD truncation in intensity levels (Sec. 4: 20)");
    b.field("alpha", alpha, "category-b penalty in units of tau (Sec. 4: 0.02)");
    b.field("beta", beta, "category-c penalty in units of tau (Sec. 4: 0.04)");
    b.choice("windows", windows, {"9", "4"}, "9-window method or the 4-window variant (Table 1)");
    b.choice("cost", cost, {"rgb_mean", "luma"},
             "TAD on the mean of per-channel |dRGB| or on BT.601 luma");
  }

  /// W = (N-1)/2, the quadrant reach.
  [[nodiscard]] int radius() const { return (window - 1) / 2; }

  void validate(const std::string& component) const {
    require(window >= 3 && window % 2 == 1,
            component + ": window N must be odd and >= 3, got " + std::to_string(window));
    require(radius() % 2 == 0, component + ": (N-1)/2 must be even (W/2 bilinear pairs), got W = " +
                                   std::to_string(radius()));
    require(radius() <= 64, component + ": window N at most 129, got " + std::to_string(window));
    require(gamma > 0.0f, component + ": gamma must be > 0, got " + number_text(gamma));
    require(tau > 0.0f && tau <= 255.0f, component + ": tau must be in (0, 255], got " + number_text(tau));
    require(alpha >= 0.0f && beta >= 0.0f, component + ": alpha and beta must be >= 0");
  }
};

}  // namespace stereo
