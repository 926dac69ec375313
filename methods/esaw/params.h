#pragma once
/// \file host/methods/esaw.h
/// ESAW and ESMP: W. Yu, T. Chen, F. Franchetti, J. C. Hoe, "High performance
/// stereo vision designed for massively data parallel platforms", IEEE TCSVT 2010. ESAW
/// aggregates the truncated grey-level cost over three samples {p - s, p, p + s} per pass with
/// adaptive weights, the step s = round(b^(t-1)) growing exponentially (eq. 3-7); ESMP maps
/// the costs to min-sum messages with V(x) = min(c|x|, eta) before every pass (eq. 13-21).
/// Parameters of every backend; the defaults are the paper's Table III unless a comment says
/// why not.
///
/// Choices the paper leaves open (measured on Middlebury v2, see README "ESAW and ESMP"):
///  - Delta_c, the colour distance of the adaptive weight (`colour`): the paper computes its
///    weight "as in [17]" (Sec. III-A), and [17] (Yoon and Kweon) measures Delta_c as the
///    Euclidean distance in CIELab; it does not say in which units. The default, `lab8`, is that
///    distance between CIELab colours as 8-bit images hold them (L* x 255/100, a* + 128,
///    b* + 128, rounded), on every backend; `lab` (L* in 0..100, floats; cpu only) and `max_rgb`
///    (the largest RGB channel difference, the suite's first reading) are selectable;
///    cuda/esaw/NOTES.md "Accuracy readings" has the measurements (grey-level differences lose
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
  require(p.base >= 1.0f && p.base <= 8.0f, component + ": base must be in [1, 8], got " + std::to_string(p.base));
  require(p.gamma_c > 0.0f && p.gamma_p > 0.0f, component + ": gamma_c and gamma_p must be > 0");
  require(p.tau > 0.0f && p.tau <= 255.0f, component + ": tau must be in (0, 255], got " + std::to_string(p.tau));
  require(p.lambda > 0.0f, component + ": lambda must be > 0, got " + std::to_string(p.lambda));
}

/// ESAW (Sec. III-A). Defaults: Table III, 9 iterations.
struct EsawParams {
  int iterations = 9;      // T, Table III (9 iterations; the 5-iteration row uses base = 2.6)
  float base = 1.90f;      // b of eq. 4, Table III at 9 iterations
  float gamma_c = 17.0f;   // colour fall-off of the weight, Table III
  float gamma_p = 36.0f;   // spatial fall-off of the weight, Table III
  float tau = 12.0f;       // truncation of eq. 3, Table III
  float lambda = 1.0f;     // eq. 3 scale: not in Table III for ESAW, and without effect (see above)
  // The cost volume between passes: "fp16" rounds every pass's output to half precision (what
  // the CUDA backend stores, to halve its memory traffic), "fp32" keeps single precision. The
  // CPU reference models the same rounding so that the two backends can be compared exactly.
  std::string storage = "fp16";
  std::string border = "drop";  // a sample p +- s outside the image: a choice, see the file comment
  // Delta_c of the weight: the CIELab distance of [17] in its 8-bit encoding, see
  // EsmpParams::colour. Measured avg of 12 at 9 / 5 iterations (cpu, Middlebury v2): lab8 8.44 /
  // 9.20 (more iterations help, as Table IV has it: 8.2 / 9.6); max_rgb 8.33 / 9.69; lab 10.67 /
  // 9.72 (more iterations hurt).
  std::string colour = "lab8";
  bool median = true;      // step 4: 3x3 median of the disparity map
  // The CUDA backend's own knobs (slab size, graph, fused kernels) are its Options
  // (methods/esaw/cuda/esaw_cuda.cpp, EsawCudaOptions): none changes the result.

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
struct EsmpParams {
  int iterations = 8;      // T, Table III
  // b of eq. 4, Table III. Its steps 482 and 1349 (iterations 7, 8) reach past every v2 image,
  // so those passes do nothing here; base = 2.0 measures 7.71 against 8.82 (README).
  float base = 2.80f;
  float gamma_c = 18.0f;   // Table III
  float gamma_p = 29.0f;   // Table III
  float tau = 17.0f;       // Table III
  float lambda = 0.15f;    // eq. 3 scale, Table III
  float c = 1.0f;          // slope of V(x) = min(c|x|, eta), eq. 10, Table III
  float eta_factor = 0.0375f;  // eta = eta_factor * d_max, Table III (d_max read as levels - 1)
  // How eq. 13-16 are read (README "ESMP readings", measured avg of 12 on Middlebury v2 at
  // Table III's settings):
  //  literal: every sample of every pass is a message, as eq. 14/16 are written (8.82; 7.71
  //           with base 2.0). Min-sum with a truncated linear V is idempotent and a weighted mean
  //           of messages is a fixed point of it, so this is ESAW on cost2msg(C0) with ESMP's
  //           weights: the later cost2msg passes change nothing. It is the only reading that
  //           fits all of the paper: one isotropic message volume ("1/4 of BP's memory"), Table
  //           II's aggr_H+/aggr_V+ reading one volume at three taps, Fig. 6 summing p's own message.
  //  centre:  eq. 9 read with q = p: d_q = d_p there and V(0) = 0, so p's own term is its
  //           cost, not its message; only the two side samples send messages (9.15).
  //  data:    the data cost kept apart from the propagated messages, as belief propagation
  //           keeps it: A = w_c A(p) + w_l M(p_l) + w_r M(p_r) with M = cost2msg(C0 + A), the
  //           WTA on C0 + A (17.3: p's single-pixel cost weighs as much as all it gathered).
  //  bp:      belief propagation's messages without the receiver's own contribution, with a
  //           left-going and a right-going buffer per pass (reference::aggr_bp; 8.78). Sent in
  //           one synchronous round it would equal `centre`: an edge p, p + s is new in every pass.
  //  bpsum:   BP's bookkeeping: belief = C0 + the sum of all messages received (weights not
  //           normalised), message = min-sum of the sender's belief, moved to minimum 0 (15.4).
  //  sum:     eq. 14/16 as Fig. 6's plain sum, the weights not normalised (13.2).
  //  costs:   control, no messages at all: ESAW with ESMP's settings (9.79).
  // None reaches the paper's 7.42 at b = 2.8; literal is the paper's own structure, the default.
  std::string esmp_variant = "literal";
  std::string storage = "fp16";  // as EsawParams::storage
  std::string border = "drop";   // as EsawParams::border
  // Delta_c, the colour distance of the adaptive weight (cuda/esaw/NOTES.md "Accuracy
  // readings"): Sec. III-A says "w is the normalized weight computed as in [17]", and [17]
  // (Yoon and Kweon) measures Delta_c as the Euclidean distance in CIELab. lab8: that distance
  // between CIELab colours as 8-bit images hold them (L* x 255/100, a* + 128, b* + 128, rounded;
  // cpu and cuda, bit-exact). Measured avg of 12 (cpu, Middlebury v2): lab8 8.34, the only reading
  // that keeps both of the paper's orderings (ESMP below ESAW, here 8.44, Sec. V; ESAW better at 9
  // iterations than at 5); max_rgb 8.82 (ESAW 8.33), lab (L* 0..100; cpu only) 8.66 (ESAW 10.67).
  std::string colour = "lab8";
  bool median = true;
  // The CUDA backend's own knobs (folded passes, fused C0) are its Options
  // (methods/esaw/cuda/esaw_cuda.cpp, EsmpCudaOptions): none changes the result.

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
