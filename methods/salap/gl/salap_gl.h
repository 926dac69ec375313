#pragma once
/// \file methods/salap/gl/salap_gl.h
/// SA-LAP as GLSL 4.50 fragment passes, the shader-era implementation of Lu et al. Sec. 3:
/// four disparities per RGBA texel, render-to-texture through FBOs, support coordinates from
/// the vertex stage, bilinear pairs of taps, 8-bit intermediates, and the winner-takes-all
/// done by the depth test. Per group of four disparities d0..d0+3 (ceil(L/4) groups):
///
///   pass        reads                         writes                 fetches / fragment
///   tad         left, right (RGBA8, NEAREST)  TAD                    1 + 4
///   horizontal  TAD                           C_L, C_R (MRT)         1 + 2 S
///   vertical    C_L, C_R                      C0, C1, C2, C3 (MRT)   2 (1 + 2 S)
///   select      C0..C3                        disparity R32F, depth  4
///
/// S = W/2 bilinear taps per side (gl_taps=bilinear), or W (gl_taps=nearest). The matcher
/// around the passes (binding, upload, timing, read-back, sequences) is gl/matcher_shell.h's.

#include <string>

#include "core/image.h"
#include "core/matcher.h"
#include "gl/context.h"
#include "gl/matcher_shell.h"
#include "gl/objects.h"
#include "gl/program.h"
#include "methods/salap/gl/salap_passes.h"
#include "methods/salap/params.h"

namespace stereo::gl {

/// Options of the gl backend, bound beside SalapParams (`--set gl_format=rgba16f`).
struct SalapGlOptions {
  SalapIntermediateOptions intermediates;
  std::string depth = "depth24";  // Sec. 3 Z-test; the depth format of that era

  template <class B>
  void describe(B& b) {
    intermediates.describe(b);
    b.choice("gl_depth", depth, {"depth24", "depth32f"}, "depth buffer of the depth-test WTA");
  }
};

/// The four fragment passes of a group (the table above): a GlPasses type.
class SalapFragmentPasses : public SalapPassesBase<SalapGlOptions, FullscreenPass> {
 public:
  static constexpr const char* COMPONENT = "salap/gl";

  /// Builds the programs (the TAD program of a cost mode on first use); throws stereo::Error
  /// on a shader failure.
  SalapFragmentPasses(const SalapParams& params, const SalapGlOptions& options);

  void allocate(int width, int height);
  /// Depth 1 (farther than any cost) and disparity 0 everywhere.
  void clear_selection();
  void run_group(const GlFrame& frame, int d0, PassTimer* timer);
  /// Nothing to order: GL orders rendering before later read-backs itself.
  void make_readable() {}
  /// The depth test's winners, R32F level indices.
  [[nodiscard]] GlReadback disparity() const { return {winner_, GL_RED}; }
  FetchStats fetch_stats(const Context& context, int width, int height, int levels);
  /// For the pass inspector: the intermediates per group, then the select pass's R32F target
  /// and its depth attachment after the last group (gl/kept_passes.h).
  [[nodiscard]] std::vector<InspectTarget> inspect_targets() const;

 private:
  Texture winner_, depth_;
  Framebuffer tad_fbo_, horizontal_fbo_, vertical_fbo_, select_fbo_;
};

/// The gl backend of SA-LAP.
using SalapGlMatcher = SalapShaderMatcher<SalapFragmentPasses>;

}  // namespace stereo::gl
