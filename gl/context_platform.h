#pragma once
/// \file gl/context_platform.h
/// The platforms a gl::Context is made on (gl/context.h says how one is chosen), private to
/// gl/: the native handles a context owns (Context::Native), the EGL platforms
/// (gl/egl_platform.cpp: the device platform, then Mesa's surfaceless one) and the hidden GLFW
/// window (gl/glfw_platform.cpp). Each returns its handles with a 4.5 core context current on
/// the calling thread and GLEW's entry points loaded.

#define EGL_NO_X11
#define MESA_EGL_NO_X11_HEADERS
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gl/context.h"

struct GLFWwindow;

namespace stereo::gl {

struct Context::Native {
  // EGL
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
  EGLDeviceEXT device = EGL_NO_DEVICE_EXT;  // on the device platform
  // GLFW
  GLFWwindow* window = nullptr;
  std::string platform;
  nlohmann::json egl_device;  // null off the device platform

  /// Releases the window or the EGL context, surface and display (gl/context.cpp).
  ~Native();

  /// On an initialised display (EGL major.minor): a 4.5 core context, current without a
  /// surface or on a 1x1 pbuffer as `options.surface` asks (gl/egl_platform.cpp).
  void make_egl_context(const ContextOptions& options, EGLint major, EGLint minor);
};

namespace detail {

/// The EGL platforms as `options` allow: the device platform (the device STEREO_DEVICE names,
/// or every device in the order gl/context.h gives), then, where allowed, Mesa's surfaceless
/// platform. Throws stereo::Error with every platform's reason.
std::unique_ptr<Context::Native> create_egl(const ContextOptions& options);

/// A hidden 1x1 GLFW window with a 4.5 core context; throws stereo::Error where GLFW has no
/// display or STEREO_DEVICE asks for another GPU than the default.
std::unique_ptr<Context::Native> create_glfw(const ContextOptions& options);

/// An initialised EGL display one more Native uses (several contexts of a process may share
/// one: eglGetPlatformDisplay gives the same handle for the same device, and eglTerminate
/// would end them all). release_display() says whether the last user left, so the display may
/// be terminated (gl/context.cpp).
void retain_display(EGLDisplay display);
bool release_display(EGLDisplay display);

/// Loads the GL entry points into GLEW for the current context (gl/context.cpp); `egl` accepts
/// the GLX build's harmless complaint about a missing X display.
void load_entry_points(bool egl);

/// `name` is a whole word of the space-separated extension list (null: none).
bool has_extension(const char* list, const char* name);

/// "EGL_BAD_ACCESS" and the like for an eglGetError() value.
std::string egl_error_name(EGLint e);

/// The device's UUID from EGL_EXT_device_persistent_id, where the driver offers it.
std::optional<std::array<std::uint8_t, 16>> egl_device_uuid(EGLDeviceEXT device);

}  // namespace detail
}  // namespace stereo::gl
