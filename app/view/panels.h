#pragma once
/// \file app/view/panels.h
/// The window's Dear ImGui panels. They read the ViewerState and the PanelTextures and never
/// change the state themselves: what a widget asks for is queued as a Change (UiState::pending)
/// and applied by the window after the frame is drawn, through ViewerState::apply, the path the
/// tests take.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/view/panel_textures.h"
#include "app/view/viewer_state.h"

namespace stereo::view {

/// A rectangle of the window in pixels, origin at the top left.
struct PixelRect {
  int x = 0, y = 0, width = 0, height = 0;
};

/// What the panels keep between frames, apart from the state.
struct UiState {
  bool test_layout = false;  ///< the disparity panel alone at (0, 0), 1:1, without decoration
  bool show_views = true;    ///< the left and right images (uploaded only while shown)
  bool show_inspector = false;
  float zoom = 1.0f;         ///< image panels' scale (nearest neighbour); 1 in the test layout
  bool zoom_fitted = false;  ///< the first result's zoom was fitted to the window (fitting_zoom)
  bool playing = false;
  bool loop = true;
  bool screenshot_requested = false;
  std::string status;  ///< the window's own last message (a screenshot written or refused)
  std::optional<std::pair<int, int>> cursor;  ///< the pixel under the mouse in an image panel
  std::string open_a, open_b;                 ///< the Open fields
  // The pass inspector's selection, and what the slice texture shows now.
  int pass = 0, slice = 0, channel = 0;
  std::string shown_slice;
  std::string slice_error;  ///< why the chosen slice could not be read
  std::pair<float, float> slice_range{0.0f, 0.0f};
  PixelRect disparity_rect;  ///< where the disparity image was drawn in the last frame
  std::vector<Change> pending;
  /// Why each "method/backend" cannot run here ("" when it can), asked once by the window with
  /// its own context released: a GL backend's check makes a context of its own.
  std::map<std::string, std::string> unavailable;
};

/// The pass inspector's title of a view: PassLayout::label(slice), then the channel and the
/// disparity it holds where a texel holds several ("cost, disparities 4..7, channel 2 (disparity 6)").
std::string slice_title(const PassLayout& pass, int slice, int channel);

/// The largest zoom (at most 1, in steps of 1/8, at least 1/8) at which the layout of
/// draw_panels (the controls; the map over the error map; the left over the right image; the
/// cursor and the pass inspector) fits a window of `window_w` x `window_h` pixels with images
/// of `image_w` x `image_h`.
float fitting_zoom(int image_w, int image_h, int window_w, int window_h);

/// Draws every panel for this frame (between ImGui::NewFrame and ImGui::Render).
void draw_panels(const ViewerState& state, PanelTextures& textures, UiState& ui);

}  // namespace stereo::view
