#pragma once
/// \file methods/salap/gl/salap_glcompute.h
/// SA-LAP as GLSL 4.50 compute shaders: the passes of the `gl` backend (salap_gl.h) with
/// the same arithmetic, texture formats and sampler taps, but dispatched as compute work that
/// writes with imageStore instead of rasterising into FBOs. It separates the render-pass
/// technique from the shading language when shader throughput is compared with CUDA.
/// Per group of four disparities d0..d0+3 (ceil(L/4) groups, increasing d0):
///
///   dispatch    reads (sampler)               writes (imageStore)    fetches / invocation
///   tad         left, right (RGBA8, NEAREST)  TAD                    1 + 4
///   horizontal  TAD                           C_L, C_R               1 + 2 S
///   vertical    C_L, C_R                      C0, C1, C2, C3         2 (1 + 2 S)
///   select      C0..C3                        best (rg32f, RMW)      4 (+ 1 imageLoad)
///
/// S = W/2 bilinear taps per side (gl_taps=bilinear), or W (gl_taps=nearest). Barriers:
/// GL_TEXTURE_FETCH_BARRIER_BIT after tad, horizontal and vertical (the next dispatch
/// samples what they stored); GL_SHADER_IMAGE_ACCESS_BARRIER_BIT after select (the next
/// group's select reads `best` with imageLoad, and the next group's image stores overwrite
/// textures this group sampled); GL_TEXTURE_UPDATE_BARRIER_BIT before any read-back. The
/// matcher around the dispatches (binding, upload, timing, read-back, sequences) is
/// gl/matcher_shell.h's.

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

/// Options of the glcompute backend, bound beside SalapParams (`--set gl_local_size=32x8`).
struct SalapGlComputeOptions {
  SalapIntermediateOptions intermediates;
  // Work-group shape, tuned on an NVIDIA H100 (driver 580), 1920x1080 at 128 levels, algorithm
  // ms: 8x32 5.52, 16x16 5.77, 32x8 5.84, 64x4 5.87, 8x8 6.00, 128x1 6.10 (one run each;
  // repeated 16x16 runs spread 0.05 ms). Tall groups suit the vertical pass, the largest.
  std::string local_size = "8x32";

  template <class B>
  void describe(B& b) {
    intermediates.describe(b);
    b.choice("gl_local_size", local_size,
             {"8x4", "8x8", "16x4", "16x8", "8x16", "16x16", "32x4", "32x8", "8x32", "32x16", "16x32", "32x32",
              "64x1", "64x2", "64x4", "64x8", "128x1", "128x2", "256x1"},
             "compute work-group size XxY of every dispatch");
  }
};

/// The four compute dispatches of a group (the table above): a GlPasses type. Its
/// fetches_per_pixel() counts sampler fetches (texture() / texelFetch); the select
/// dispatch's imageLoad is not counted.
class SalapComputePasses : public SalapPassesBase<SalapGlComputeOptions, ComputePass> {
 public:
  static constexpr const char* COMPONENT = "salap/glcompute";

  /// Builds the programs (the TAD program of a cost mode on first use); throws stereo::Error
  /// on a shader failure or a work-group size the driver does not allow.
  SalapComputePasses(const SalapParams& params, const SalapGlComputeOptions& options);

  void allocate(int width, int height);
  /// The running minimum (cost, level) to (+inf, 0) everywhere.
  void clear_selection();
  void run_group(const GlFrame& frame, int d0, PassTimer* timer);
  /// GL_TEXTURE_UPDATE_BARRIER_BIT: glGetTextureImage of an image written by imageStore.
  void make_readable();
  /// The running minimum's level indices, .y of `best`.
  [[nodiscard]] GlReadback disparity() const { return {best_, GL_GREEN}; }
  FetchStats fetch_stats(const Context& context, int width, int height, int levels);
  /// For the pass inspector: the intermediates per group, then `best` after the last group, as
  /// "select" (.y, the level index) and "select.cost" (.x) (gl/kept_passes.h).
  [[nodiscard]] std::vector<InspectTarget> inspect_targets() const;

 private:
  LocalSize local_;
  Texture best_;  // (cost, level index) of the running minimum
};

/// The glcompute backend of SA-LAP.
using SalapGlComputeMatcher = SalapShaderMatcher<SalapComputePasses>;

}  // namespace stereo::gl
