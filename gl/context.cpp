// gl::Context (gl/context.h): the options read from the environment, the context's checks and
// description once a platform (gl/context_platform.h) made it current, its thread rule, and the
// one shared context of the process.

#include "gl/context.h"

#include <GL/glew.h>

#include "gl/context_platform.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "gl/check.h"
#include "core/error.h"

namespace stereo::gl {
using detail::create_egl;
using detail::create_glfw;
using detail::egl_error_name;

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// The KHR_debug callback. It runs inside the driver, so nothing may escape it: errors are
// recorded for the next check_gl_error (gl/check.h), the rest printed at STEREO_GL_DEBUG=2.
// Shader compiler messages are not GL errors: a failed compile or link is reported with its
// info log by Shader::compile / Program::link, which check the status themselves.
void GLAPIENTRY debug_callback(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                               const GLchar* message, const void* user) {
  const std::string_view text(message, length >= 0 ? std::size_t(length) : std::strlen(message));
  if (type == GL_DEBUG_TYPE_ERROR && source != GL_DEBUG_SOURCE_SHADER_COMPILER) {
    detail::record_debug_error(text);
    return;
  }
  if (reinterpret_cast<std::intptr_t>(user) >= 2) {
    const char* level = severity == GL_DEBUG_SEVERITY_HIGH ? "high"
                        : severity == GL_DEBUG_SEVERITY_MEDIUM ? "medium"
                        : severity == GL_DEBUG_SEVERITY_LOW ? "low" : "note";
    std::fprintf(stderr, "gl debug (%s, id %u): %.*s\n", level, id, int(text.size()), text.data());
  }
}

bool gl_has_extension(const char* name) {
  GLint count = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &count);
  for (GLint i = 0; i < count; ++i) {
    const auto* ext = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(i)));
    if (ext != nullptr && std::strcmp(ext, name) == 0) return true;
  }
  return false;
}

std::string gl_string(GLenum name) {
  const auto* s = reinterpret_cast<const char*>(glGetString(name));
  return s != nullptr ? s : "";
}

}  // namespace

// Debian's GLEW is a GLX build: under EGL it loads the entry points and then reports
// GLEW_ERROR_NO_GLX_DISPLAY, which is harmless there as long as the 4.5 entry points arrived.
void detail::load_entry_points(bool egl) {
  glewExperimental = GL_TRUE;
  const GLenum result = glewInit();
  // glewInit's extension probing (glGetString(GL_EXTENSIONS) in a core context) leaves
  // GL_INVALID_ENUM behind; it is not ours to report.
  while (glGetError() != GL_NO_ERROR) {
  }
  const bool loaded = glCreateTextures != nullptr && glCreateFramebuffers != nullptr &&
                      glTextureStorage2D != nullptr && glNamedFramebufferDrawBuffers != nullptr;
  if (result == GLEW_OK && loaded) return;
#ifdef GLEW_ERROR_NO_GLX_DISPLAY
  if (egl && result == GLEW_ERROR_NO_GLX_DISPLAY && loaded) return;
#endif
  throw Error(std::string("glewInit failed: ") +
              reinterpret_cast<const char*>(glewGetErrorString(result)) +
              (loaded ? "" : " (OpenGL 4.5 DSA entry points missing)"));
}

std::optional<int> parse_device_ordinal(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string s = text;
  const bool digits = s.size() <= 6 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) throw Error("gl: STEREO_DEVICE must be a CUDA device ordinal (0, 1, ...), got '" + s + "'");
  return std::stoi(s);
}

std::string format_gpu_uuid(const std::array<std::uint8_t, 16>& bytes) {
  static const char* hex = "0123456789abcdef";
  std::string out = "GPU-";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += hex[bytes[i] >> 4];
    out += hex[bytes[i] & 0xf];
  }
  return out;
}

ContextOptions ContextOptions::from_environment() {
  ContextOptions o;
  if (const std::string p = env("STEREO_GL_PLATFORM"); !p.empty()) o.platform = p;
  if (o.platform != "egl" && o.platform != "egl-device" && o.platform != "egl-surfaceless" && o.platform != "glfw")
    throw Error("STEREO_GL_PLATFORM must be egl, egl-device, egl-surfaceless or glfw, got '" + o.platform + "'");
  if (const std::string s = env("STEREO_GL_SURFACE"); !s.empty()) o.surface = s;
  if (o.surface != "auto" && o.surface != "none" && o.surface != "pbuffer")
    throw Error("STEREO_GL_SURFACE must be auto, none or pbuffer, got '" + o.surface + "'");
  o.device = parse_device_ordinal(std::getenv("STEREO_DEVICE"));
#ifndef NDEBUG
  o.debug = 1;  // debug builds check with the driver's own messages
#endif
  if (const std::string d = env("STEREO_GL_DEBUG"); !d.empty()) {
    if (d != "0" && d != "1" && d != "2") throw Error("STEREO_GL_DEBUG must be 0, 1 or 2, got '" + d + "'");
    o.debug = d[0] - '0';
  }
  return o;
}

namespace {
// The users of each display. Never destroyed, as g_context below: a context released during
// the process's exit must still find them.
struct DisplayUsers {
  std::mutex mutex;
  std::map<EGLDisplay, int> count;
};
DisplayUsers& display_users() {
  static auto* users = new DisplayUsers;
  return *users;
}
}  // namespace

void detail::retain_display(EGLDisplay display) {
  DisplayUsers& u = display_users();
  const std::lock_guard<std::mutex> lock(u.mutex);
  ++u.count[display];
}

bool detail::release_display(EGLDisplay display) {
  DisplayUsers& u = display_users();
  const std::lock_guard<std::mutex> lock(u.mutex);
  const auto it = u.count.find(display);
  if (it == u.count.end()) return true;
  if (--it->second > 0) return false;
  u.count.erase(it);
  return true;
}

Context::Native::~Native() {
  if (window != nullptr) {
    glfwDestroyWindow(window);
    glfwTerminate();
  }
  if (display != EGL_NO_DISPLAY) {
    // Another context of this process (the viewer's beside the GL backends') may be current
    // here and may share the display: release only this one, terminate only after the last.
    if (context != EGL_NO_CONTEXT && eglGetCurrentContext() == context)
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
    if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
    if (detail::release_display(display)) eglTerminate(display);
  }
}

namespace {

// The GPU's UUID: GL_EXT_memory_object's device UUID (index 0, the device this context runs
// on), else EGL_EXT_device_persistent_id's on the device platform.
std::optional<std::string> query_uuid(EGLDeviceEXT device, std::string& source) {
  std::array<std::uint8_t, 16> bytes{};
  static_assert(GL_UUID_SIZE_EXT == 16);
  if (gl_has_extension("GL_EXT_memory_object") && glGetUnsignedBytei_vEXT != nullptr) {
    GLint count = 0;
    glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &count);
    if (count >= 1) {
      glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, bytes.data());
      if (glGetError() == GL_NO_ERROR) {
        source = "GL_EXT_memory_object";
        return format_gpu_uuid(bytes);
      }
    }
  }
  while (glGetError() != GL_NO_ERROR) {
  }
  if (const auto egl = detail::egl_device_uuid(device)) {
    source = "EGL_EXT_device_persistent_id";
    return format_gpu_uuid(*egl);
  }
  source = "none offered by the driver";
  return std::nullopt;
}

}  // namespace

Context::Context(std::unique_ptr<Native> native, const ContextOptions& options) : native_(std::move(native)) {
  platform_ = native_->platform;
  renderer_ = gl_string(GL_RENDERER);
  vendor_ = gl_string(GL_VENDOR);
  version_ = gl_string(GL_VERSION);
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  if (major * 10 + minor < 45)
    throw Error(platform_ + " gave OpenGL " + std::to_string(major) + "." + std::to_string(minor) + " (" +
                renderer_ + "), 4.5 needed");
  uuid_ = query_uuid(native_->device, uuid_source_);
  // Mesa's software renderers answer GL_EXT_memory_object with an id made of their version
  // string ("mesa22.3.6"): no GPU has it, and no CUDA device could match it.
  if (uuid_ && (is_llvmpipe() || renderer_.find("softpipe") != std::string::npos)) {
    uuid_source_ = uuid_source_ + " gave the software renderer's id " + *uuid_ + ", not a GPU's";
    uuid_.reset();
  }
  if (options.debug > 0) {
    if (glDebugMessageCallback == nullptr) throw Error(platform_ + ": KHR_debug's glDebugMessageCallback missing");
    // Synchronous: the callback runs inside the failing call, so the error is recorded before
    // that call's GL_CHECK looks, and the driver message lands in the right exception.
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(debug_callback, reinterpret_cast<const void*>(std::intptr_t(options.debug)));
    glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
    while (glGetError() != GL_NO_ERROR) {
    }
    detail::clear_debug_errors();
    debug_ = true;
  }
}

Context::~Context() = default;

nlohmann::json Context::device_info() const {
  return {{"name", renderer_},
          {"uuid", uuid_ ? nlohmann::json(*uuid_) : nlohmann::json(nullptr)},
          {"uuid_source", uuid_source_},
          {"vendor", vendor_},
          {"version", version_},
          {"platform", platform_},
          {"debug", debug_},
          {"egl_device", native_->egl_device}};
}

std::shared_ptr<Context> Context::create(const ContextOptions& options) {
  std::unique_ptr<Native> native = options.platform == "glfw" ? create_glfw(options) : create_egl(options);
  return std::shared_ptr<Context>(new Context(std::move(native), options));
}

void Context::make_current() const {
  if (!owned_by_this_thread()) {
    std::ostringstream self, owner;
    self << std::this_thread::get_id();
    owner << owner_;
    throw Error("gl: the OpenGL context belongs to thread " + owner.str() + " and this is thread " + self.str() +
                    ": GL backends run on the one thread that first used one (one process per thread for parallel GL work)",
                ErrorKind::unavailable);
  }
  if (native_->window != nullptr) {
    glfwMakeContextCurrent(native_->window);
  } else if (eglGetCurrentContext() != native_->context) {
    eglBindAPI(EGL_OPENGL_API);
    if (eglMakeCurrent(native_->display, native_->surface, native_->surface, native_->context) != EGL_TRUE)
      throw Error("gl: eglMakeCurrent failed: " + egl_error_name(eglGetError()));
  }
}

namespace {
std::mutex g_mutex;
// Deliberately never destroyed: tearing Mesa down from a static destructor races its own
// atexit handlers. Matchers hold their own reference while they live.
std::shared_ptr<Context>* g_context = nullptr;
std::optional<std::string> g_failure;
}  // namespace

std::shared_ptr<Context> shared_context() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_context == nullptr) {
    if (g_failure) throw Error(*g_failure, ErrorKind::unavailable);
    try {
      g_context = new std::shared_ptr<Context>(Context::create(ContextOptions::from_environment()));
    } catch (const Error& e) {
      g_failure = std::string("no OpenGL 4.5 context: ") + e.what();
      throw Error(*g_failure, ErrorKind::unavailable);
    }
  }
  (*g_context)->make_current();
  return *g_context;
}

std::optional<std::string> context_unavailable() {
  try {
    shared_context();
    return std::nullopt;
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

}  // namespace stereo::gl
