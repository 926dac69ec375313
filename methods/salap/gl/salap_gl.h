#pragma once
/// \file gl/salap_gl.h
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
/// S = W/2 bilinear taps per side (gl_taps=bilinear), or W (gl_taps=nearest).

#include <memory>
#include <optional>
#include <string>

#include "methods/salap/gl/salap_passes.h"
#include "core/image.h"
#include "core/matcher.h"
#include "methods/salap/params.h"

namespace stereo::gl {

/// Options of the gl backend, bound beside SalapParams (`--set gl_format=rgba16f`).
struct SalapGlOptions {
  std::string format = "rgba8";      // Lu et al. Sec. 3: intermediates stored 8 bits per channel
  std::string taps = "bilinear";     // Sec. 3: W/2 bilinear lookups + one nearest per 1D filter
  std::string depth = "depth24";     // Sec. 3 Z-test; the depth format of that era
  // How RGB reaches the texture: a choice, not the paper's. Measured on the H100 at 1920x1080
  // (two images): rgb (the driver expands while unpacking from the PBO) 0.89-0.93 ms, rgba
  // (expanded by host threads first) 2.17-2.39 ms; the maps are identical (tests).
  std::string upload = "rgb";

  template <class B>
  void describe(B& b) {
    b.choice("gl_format", format, {"rgba8", "rgba16f", "rgba32f"},
             "intermediate texture format (Sec. 3: rgba8)");
    b.choice("gl_taps", taps, {"bilinear", "nearest"},
             "1D filter taps: bilinear pairs (Sec. 3) or W+1 plain fetches");
    b.choice("gl_depth", depth, {"depth24", "depth32f"}, "depth buffer of the depth-test WTA");
    b.choice("gl_upload", upload, {"rgba", "rgb"},
             "RGB images into the upload buffer: rgba = expanded to RGBA by the host; rgb = as given, the "
             "driver expands them while unpacking from the buffer (a quarter fewer bytes over the link)");
  }
};

class SalapGlMatcher final : public Matcher {
 public:
  /// Binds SalapParams + SalapGlOptions, validates, takes the shared context and builds the
  /// programs; throws stereo::Error (no context, bad parameter, shader failure).
  explicit SalapGlMatcher(const Overrides& overrides);
  ~SalapGlMatcher() override;

  [[nodiscard]] nlohmann::json params() const override { return json_; }
  [[nodiscard]] std::string component() const override;
  [[nodiscard]] std::string device() const override;
  /// The context's Context::device_info(): renderer, UUID (or null), vendor, version, EGL device.
  [[nodiscard]] nlohmann::json device_info() const override;
  std::optional<FetchStats> fetch_stats(int width, int height, int levels) override;

  /// Debug entry point: uploads the pair, runs the group starting at `d0` once (depth
  /// cleared first) and reads every intermediate back.
  SalapGroupTextures debug_group(const ImageU8& left, const ImageU8& right, int d0, int levels);

  /// Texture fetches one fragment issues per group, all passes (the table above).
  [[nodiscard]] int fetches_per_fragment() const;

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
