#pragma once
/// \file methods/salap/gl/salap_passes.h
/// What the two GL backends of SA-LAP share beyond the matcher shell (gl/matcher_shell.h):
/// the options and textures of the intermediates, the tap layout of the bilinear 1D filters,
/// what both pass sets hold (SalapPassesBase: parameters, taps, the TAD pass per cost mode),
/// their matcher (SalapShaderMatcher: the shell plus the debug read-back of one group) and
/// the fetch-ceiling measurement. salap_gl.cpp has the fragment passes, salap_glcompute.cpp
/// the compute dispatches, each a GlPasses type derived from SalapPassesBase.

#include <GL/glew.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/matcher.h"
#include "core/validate.h"
#include "gl/context.h"
#include "gl/kept_passes.h"
#include "gl/matcher_shell.h"
#include "gl/objects.h"
#include "gl/program.h"
#include "gl/state.h"
#include "methods/salap/params.h"

namespace stereo::gl {

/// The options of both backends that choose the intermediates (`--set gl_format=rgba16f`).
struct SalapIntermediateOptions {
  std::string format = "rgba8";   // Lu et al. Sec. 3: intermediates stored 8 bits per channel
  std::string taps = "bilinear";  // Sec. 3: W/2 bilinear lookups + one nearest per 1D filter

  template <class B>
  void describe(B& b) {
    b.choice("gl_format", format, {"rgba8", "rgba16f", "rgba32f"}, "intermediate texture format (Sec. 3: rgba8)");
    b.choice("gl_taps", taps, {"bilinear", "nearest"}, "1D filter taps: bilinear pairs (Sec. 3) or W+1 plain fetches");
  }
};

/// GL internal format of the intermediates for `gl_format`.
GLenum intermediate_format(const std::string& format);

/// The intermediates of one group, four disparities per RGBA texel: TAD, C_L and C_R (sampled
/// with the filter `gl_taps` asks for) and the four window quadrant costs C0..C3.
struct SalapIntermediates {
  Texture cost, c_left, c_right, c[4];

  /// Rectangle textures of width x height in `options.format`.
  void allocate(const SalapIntermediateOptions& options, int width, int height);
};

/// The intermediates as the pass inspector shows them (methods/salap/stage_names.h): tad,
/// horizontal.c_left/c_right, vertical.c0..c3, each rewritten by every group; `held_as`
/// "render target" or "image".
std::vector<InspectTarget> intermediate_targets(const SalapIntermediates& targets, const char* held_as);

/// Every intermediate of one group, read back for tests: RGBA images, channel k holds
/// disparity d0 + k, row 0 = image row 0.
struct SalapGroupTextures {
  ImageF tad, c_left, c_right, c0, c1, c2, c3;
  ImageF disparity;  ///< the winner after this group alone (1 channel)
};

/// One one-sided 1D filter, centre tap excluded, weights normalised by F1 (methods/salap/params.h).
/// Bilinear (Lu et al. Sec. 3): taps i, i+1 (i = 1, 3, .., W-1) become one GL_LINEAR fetch at
/// offset i + w_{i+1} / (w_i + w_{i+1}) weighted (w_i + w_{i+1}) / F1; nearest: W fetches.
struct TapLayout {
  std::vector<double> offsets, weights;
  double centre_weight = 0.0;
};
TapLayout tap_layout(const SalapParams& params, bool bilinear);

/// Texture fetches per pixel per group of four disparities, all four passes:
/// tad 1 + 4, horizontal 1 + 2S, vertical 2 (1 + 2S), select 4, S = taps per side.
int fetches_per_pixel(const TapLayout& taps);

/// What the fragment passes (salap_gl.h) and the compute dispatches (salap_glcompute.h) of
/// SA-LAP hold alike: the GlPasses names they share, the parameters and the backend's
/// Options (with its SalapIntermediateOptions `intermediates`), the tap layout, the
/// intermediates and the programs of the four passes, `Pass` being FullscreenPass or
/// ComputePass. A derived class adds COMPONENT and the protocol's members.
template <class BackendOptions, class Pass>
class SalapPassesBase {
 public:
  using Params = SalapParams;
  using Options = BackendOptions;
  static constexpr int LEVELS_PER_GROUP = 4;  // one per RGBA channel

  /// Texture fetches per pixel per group, all four passes (the tables of both headers).
  [[nodiscard]] int fetches_per_pixel() const { return gl::fetches_per_pixel(taps_); }

  SalapIntermediates targets;  ///< written by every group (salap_debug_group reads them back)

 protected:
  SalapPassesBase(const SalapParams& params, const BackendOptions& options)
      : params_(params), options_(options), taps_(tap_layout(params, options.intermediates.taps == "bilinear")) {}

  /// rgba8 intermediates (STORE_UNORM8 1): the shaders round to the 8-bit grid themselves,
  /// half up, before they write, so the driver's float -> unorm8 rounding (its choice, and
  /// not half up on every driver) never decides a value (shaders/salap_horizontal.frag).
  [[nodiscard]] bool store_unorm8() const { return options_.intermediates.format == "rgba8"; }

  /// The TAD pass of the cost mode of `channels`-channel input (COST_MODE: 0 rgb_mean, 1 luma,
  /// 2 grey), made by `make(mode)` on first use.
  template <class Make>
  Pass& tad_pass(int channels, Make&& make) {
    const int mode = channels == 1 ? 2 : (params_.cost == "luma" ? 1 : 0);
    auto it = tad_.find(mode);
    if (it == tad_.end()) it = tad_.emplace(mode, make(mode)).first;
    return it->second;
  }

  SalapParams params_;
  BackendOptions options_;
  TapLayout taps_;
  std::map<int, Pass> tad_;  // by COST_MODE
  Pass horizontal_, vertical_, select_;
  Pass ceiling_;  // made by the first fetch_stats
};

/// A GL matcher of SA-LAP: the shell (gl/matcher_shell.h) around the fragment passes
/// (SalapGlMatcher) or the compute dispatches (SalapGlComputeMatcher), with the debug entry
/// points of both.
template <class Passes>
class SalapShaderMatcher final : public GlMatcher<Passes> {
 public:
  explicit SalapShaderMatcher(const Overrides& overrides) : GlMatcher<Passes>(overrides) {}

  /// Uploads the pair, runs the group starting at `d0` once (selection cleared first) and
  /// reads every intermediate back.
  SalapGroupTextures debug_group(const ImageU8& left, const ImageU8& right, int d0, int levels) {
    const std::string component = this->component();
    validate_pair(left, right, levels, component);
    require(d0 >= 0 && d0 < levels, component + ": group start " + std::to_string(d0) + " outside 0.." +
                                        std::to_string(levels - 1));
    return this->with_uploaded_pair(left, right, DisparityRange{0, levels}, [&](Passes& passes, const GlFrame& frame) {
      passes.clear_selection();
      passes.run_group(frame, d0, nullptr);
      check_state_if_enabled(component + " group d0=" + std::to_string(d0));
      const SalapIntermediates& t = passes.targets;
      SalapGroupTextures out;
      out.tad = this->read(t.cost, GL_RGBA, 4);
      out.c_left = this->read(t.c_left, GL_RGBA, 4);
      out.c_right = this->read(t.c_right, GL_RGBA, 4);
      out.c0 = this->read(t.c[0], GL_RGBA, 4);
      out.c1 = this->read(t.c[1], GL_RGBA, 4);
      out.c2 = this->read(t.c[2], GL_RGBA, 4);
      out.c3 = this->read(t.c[3], GL_RGBA, 4);
      out.disparity = this->read_disparity(0);
      check_state_if_enabled(component + " read-back");
      return out;
    });
  }

  /// Texture fetches per pixel (one fragment or invocation) per group, all passes.
  [[nodiscard]] int fetches_per_pixel() const { return this->passes().fetches_per_pixel(); }
};

/// A width x height RGBA8 texture of fixed-seed noise, GL_LINEAR, for the fetch ceiling.
Texture ceiling_source(int width, int height);

/// Fetch accounting for the bench: `fetches_per_pixel` per group per pixel, and the ceiling:
/// `issue` draws or dispatches the 9-tap fetch-only pass once; it is timed in batches of as
/// many passes as one run issues (4 per group), so both pay the same per-pass overhead.
FetchStats measure_fetch_stats(const Context& context, int width, int height, int levels, int fetches_per_pixel,
                               const std::function<void()>& issue, const std::string& ceiling_pass);

}  // namespace stereo::gl
