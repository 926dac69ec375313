#pragma once
/// \file gl/context.h
/// One process-wide OpenGL 4.5 core context, created lazily on first use.
///
/// Platforms, chosen by the environment variable STEREO_GL_PLATFORM:
///  - `egl` (default): headless. First the EGL device platform (EGL_EXT_device_enumeration +
///    EGL_PLATFORM_DEVICE_EXT), hardware devices (EGL_EXT_device_drm) before Mesa's software
///    device (EGL_MESA_device_software); then Mesa's surfaceless platform. The context is
///    made current without a surface (EGL_KHR_surfaceless_context) or on a 1x1 pbuffer.
///  - `glfw`: a hidden 1x1 GLFW window, where a display exists.
/// GLEW loads the entry points. All GL work happens on the thread that created the context.

#include <memory>
#include <optional>
#include <string>

namespace stereo::gl {

class Context {
 public:
  /// Creates a context and makes it current; throws stereo::Error with the reason.
  static std::shared_ptr<Context> create();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// Makes the context current on the calling thread.
  void make_current() const;

  [[nodiscard]] const std::string& renderer() const { return renderer_; }  ///< GL_RENDERER
  [[nodiscard]] const std::string& version() const { return version_; }    ///< GL_VERSION
  [[nodiscard]] const std::string& platform() const { return platform_; }  ///< e.g. "EGL device (software)"
  /// Mesa llvmpipe: its GL_TIME_ELAPSED queries do not cover a whole pass, so passes are timed
  /// with glFinish and a host clock instead.
  [[nodiscard]] bool is_llvmpipe() const { return renderer_.find("llvmpipe") != std::string::npos; }
  [[nodiscard]] bool use_timer_queries() const { return !is_llvmpipe(); }

  /// Platform handles (EGL display/context/surface or the GLFW window), defined in context.cpp.
  struct Native;

 private:
  explicit Context(std::unique_ptr<Native> native);
  std::unique_ptr<Native> native_;
  std::string renderer_, version_, platform_;
};

/// The process-wide context, created on first call (and made current on each call);
/// throws stereo::Error "no OpenGL 4.5 context: <reason>" when none can be made.
std::shared_ptr<Context> shared_context();

/// Why no OpenGL 4.5 context can be made here ("no OpenGL 4.5 context: eglInitialize failed"),
/// or nothing when one can. Tries once per process.
std::optional<std::string> context_unavailable();

}  // namespace stereo::gl
