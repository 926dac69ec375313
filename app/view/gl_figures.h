#pragma once
/// \file app/view/gl_figures.h
/// `eval`'s figures and error picture of a map held in a GL texture: what the window shows for a
/// CUDA map that reaches it through the interop and never the host. One compute pass
/// (app/view/shaders/figures.comp, a work group per row) scores the map as the scene's benchmark
/// received it, writes the error picture into an RGBA8 texture, and leaves each row's counts
/// and error sum in two small buffers; those come back (56 bytes a row), not the map. The
/// result equals app/metrics.cpp's evaluate() on the host map: the counts exactly, the average
/// error within the rounding of adding the rows' sums in another order; the picture equals
/// error_map()'s byte for byte (tests/view/test_gl_figures.cpp).

#include <cstdint>
#include <optional>
#include <string>

#include "app/dataset.h"
#include "app/metrics.h"
#include "gl/objects.h"
#include "gl/program.h"

namespace stereo::view {

class GlFigures {
 public:
  /// Compiles the pass; a GL 4.5 context must be current (here and in every call).
  GlFigures();

  /// Why `scene` cannot be scored here (no ground truth; a submission rule whose scale is not a
  /// power of two, which the pass could not reproduce exactly), or nothing.
  static std::optional<std::string> unsupported(const Scene& scene);

  /// Scores `map` (R32F, the scene's size, row 0 = image row 0) against `scene` under the
  /// submitted protocol, as `eval` does by default, at `threshold`. `scene_key` names the scene's
  /// content: its ground truth, masks and picture grey are uploaded again only when it changes.
  Metrics evaluate(const gl::Texture& map, const Scene& scene, double threshold, std::uint64_t scene_key);
  /// The error picture of the last evaluate(): RGBA8, the map's size, row 0 = image row 0.
  [[nodiscard]] const gl::Texture& error_map() const { return error_; }
  /// Host-clock milliseconds of the last evaluate(): its pass (dispatch to the rows' sums on
  /// the host: the cost of every frame) and its upload of the scene (0 when the key was the same).
  [[nodiscard]] double last_pass_ms() const { return pass_ms_; }
  [[nodiscard]] double last_upload_ms() const { return upload_ms_; }

 private:
  void upload_scene(const Scene& scene);

  gl::Program program_;
  gl::Texture gt_, flags_, grey_, error_;
  gl::Buffer counts_, sums_;
  std::optional<std::uint64_t> scene_key_;
  int rule_ = 0;
  float step_ = 1.0f;
  double pass_ms_ = 0.0, upload_ms_ = 0.0;
};

}  // namespace stereo::view
