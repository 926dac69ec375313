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

namespace stereo::view {

class WindowContext {
 public:
  explicit WindowContext(GLFWwindow* window) : window_(window) {}
  /// Makes the window's context current, after releasing an EGL context current here.
  void acquire() const {
    release_egl();
    glfwMakeContextCurrent(window_);
  }
  /// Leaves no context current on this thread.
  void release() const {
    glfwMakeContextCurrent(nullptr);
    release_egl();
  }
  [[nodiscard]] GLFWwindow* window() const { return window_; }

  /// Releases an EGL context current on this thread (a GL matcher's), if any: before
  /// glfwCreateWindow too, which makes the new context current for a moment.
  static void release_egl() {
    if (eglGetCurrentContext() != EGL_NO_CONTEXT)
      eglMakeCurrent(eglGetCurrentDisplay(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  }

 private:
  GLFWwindow* window_;
};

}  // namespace stereo::view
