#include "gl/context.h"

#include <GL/glew.h>

#define EGL_NO_X11
#define MESA_EGL_NO_X11_HEADERS
#include <EGL/egl.h>
#include <EGL/eglext.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "host/error.h"

namespace stereo::gl {
namespace {

bool has_extension(const char* list, const char* name) {
  if (list == nullptr) return false;
  const std::size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

std::string egl_error_name(EGLint e) {
  switch (e) {
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "EGL error " + std::to_string(e);
  }
}

// Loads the GL entry points into GLEW. Debian's GLEW is a GLX build: under EGL it loads the
// entry points and then reports GLEW_ERROR_NO_GLX_DISPLAY, which is harmless there as long
// as the 4.5 entry points arrived.
void load_entry_points(bool egl) {
  glewExperimental = GL_TRUE;
  const GLenum result = glewInit();
  glGetError();  // glewInit may leave GL_INVALID_ENUM from its extension probing
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

}  // namespace

struct Context::Native {
  // EGL
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
  // GLFW
  GLFWwindow* window = nullptr;
  std::string platform;

  ~Native() {
    if (window != nullptr) {
      glfwDestroyWindow(window);
      glfwTerminate();
    }
    if (display != EGL_NO_DISPLAY) {
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
      if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
      eglTerminate(display);
    }
  }

  // On an initialised display: a 4.5 core context, current without a surface or on a pbuffer.
  void make_egl_context() {
    if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) throw Error("eglBindAPI(EGL_OPENGL_API) failed");
    const bool surfaceless = has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context");
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE, surfaceless ? 0 : EGL_PBUFFER_BIT,
                                     EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                     EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
                                     EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (eglChooseConfig(display, config_attribs, &config, 1, &count) != EGL_TRUE || count < 1)
      throw Error("no EGL config with EGL_OPENGL_BIT");
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_NONE};
    context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
    if (context == EGL_NO_CONTEXT)
      throw Error("eglCreateContext(4.5 core) failed: " + egl_error_name(eglGetError()));
    if (!surfaceless) {
      const EGLint pbuffer_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
      surface = eglCreatePbufferSurface(display, config, pbuffer_attribs);
      if (surface == EGL_NO_SURFACE) throw Error("eglCreatePbufferSurface failed: " + egl_error_name(eglGetError()));
    }
    if (eglMakeCurrent(display, surface, surface, context) != EGL_TRUE)
      throw Error("eglMakeCurrent failed: " + egl_error_name(eglGetError()));
    load_entry_points(true);
  }
};

namespace {

std::unique_ptr<Context::Native> try_display(EGLDisplay display, const std::string& platform) {
  if (display == EGL_NO_DISPLAY) throw Error(platform + ": eglGetPlatformDisplayEXT failed");
  EGLint major = 0, minor = 0;
  if (eglInitialize(display, &major, &minor) != EGL_TRUE)
    throw Error(platform + ": eglInitialize failed (" + egl_error_name(eglGetError()) + ")");
  auto native = std::make_unique<Context::Native>();
  native->display = display;
  native->platform = platform;
  try {
    native->make_egl_context();
  } catch (const Error& e) {
    throw Error(platform + ": " + e.what());
  }
  return native;
}

std::unique_ptr<Context::Native> create_egl() {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_platform_display == nullptr) throw Error("eglGetPlatformDisplayEXT missing");
  std::string reasons;

  // 1. The device platform, hardware devices first.
  auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto query_device_string =
      reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
  if (has_extension(client, "EGL_EXT_platform_device") && query_devices != nullptr && query_device_string != nullptr) {
    EGLint count = 0;
    std::vector<EGLDeviceEXT> devices(16);
    if (query_devices(EGLint(devices.size()), devices.data(), &count) == EGL_TRUE) {
      devices.resize(std::size_t(count));
      struct Candidate { EGLDeviceEXT device; bool hardware; };
      std::vector<Candidate> order;
      for (EGLDeviceEXT d : devices) {
        const char* ext = query_device_string(d, EGL_EXTENSIONS);
        const bool software = has_extension(ext, "EGL_MESA_device_software");
        order.push_back({d, has_extension(ext, "EGL_EXT_device_drm") && !software});
      }
      std::stable_partition(order.begin(), order.end(), [](const Candidate& c) { return c.hardware; });
      for (const Candidate& c : order) {
        const std::string name = std::string("EGL device (") + (c.hardware ? "hardware" : "software") + ")";
        try {
          return try_display(get_platform_display(EGL_PLATFORM_DEVICE_EXT, c.device, nullptr), name);
        } catch (const Error& e) {
          reasons += std::string(reasons.empty() ? "" : "; ") + e.what();
        }
      }
      if (order.empty()) reasons += "no EGL devices";
    } else {
      reasons += "eglQueryDevicesEXT failed";
    }
  } else {
    reasons += "no EGL_EXT_platform_device";
  }

  // 2. Mesa's surfaceless platform.
  if (has_extension(client, "EGL_MESA_platform_surfaceless")) {
    try {
      return try_display(get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr),
                         "EGL surfaceless");
    } catch (const Error& e) {
      reasons += std::string("; ") + e.what();
    }
  } else {
    reasons += "; no EGL_MESA_platform_surfaceless";
  }
  throw Error(reasons);
}

std::unique_ptr<Context::Native> create_glfw() {
  if (glfwInit() != GLFW_TRUE) {
    const char* description = nullptr;
    glfwGetError(&description);
    throw Error(std::string("glfwInit failed: ") + (description ? description : "no display"));
  }
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(1, 1, "stereo", nullptr, nullptr);
  if (window == nullptr) {
    const char* description = nullptr;
    glfwGetError(&description);
    glfwTerminate();
    throw Error(std::string("glfwCreateWindow(4.5 core) failed: ") + (description ? description : "unknown"));
  }
  auto native = std::make_unique<Context::Native>();
  native->window = window;
  native->platform = "GLFW hidden window";
  glfwMakeContextCurrent(window);
  load_entry_points(false);
  return native;
}

std::string gl_string(GLenum name) {
  const auto* s = reinterpret_cast<const char*>(glGetString(name));
  return s != nullptr ? s : "";
}

}  // namespace

Context::Context(std::unique_ptr<Native> native) : native_(std::move(native)) {
  platform_ = native_->platform;
  renderer_ = gl_string(GL_RENDERER);
  version_ = gl_string(GL_VERSION);
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  if (major * 10 + minor < 45)
    throw Error(platform_ + " gave OpenGL " + std::to_string(major) + "." + std::to_string(minor) + " (" +
                renderer_ + "), 4.5 needed");
}

Context::~Context() = default;

std::shared_ptr<Context> Context::create() {
  const char* env = std::getenv("STEREO_GL_PLATFORM");
  const std::string platform = env != nullptr && *env != '\0' ? env : "egl";
  std::unique_ptr<Native> native;
  if (platform == "egl")
    native = create_egl();
  else if (platform == "glfw")
    native = create_glfw();
  else
    throw Error("STEREO_GL_PLATFORM must be egl or glfw, got '" + platform + "'");
  return std::shared_ptr<Context>(new Context(std::move(native)));
}

void Context::make_current() const {
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
    if (g_failure) throw Error(*g_failure);
    try {
      g_context = new std::shared_ptr<Context>(Context::create());
    } catch (const Error& e) {
      g_failure = std::string("no OpenGL 4.5 context: ") + e.what();
      throw Error(*g_failure);
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
