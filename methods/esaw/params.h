#pragma once
/// \file methods/esaw/params.h
/// ESAW and ESMP: W. Yu, T. Chen, F. Franchetti, J. C. Hoe, "High performance
/// stereo vision designed for massively data parallel platforms", IEEE TCSVT 2010. ESAW
/// aggregates the truncated grey-level cost over three samples {p - s, p, p + s} per pass with
/// adaptive weights, the step s = round(b^(t-1)) growing exponentially (eq. 3-7); ESMP maps
/// the costs to min-sum messages with V(x) = min(c|x|, eta) before every pass (eq. 13-21).
/// Parameters of every backend; the defaults are the paper's Table III unless a comment says
/// why not.
///
/// Choices the paper leaves open (measured on Middlebury v2: docs/methods/esaw.md and esmp.md):
///  - Delta_c, the colour distance of the adaptive weight (`colour`): the paper computes its
///    weight "as in [17]" (Sec. III-A), and [17] (Yoon and Kweon) measures Delta_c as the
///    Euclidean distance in CIELab; it does not say in which units. The default, `lab8`, is that
///    distance between CIELab colours as 8-bit images hold them (L* x 255/100, a* + 128,
///    b* + 128, rounded), on every backend; `lab` (L* in 0..100, floats; cpu only) and `max_rgb`
///    (the largest RGB channel difference, the suite's first reading) are selectable;
///    methods/esaw/cuda/NOTES.md "Accuracy readings" has the measurements (grey-level differences lose
///    about 3 points);
///  - the weight of a side sample q = p +- s is exp(-Delta_c/gamma_c) exp(-s/gamma_p), the
///    centre's is 1 (Delta_c = Delta_g = 0), normalised over the samples inside the image; a
///    sample outside the image is dropped (weight 0), so steps longer than the image leave
///    the costs as they are;
///  - weights from the reference (left) image only, as RtAW [4] which ESAW extends;
///  - a match x - d outside the right image reads the right image's edge column (clamp to
///    edge); costing it lambda * tau instead, the most eq. 3 gives, loses 1.2 points of the
///    average (9.48 against 8.33 at 9 iterations: the left band of every scene goes wrong);
///  - ESAW's lambda: Table III gives none; every pass is linear in the costs and the WTA is
///    scale-free, so lambda = 1 (any value gives the same disparities).

#include <string>

#include "core/error.h"
#include "stereo/esaw.h"

namespace stereo {


/// Whether a component name ("esaw/cuda", "esmp/cpu", ...) names the CUDA backend: some
/// readings exist on the cpu backend only, and validate() refuses them there.
inline bool on_cuda(const std::string& component) {
  return component.size() >= 5 && component.compare(component.size() - 5, 5, "/cuda") == 0;
}

/// Describes the choices ESAW and ESMP share, alike: storage, border, colour and median.
template <class B, class P>
void describe_shared_choices(B& b, P& p) {
  b.choice("storage", p.storage, {"fp16", "fp32"},
           "precision of the cost volume between passes (a choice: fp16 halves the CUDA traffic)");
  b.choice("border", p.border, {"drop", "clamp"},
           "a sample outside the image: drop it (weight 0) or read the edge pixel (clamp, a texture's addressing)");
  b.choice("colour", p.colour, {"lab8", "lab", "max_rgb"},
           "Delta_c of the weight: the CIELab distance of Yoon-Kweon [17] (Sec. III-A: \"computed as in [17]\"), "
           "lab8 = as 8-bit images hold CIELab (the default; Middlebury v2 avg of 12: ESAW-9 8.44, ESAW-5 9.20, "
           "ESMP 8.34), lab = L* in 0..100 (cpu only); or max_rgb, the largest RGB channel difference");
  b.field("median", p.median, "3x3 median of the disparity map (step 4)");
}

/// Checks the ranges ESAW and ESMP share: iterations, base, gamma_c, gamma_p, tau and lambda;
/// and that a CUDA component reads a colour its kernels have (max_rgb, lab8).
template <class P>
void validate_shared_ranges(const P& p, const std::string& component) {
  require(!on_cuda(component) || p.colour != "lab",
          component + ": colour=lab runs on the cpu backend only (the CUDA weights read max_rgb or lab8, the "
                      "8-bit CIELab)");
  require(p.iterations >= 1 && p.iterations <= 20,
          component + ": iterations must be in 1..20, got " + std::to_string(p.iterations));
  require(p.base >= 1.0f && p.base <= 8.0f, component + ": base must be in [1, 8], got " + number_text(p.base));
  require(p.gamma_c > 0.0f && p.gamma_p > 0.0f, component + ": gamma_c and gamma_p must be > 0");
  require(p.tau > 0.0f && p.tau <= 255.0f, component + ": tau must be in (0, 255], got " + number_text(p.tau));
  require(p.lambda > 0.0f, component + ": lambda must be > 0, got " + number_text(p.lambda));
}

/// ESAW (Sec. III-A). Defaults: Table III, 9 iterations.
/// stereo::esaw::Params (stereo/esaw.h) with its binding to the `--set` keys and
/// its range checks.
struct EsawParams : esaw::Params {
  template <class B>
  void describe(B& b) {
    b.field("iterations", iterations, "T, aggregation iterations (Table III: 9; 5 with base 2.6)");
    b.field("base", base, "b of the step s = round(b^(t-1)), eq. 4 (Table III: 1.90 at 9 iterations, 2.60 at 5)");
    b.field("gamma_c", gamma_c, "colour fall-off of the adaptive weight (Table III: 17)");
    b.field("gamma_p", gamma_p, "spatial fall-off of the adaptive weight (Table III: 36)");
    b.field("tau", tau, "truncation of the grey difference, eq. 3 (Table III: 12)");
    b.field("lambda", lambda, "cost scale of eq. 3 (not in Table III for ESAW; no effect on the result)");
    describe_shared_choices(b, *this);
  }

  void validate(const std::string& component) const {
    validate_shared_ranges(*this, component);
  }
};

/// ESMP (Sec. III-B). Defaults: Table III, 8 iterations.
/// stereo::esmp::Params (stereo/esaw.h) with its binding to the `--set` keys and
/// its range checks.
struct EsmpParams : esmp::Params {
  template <class B>
  void describe(B& b) {
    b.field("iterations", iterations, "T, aggregation iterations (Table III: 8)");
    b.field("base", base, "b of the step s = round(b^(t-1)), eq. 4 (Table III: 2.80)");
    b.field("gamma_c", gamma_c, "colour fall-off of the adaptive weight (Table III: 18)");
    b.field("gamma_p", gamma_p, "spatial fall-off of the adaptive weight (Table III: 29)");
    b.field("tau", tau, "truncation of the grey difference, eq. 3 (Table III: 17)");
    b.field("lambda", lambda, "cost scale of eq. 3 (Table III: 0.15)");
    b.field("c", c, "slope of V(x) = min(c|x|, eta), eq. 10 (Table III: 1)");
    b.field("eta_factor", eta_factor, "eta = eta_factor * d_max, eq. 10 (Table III: 0.0375)");
    b.choice("esmp_variant", esmp_variant, {"literal", "centre", "data", "bp", "bpsum", "sum", "costs"},
             "reading of eq. 13-16 (literal = as written, the default; bp, bpsum, sum, costs: cpu only; README \"ESMP readings\")");
    describe_shared_choices(b, *this);
  }

  void validate(const std::string& component) const {
    validate_shared_ranges(*this, component);
    require(c >= 0.0f && eta_factor >= 0.0f, component + ": c and eta_factor must be >= 0");
    // The readings bp, sum and costs exist on the cpu backend only; the CUDA matcher knows
    // literal and centre (and rejects data itself), so refuse the rest here rather than let it
    // run another reading under their name.
    const bool cuda = on_cuda(component);
    require(!cuda || esmp_variant == "literal" || esmp_variant == "centre" || esmp_variant == "data",
            component + ": esmp_variant=" + esmp_variant + " runs on the cpu backend only (README \"ESMP readings\")");
  }
};

}  // namespace stereo
