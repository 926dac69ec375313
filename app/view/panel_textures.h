#pragma once
/// \file app/view/panel_textures.h
/// The window's GL textures, made in the window's context: the two views, the disparity map
/// coloured by the ramp pass (app/view/shaders/ramp.frag, which reproduces `stereo run
/// --color` exactly), the error map, the ramp's scale bar and the pass inspector's slice. Each
/// is refreshed only when the state's result changes (ViewResult::serial).

#include <cstdint>
#include <optional>
#include <string>

#include "app/view/viewer_state.h"
#include "app/view/window_context.h"
#include "core/image.h"
#include "gl/objects.h"
#include "gl/program.h"

namespace stereo::view {

/// Pixels of the scale bar: one column per disparity level, this many rows.
inline constexpr int SCALE_BAR_HEIGHT = 12;

class PanelTextures {
 public:
  /// Compiles the ramp pass; the window's context (`context`) must be current.
  explicit PanelTextures(const WindowContext& context);

  /// Uploads what changed since the last call. `device_map`: the R32F texture a CUDA backend
  /// wrote through the interop (ViewResult::on_device), else nullptr; `device_error`: the error
  /// picture made from it on the GPU (ViewResult::error_on_device), else nullptr. The views are
  /// uploaded only while `views` (their panels are shown): at 1920x1080 they are 12 MB a frame.
  void update(const ViewerState& state, const gl::Texture* device_map, const gl::Texture* device_error, bool views);
  /// Reads slice `slice`, channel `channel` of pass `pass` and shows it as grey, scaled from
  /// its smallest to its largest finite value (returned as [lo, hi]). The read runs with the
  /// window's context released: an inspector may read a GL matcher's targets in its own context.
  std::pair<float, float> show_pass(PassInspector& inspector, const std::string& pass, int slice, int channel);

  [[nodiscard]] const gl::Texture& left() const { return left_; }
  [[nodiscard]] const gl::Texture& right() const { return right_; }
  [[nodiscard]] const gl::Texture& disparity() const { return coloured_; }
  [[nodiscard]] const gl::Texture& error_map() const { return *error_shown_; }
  [[nodiscard]] const gl::Texture& scale_bar() const { return scale_bar_; }
  [[nodiscard]] const gl::Texture& pass_slice() const { return slice_; }
  [[nodiscard]] bool has_error_map() const { return error_shown_ != nullptr && bool(*error_shown_); }
  /// Disparity at (x, y) of `r`'s map (the one last uploaded), from the host map or one texel
  /// of the device map; nothing outside it.
  [[nodiscard]] std::optional<float> disparity_at(const ViewResult& r, int x, int y) const;

 private:
  void colour(const gl::Texture& map, DisparityRange range);

  const WindowContext& context_;
  std::uint64_t serial_ = 0;
  std::uint64_t views_serial_ = 0;
  gl::FullscreenPass ramp_;
  gl::Framebuffer target_;
  gl::Texture left_, right_, host_map_, coloured_, error_, scale_bar_, slice_;
  const gl::Texture* map_ = nullptr;  // the map the colours were made from
  const gl::Texture* error_shown_ = nullptr;  // error_ or the device's picture
};

/// `image` (grey or RGB) as an RGBA8 texture of its size, nearest filtering.
gl::Texture rgba_texture(const ImageU8& image, const std::string& label);

}  // namespace stereo::view
