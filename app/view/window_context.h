#pragma once
/// \file app/view/window_context.h
/// Which GL context is current on the viewer's thread. The window's context is GLX (GLFW); a GL
/// matcher's is its own (gl::shared_context: EGL by default). libglvnd refuses to make a
/// context of one API current while one of the other API is (EGL_BAD_ACCESS: "another window
/// API already has a current context"), so the window releases its context before anything
/// that may run a GL matcher and takes it back after, releasing the matcher's first.

#define EGL_NO_X11
#define MESA_EGL_NO_X11_HEADERS
#include <EGL/egl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <memory>
#include <utility>

#include "gl/context.h"

namespace stereo::view {

/// The window's context: a GLFW window's, or, headless (STEREO_VIEW_CONTEXT=headless), an EGL
/// context of the viewer's own (gl::Context, the device platform on a GPU) that draws into an
/// offscreen framebuffer of the window's size.
class WindowContext {
 public:
  explicit WindowContext(GLFWwindow* window) : window_(window) {}
  explicit WindowContext(std::shared_ptr<gl::Context> offscreen) : offscreen_(std::move(offscreen)) {}
  /// Makes the window's context current, after releasing an EGL context current here.
  void acquire() const {
    release_egl();
    if (offscreen_)
      offscreen_->make_current();
    else
      glfwMakeContextCurrent(window_);
  }
  /// Leaves no context current on this thread.
  void release() const {
    if (window_ != nullptr) glfwMakeContextCurrent(nullptr);
    release_egl();
  }
  [[nodiscard]] GLFWwindow* window() const { return window_; }
  [[nodiscard]] bool headless() const { return offscreen_ != nullptr; }

  /// Releases an EGL context current on this thread (a GL matcher's), if any: before
  /// glfwCreateWindow too, which makes the new context current for a moment.
  static void release_egl() {
    if (eglGetCurrentContext() != EGL_NO_CONTEXT)
      eglMakeCurrent(eglGetCurrentDisplay(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  }

 private:
  GLFWwindow* window_ = nullptr;
  std::shared_ptr<gl::Context> offscreen_;
};

}  // namespace stereo::view
