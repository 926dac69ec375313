#pragma once
/// \file app/view/viewer_window.h
/// The window of `stereo view`: GLFW with an OpenGL 4.5 core context (or, headless, an EGL
/// context drawing offscreen: STEREO_VIEW_CONTEXT=headless), Dear ImGui on it, the
/// panels of app/view/panels.h, screenshots, and the CUDA-GL interop where the build has CUDA
/// and the window's GL runs on a CUDA device. A GL matcher runs in its own context
/// (gl::shared_context, on this thread; docs/viewer.md says why): the window releases its
/// context around every run and takes it back after (app/view/window_context.h).

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "app/view/panels.h"
#include "app/view/viewer_state.h"
#include "core/image.h"
#include "gl/objects.h"

struct GLFWwindow;

namespace stereo::view {

class WindowContext;
class SequencePlayer;

struct WindowOptions {
  int width = 1600;
  int height = 1000;
  bool visible = true;
  bool test_layout = false;  ///< UiState::test_layout
  bool show_views = true;
  bool show_inspector = false;
  bool interop = true;
  /// Sleep until an event (or a quarter second) between frames while nothing plays, so an
  /// open window idles instead of redrawing flat out; off for scripted runs (--frames, tests).
  bool wait_for_events = false;  ///< CUDA backends write into GL through the interop where it works here
};

class ViewerWindow {
 public:
  /// Opens the window, then makes the state's first run (its error, if any, is shown in the
  /// window). Throws stereo::Error (unavailable) where no window can be opened.
  ViewerWindow(ViewerState& state, const WindowOptions& options);
  ~ViewerWindow();
  ViewerWindow(const ViewerWindow&) = delete;
  ViewerWindow& operator=(const ViewerWindow&) = delete;

  /// One frame: events, the next frame of a playing sequence, the panels, then the changes the
  /// widgets asked for. `capture`: the window's pixels as drawn (before the swap). False once
  /// the window is to close.
  bool frame(ImageU8* capture = nullptr);
  /// Applies `c` as a widget does (the state's apply(), then this window's context again).
  bool apply(const Change& c);
  /// ViewerState::rerun() the same way.
  bool rerun();
  /// The window's pixels (RGB, row 0 at the top) of the frame just drawn.
  [[nodiscard]] ImageU8 read_pixels() const;
  [[nodiscard]] UiState& ui() { return ui_; }
  /// The textures the panels drew in the last frame (for tests that read one back).
  [[nodiscard]] const PanelTextures& textures() const { return *textures_; }
  /// True while the CUDA backends write through the interop; why not otherwise.
  [[nodiscard]] bool interop_active() const;
  [[nodiscard]] const std::string& interop_note() const { return interop_note_; }
  /// Plays at most `frames` more frames of the sequence, then stops playing (0: to the end, or
  /// for ever with loop on). For scripted runs (`--play --frames N`).
  void play_frames(std::size_t frames);
  /// Frames of the sequence matched since the play started, and the seconds from its start to
  /// the last of them; whether they came through the pipelined player (app/view/sequence_player.h).
  [[nodiscard]] std::size_t frames_played() const { return played_; }
  [[nodiscard]] double play_seconds() const { return play_seconds_; }
  [[nodiscard]] bool played_pipelined() const { return played_pipelined_; }
  /// The pipelined play's steady rate: frames after each lap's first map over the seconds from
  /// that map to the lap's last (0 when there was none), as `stream` reports its steady state.
  [[nodiscard]] double steady_fps() const { return steady_seconds_ > 0.0 ? double(steady_frames_) / steady_seconds_ : 0.0; }
  /// Screenshots the F12 key writes: stereo_view_N.png in the working folder.
  [[nodiscard]] int screenshots_written() const { return screenshots_; }

 private:
  void make_current() const;
  /// One frame's worth of a playing sequence: the player's newest map, or (GL backends, and
  /// where the player cannot run) the next frame matched here.
  void advance_play();
  void stop_player();
  /// The drawable's size in pixels: the window's framebuffer, or the offscreen one (headless).
  void framebuffer_size(int& w, int& h) const;

  ViewerState& state_;
  GLFWwindow* window_ = nullptr;  // null when headless
  std::unique_ptr<WindowContext> context_;
  int width_ = 0, height_ = 0;        // the size asked for (headless: the offscreen framebuffer's)
  gl::Texture offscreen_colour_;      // headless: what the frames draw into
  gl::Framebuffer offscreen_fbo_;
  UiState ui_;
  bool wait_for_events_ = false;
  int quiet_frames_ = 0;  // frames drawn since the last change
  std::unique_ptr<PanelTextures> textures_;
  std::unique_ptr<DeviceMapTarget> interop_;
  const gl::Texture* interop_texture_ = nullptr;  // the interop's r32f map
  std::string interop_note_;
  int screenshots_ = 0;
  std::unique_ptr<SequencePlayer> player_;
  bool play_started_ = false, played_pipelined_ = false;
  std::size_t played_ = 0, play_limit_ = 0, played_before_player_ = 0;
  double play_seconds_ = 0.0;
  std::size_t steady_frames_ = 0;
  double steady_seconds_ = 0.0;
  std::chrono::steady_clock::time_point play_start_, last_play_draw_;
  std::optional<std::chrono::steady_clock::time_point> headless_last_frame_;
  static constexpr int MAX_PLAY_DRAW_HZ = 120, MIN_PLAY_DRAW_HZ = 30;
  bool imgui_ready_ = false;
};

}  // namespace stereo::view
