// The window: GLFW, Dear ImGui, the frame loop, screenshots.

#include "app/view/viewer_window.h"

#include <GL/glew.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "app/image_io.h"
#include "app/measure.h"
#include "app/parallel/device_pool.h"
#include "methods/builtin.h"
#include "core/error.h"
#include "app/view/sequence_player.h"
#include "app/view/window_context.h"
#include "gl/check.h"
#if STEREO_VIEW_CUDA_INTEROP
#include "app/view/cuda_interop.h"
#endif

namespace stereo::view {

namespace {

std::string glfw_error() {
  const char* description = nullptr;
  glfwGetError(&description);
  return description ? description : "no display";
}

}  // namespace

ViewerWindow::ViewerWindow(ViewerState& state, const WindowOptions& options)
    : state_(state), width_(options.width), height_(options.height) {
  // STEREO_VIEW_CONTEXT: glx (default) or egl, the window's context through that API (under
  // Xvfb, GLX is Mesa's whatever the GPU; EGL may reach the GPU's driver, which the CUDA-GL
  // interop needs); headless, no window: an EGL context of the viewer's own (the GPU's device
  // platform where there is one, as the GL backends find theirs: STEREO_GL_PLATFORM) drawing
  // into an offscreen framebuffer of the window's size, for machines without a display.
  const char* api = std::getenv("STEREO_VIEW_CONTEXT");
  const std::string context_api = api != nullptr ? api : "";
  require(context_api.empty() || context_api == "glx" || context_api == "egl" || context_api == "headless",
          "view: STEREO_VIEW_CONTEXT must be glx, egl or headless, got '" + context_api + "'",
          ErrorKind::invalid_argument);
  if (context_api == "headless") {
    WindowContext::release_egl();
    std::shared_ptr<gl::Context> offscreen;
    try {
      offscreen = gl::Context::create(gl::ContextOptions::from_environment());
    } catch (const Error& e) {
      throw Error(std::string("view: cannot make a headless OpenGL 4.5 context: ") + e.what(), ErrorKind::unavailable);
    }
    context_ = std::make_unique<WindowContext>(std::move(offscreen));
    make_current();
    offscreen_colour_ = gl::Texture::create(GL_TEXTURE_2D, GL_RGBA8, width_, height_, GL_NEAREST, "view: window");
    offscreen_fbo_ = gl::Framebuffer::create("view: window");
    offscreen_fbo_.attach_colour(0, offscreen_colour_);
    offscreen_fbo_.set_draw_buffers(1);
    offscreen_fbo_.check_complete();
  } else {
    if (glfwInit() != GLFW_TRUE)
      throw Error("view: cannot open a window: glfwInit failed: " + glfw_error() +
                      " (without a display: STEREO_VIEW_CONTEXT=headless draws offscreen, with --frames N "
                      "--screenshot FILE; or run under xvfb-run -a)",
                  ErrorKind::unavailable);
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_RESIZABLE, options.test_layout ? GLFW_FALSE : GLFW_TRUE);
    glfwWindowHint(GLFW_CONTEXT_CREATION_API, context_api == "egl" ? GLFW_EGL_CONTEXT_API : GLFW_NATIVE_CONTEXT_API);
    WindowContext::release_egl();
    window_ = glfwCreateWindow(options.width, options.height,
                               ("stereo view: " + state.input().description()).c_str(), nullptr, nullptr);
    if (window_ == nullptr)
      throw Error("view: cannot open a window (OpenGL 4.5 core): " + glfw_error(), ErrorKind::unavailable);
    context_ = std::make_unique<WindowContext>(window_);
    make_current();
    glfwSwapInterval(0);  // a sequence plays at the matcher's rate, not the display's
  }
  glewExperimental = GL_TRUE;
  // glewInit's result is not checked: GLEW built for GLX complains on some platforms while
  // every entry point of 4.5 core is loaded (gl/context.cpp does the same).
  glewInit();
  while (glGetError() != GL_NO_ERROR) {
  }
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is the program's; nothing written beside the user's files
  ImGui::StyleColorsDark();
  if (window_ != nullptr) ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 450");
  imgui_ready_ = true;
  textures_ = std::make_unique<PanelTextures>(*context_);
  ui_.test_layout = options.test_layout;
  wait_for_events_ = options.wait_for_events;
  ui_.show_views = options.show_views;
  ui_.show_inspector = options.show_inspector;
#if STEREO_VIEW_CUDA_INTEROP
  if (options.interop) {
    if (auto why = CudaGlMap::unavailable()) {
      interop_note_ = "CUDA maps reach the window through the host: " + *why;
    } else {
      auto map = std::make_unique<CudaGlMap>(*context_);
      interop_texture_ = &map->texture();
      interop_ = std::move(map);
      state_.set_device_target(interop_.get());
    }
  }
#else
  interop_note_ = "built without CUDA";
#endif
  context_->release();  // the first run, and the backends' checks, may make a GL matcher's context
  for (const BackendEntry& e : builtin_registry().entries())
    ui_.unavailable[e.method + "/" + e.backend] = cli::unavailable(e).value_or("");
  if (options.show_inspector && !state_.passes()) {
    state_.apply(Change::passes(true));  // runs too; its error, if any, shows in the window
    if (!state_.result()) state_.start();
  } else {
    state_.start();
  }
  make_current();
}

ViewerWindow::~ViewerWindow() {
  player_.reset();  // its thread uses the state's matcher
  state_.set_device_target(nullptr);
  if (context_) make_current();
  offscreen_fbo_ = {};
  offscreen_colour_ = {};
  interop_.reset();
  textures_.reset();
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    if (window_ != nullptr) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  if (window_ != nullptr) glfwDestroyWindow(window_);
  // No glfwTerminate: a GL backend on the GLFW platform may hold a hidden window of its own.
}

void ViewerWindow::make_current() const { context_->acquire(); }

bool ViewerWindow::interop_active() const { return interop_ != nullptr; }

bool ViewerWindow::apply(const Change& c) {
  stop_player();  // the player's matcher is the state's: no change while it runs
  context_->release();  // a GL matcher makes its own context current (window_context.h)
  const bool ok = state_.apply(c);
  make_current();
  return ok;
}

bool ViewerWindow::rerun() {
  stop_player();
  context_->release();
  const bool ok = state_.rerun();
  make_current();
  return ok;
}

void ViewerWindow::play_frames(std::size_t frames) { play_limit_ = frames; }

void ViewerWindow::stop_player() {
  if (!player_) return;
  player_->stop();
  // The frames it matched before the stop: the newest is shown, the count kept.
  if (auto f = player_->take()) state_.show_played(f->index, std::move(f->scene), f->map, std::move(f->timing));
  played_ = played_before_player_ + player_->matched();
  play_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - play_start_).count();
  if (player_->matched() >= 2) {
    steady_frames_ += player_->matched() - 1;
    steady_seconds_ += player_->steady_seconds();
  }
  if (!player_->error().empty()) state_.report(player_->error());
  player_.reset();
}

void ViewerWindow::advance_play() {
  const ViewInput& in = state_.input();
  if (!play_started_) {
    play_started_ = true;
    play_start_ = std::chrono::steady_clock::now();
    played_ = 0;
    steady_frames_ = 0;
    steady_seconds_ = 0.0;
  }
  const std::size_t limit_left = play_limit_ > 0 ? play_limit_ - std::min(play_limit_, played_) : 0;
  if (play_limit_ > 0 && limit_left == 0) {
    stop_player();
    ui_.playing = false;
    return;
  }
  // The rest of this lap (to the end, or once round with loop on), at most what is left.
  const std::size_t n = in.frame_count();
  std::size_t lap = ui_.loop ? n : n - 1 - in.frame();
  if (play_limit_ > 0) lap = std::min(lap, limit_left);
  if (!player_ && lap > 0 && state_.can_play_pipelined() && state_.matcher() != nullptr) {
    played_before_player_ = played_;
    played_pipelined_ = true;
    player_ = std::make_unique<SequencePlayer>(*state_.matcher(), state_.range(), in, (in.frame() + 1) % n, lap,
                                               parallel::default_readers(), ui_.show_views);
  }
  if (player_) {
    // Drawn when a new map is there, at most MAX_PLAY_DRAW_HZ (a frame's draw uploads its
    // panels), and at least MIN_PLAY_DRAW_HZ, so that the window answers while the matcher
    // is slower; never a busy loop drawing the same map (it took a core from the readers).
    using Clock = std::chrono::steady_clock;
    std::this_thread::sleep_until(last_play_draw_ + std::chrono::microseconds(1000000 / MAX_PLAY_DRAW_HZ));
    if (auto f = player_->take_by(last_play_draw_ + std::chrono::microseconds(1000000 / MIN_PLAY_DRAW_HZ)))
      state_.show_played(f->index, std::move(f->scene), f->map, std::move(f->timing));
    last_play_draw_ = Clock::now();
    played_ = played_before_player_ + player_->matched();
    play_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - play_start_).count();
    if (!player_->finished()) return;
    const bool failed = !player_->error().empty();
    stop_player();
    // The lap is done: another with loop on (a new player next frame), else the end.
    if (failed || !ui_.loop || (play_limit_ > 0 && played_ >= play_limit_)) ui_.playing = false;
    return;
  }
  // Frame by frame on this thread (GL backends, the cost volume, kept passes).
  if (lap == 0 ||
      !apply(Change::frame(long((in.frame() + 1) % n)))) {
    ui_.playing = false;  // an error or the end stops the play; the error line says which
    return;
  }
  ++played_;
  play_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - play_start_).count();
  if (play_limit_ > 0 && played_ >= play_limit_) ui_.playing = false;
}

void ViewerWindow::framebuffer_size(int& w, int& h) const {
  w = width_;
  h = height_;
  if (window_ != nullptr) glfwGetFramebufferSize(window_, &w, &h);
}

ImageU8 ViewerWindow::read_pixels() const {
  int w = 0, h = 0;
  framebuffer_size(w, h);
  ImageU8 bottom_up(w, h, 3);
  GL_CHECK(glBindFramebuffer(GL_READ_FRAMEBUFFER, offscreen_fbo_ ? offscreen_fbo_.id() : 0));
  GL_CHECK(glReadBuffer(offscreen_fbo_ ? GL_COLOR_ATTACHMENT0 : GL_BACK));
  GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
  GL_CHECK(glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, bottom_up.data.data()));
  ImageU8 out(w, h, 3);  // GL's row 0 is the bottom one
  const std::size_t row = std::size_t(w) * 3;
  for (int y = 0; y < h; ++y)
    std::copy_n(bottom_up.data.begin() + std::ptrdiff_t(std::size_t(h - 1 - y) * row), row,
                out.data.begin() + std::ptrdiff_t(std::size_t(y) * row));
  return out;
}

bool ViewerWindow::frame(ImageU8* capture) {
  // Frames right after a change are drawn at once: its result shows without waiting for an event.
  if (window_ != nullptr) {
    if (wait_for_events_ && !ui_.playing && quiet_frames_ >= 2)
      glfwWaitEventsTimeout(0.25);
    else
      glfwPollEvents();
    if (glfwWindowShouldClose(window_)) return false;
  }
  ++quiet_frames_;
  if (ui_.playing && state_.input().is_sequence()) {
    advance_play();
  } else {
    stop_player();
    play_started_ = false;  // the next play counts afresh
  }
  textures_->update(state_, interop_texture_, interop_ ? interop_->error_texture() : nullptr, ui_.show_views);
  ImGui_ImplOpenGL3_NewFrame();
  if (window_ != nullptr) {
    ImGui_ImplGlfw_NewFrame();
  } else {  // headless: no platform backend, the offscreen framebuffer's size and a fixed step
    ImGui::GetIO().DisplaySize = ImVec2(float(width_), float(height_));
    // The real step, so that the Timing panel's window rate is the one drawn.
    const auto now = std::chrono::steady_clock::now();
    const float step = headless_last_frame_ ? std::chrono::duration<float>(now - *headless_last_frame_).count() : 0.0f;
    ImGui::GetIO().DeltaTime = std::max(step, 1e-5f);
    headless_last_frame_ = now;
  }
  ImGui::NewFrame();
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.WantTextInput) {
    if (ImGui::IsKeyPressed(GLFW_KEY_F12, false)) ui_.screenshot_requested = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) ui_.playing = !ui_.playing;
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT, false) && state_.input().is_sequence())
      ui_.pending.push_back(Change::frame(long((state_.input().frame() + 1) % state_.input().frame_count())));
    if (window_ != nullptr && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) glfwSetWindowShouldClose(window_, GLFW_TRUE);
  }
  if (!ui_.zoom_fitted && !ui_.test_layout && state_.result() != nullptr) {
    // The first result's size decides the zoom at which the panels fit the window; afterwards
    // the slider's value is the user's.
    int fw = 0, fh = 0;
    framebuffer_size(fw, fh);
    ui_.zoom = fitting_zoom(state_.result()->width, state_.result()->height, fw, fh);
    ui_.zoom_fitted = true;
  }
  draw_panels(state_, *textures_, ui_);
  ImGui::Render();
  int w = 0, h = 0;
  framebuffer_size(w, h);
  GL_CHECK(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, offscreen_fbo_ ? offscreen_fbo_.id() : 0));
  GL_CHECK(glViewport(0, 0, w, h));
  GL_CHECK(glClearColor(0.1f, 0.1f, 0.11f, 1.0f));
  GL_CHECK(glClear(GL_COLOR_BUFFER_BIT));
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (capture != nullptr) *capture = read_pixels();
  if (ui_.screenshot_requested) {
    ui_.screenshot_requested = false;
    const std::string name = "stereo_view_" + std::to_string(screenshots_ + 1) + ".png";
    try {
      write_png(name, read_pixels());
      ++screenshots_;
      ui_.status = "wrote " + name;
    } catch (const std::exception& e) {
      ui_.status = e.what();  // the window goes on; the line says why there is no file
    }
  }
  if (window_ != nullptr)
    glfwSwapBuffers(window_);
  else
    GL_CHECK(glFinish());  // headless: the frame is complete, as a swap would make it
  // The widgets' changes, now that the frame no longer uses the textures they may replace.
  std::vector<Change> pending;
  pending.swap(ui_.pending);
  for (const Change& c : pending) apply(c);
  if (!pending.empty() || ui_.screenshot_requested) quiet_frames_ = 0;
  return true;
}

}  // namespace stereo::view
