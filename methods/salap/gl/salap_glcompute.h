#pragma once
/// \file gl/salap_glcompute.h
/// SA-LAP as GLSL 4.50 compute shaders: the passes of the `gl` backend (gl/salap_gl.h) with
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
/// textures this group sampled); GL_TEXTURE_UPDATE_BARRIER_BIT before any read-back.

#include <memory>
#include <optional>
#include <string>

#include "methods/salap/gl/salap_gl.h"
#include "core/image.h"
#include "core/matcher.h"
#include "methods/salap/params.h"

namespace stereo::gl {

/// Options of the glcompute backend, bound beside SalapParams (`--set gl_local_size=32x8`).
struct SalapGlComputeOptions {
  std::string format = "rgba8";      // Lu et al. Sec. 3: intermediates stored 8 bits per channel
  std::string taps = "bilinear";     // Sec. 3: W/2 bilinear lookups + one nearest per 1D filter
  // Work-group shape, tuned on an NVIDIA H100 (driver 580), 1920x1080 at 128 levels, algorithm
  // ms: 8x32 5.52, 16x16 5.77, 32x8 5.84, 64x4 5.87, 8x8 6.00, 128x1 6.10 (one run each;
  // repeated 16x16 runs spread 0.05 ms). Tall groups suit the vertical pass, the largest.
  std::string local_size = "8x32";
  // How RGB reaches the texture: a choice, not the paper's. Measured on the H100 at 1920x1080
  // (two images): rgb (the driver expands while unpacking from the PBO) 0.89-0.93 ms, rgba
  // (expanded by host threads first) 2.17-2.39 ms; the maps are identical (tests).
  std::string upload = "rgb";

  template <class B>
  void describe(B& b) {
    b.choice("gl_format", format, {"rgba8", "rgba16f", "rgba32f"},
             "intermediate image format (Sec. 3: rgba8)");
    b.choice("gl_taps", taps, {"bilinear", "nearest"},
             "1D filter taps: bilinear pairs (Sec. 3) or W+1 plain fetches");
    b.choice("gl_upload", upload, {"rgba", "rgb"},
             "RGB images into the upload buffer: rgba = expanded to RGBA by the host; rgb = as given, the "
             "driver expands them while unpacking from the buffer (a quarter fewer bytes over the link)");
    b.choice("gl_local_size", local_size,
             {"8x4", "8x8", "16x4", "16x8", "8x16", "16x16", "32x4", "32x8", "8x32", "32x16", "16x32", "32x32",
              "64x1", "64x2", "64x4", "64x8", "128x1", "128x2", "256x1"},
             "compute work-group size XxY of every dispatch");
  }
};

class SalapGlComputeMatcher final : public Matcher {
 public:
  /// Binds SalapParams + SalapGlComputeOptions, validates, takes the shared context and
  /// builds the programs; throws stereo::Error (no context, bad parameter, shader failure,
  /// a work-group size the driver does not allow).
  explicit SalapGlComputeMatcher(const Overrides& overrides);
  ~SalapGlComputeMatcher() override;

  [[nodiscard]] nlohmann::json params() const override { return json_; }
  [[nodiscard]] std::string component() const override;
  [[nodiscard]] std::string device() const override;
  /// The context's Context::device_info(): renderer, UUID (or null), vendor, version, EGL device.
  [[nodiscard]] nlohmann::json device_info() const override;
  std::optional<FetchStats> fetch_stats(int width, int height, int levels) override;

  /// Debug entry point: uploads the pair, runs the group starting at `d0` once (selection
  /// cleared first) and reads every intermediate back, as SalapGlMatcher::debug_group.
  SalapGroupTextures debug_group(const ImageU8& left, const ImageU8& right, int d0, int levels);

  /// Sampler fetches (texture() / texelFetch) one invocation issues per group, all
  /// dispatches (the table above); the select dispatch's imageLoad is not counted.
  [[nodiscard]] int fetches_per_invocation() const;

 protected:
  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override;
  /// Frames double-buffered through the pixel buffer objects (stream_salap, gl/salap_passes.h).
  void match_stream(DisparityRange range, const FrameSource& next, const FrameSink& done) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  nlohmann::json json_;
};

}  // namespace stereo::gl
