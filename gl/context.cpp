#include "gl/context.h"

#include <GL/glew.h>

#define EGL_NO_X11
#define MESA_EGL_NO_X11_HEADERS
#include <EGL/egl.h>
#include <EGL/eglext.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "gl/check.h"
#include "core/error.h"

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

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// Loads the GL entry points into GLEW. Debian's GLEW is a GLX build: under EGL it loads the
// entry points and then reports GLEW_ERROR_NO_GLX_DISPLAY, which is harmless there as long
// as the 4.5 entry points arrived.
void load_entry_points(bool egl) {
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

  // On an initialised display (EGL major.minor): a 4.5 core context, current without a
  // surface or on a 1x1 pbuffer as `options.surface` asks.
  void make_egl_context(const ContextOptions& options, EGLint major, EGLint minor) {
    if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) throw Error("eglBindAPI(EGL_OPENGL_API) failed");
    const bool can_go_surfaceless = has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context");
    if (options.surface == "none" && !can_go_surfaceless)
      throw Error("STEREO_GL_SURFACE=none needs EGL_KHR_surfaceless_context, which this display lacks");
    const bool surfaceless = options.surface == "none" || (options.surface == "auto" && can_go_surfaceless);
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE, surfaceless ? 0 : EGL_PBUFFER_BIT,
                                     EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                     EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
                                     EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (eglChooseConfig(display, config_attribs, &config, 1, &count) != EGL_TRUE || count < 1)
      throw Error(std::string("no EGL config with EGL_OPENGL_BIT") + (surfaceless ? "" : " and EGL_PBUFFER_BIT"));
    // EGL 1.5 names the debug flag; before it EGL_KHR_create_context's flag bit does.
    const bool egl15 = major > 1 || (major == 1 && minor >= 5);
    std::vector<EGLint> context_attribs = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                           EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT};
    if (options.debug > 0) {
      if (egl15)
        context_attribs.insert(context_attribs.end(), {EGL_CONTEXT_OPENGL_DEBUG, EGL_TRUE});
      else
        context_attribs.insert(context_attribs.end(), {EGL_CONTEXT_FLAGS_KHR, EGL_CONTEXT_OPENGL_DEBUG_BIT_KHR});
    }
    context_attribs.push_back(EGL_NONE);
    context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs.data());
    if (context == EGL_NO_CONTEXT)
      throw Error(std::string("eglCreateContext(4.5 core") + (options.debug > 0 ? ", debug" : "") +
                  ") failed: " + egl_error_name(eglGetError()));
    if (!surfaceless) {
      const EGLint pbuffer_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
      surface = eglCreatePbufferSurface(display, config, pbuffer_attribs);
      if (surface == EGL_NO_SURFACE) throw Error("eglCreatePbufferSurface failed: " + egl_error_name(eglGetError()));
      platform += ", 1x1 pbuffer";
    } else {
      platform += ", no surface";
    }
    if (eglMakeCurrent(display, surface, surface, context) != EGL_TRUE)
      throw Error("eglMakeCurrent failed: " + egl_error_name(eglGetError()));
    load_entry_points(true);
  }
};

namespace {

std::unique_ptr<Context::Native> try_display(EGLDisplay display, const std::string& platform,
                                             const ContextOptions& options) {
  if (display == EGL_NO_DISPLAY) throw Error(platform + ": eglGetPlatformDisplayEXT failed");
  EGLint major = 0, minor = 0;
  if (eglInitialize(display, &major, &minor) != EGL_TRUE)
    throw Error(platform + ": eglInitialize failed (" + egl_error_name(eglGetError()) + ")");
  auto native = std::make_unique<Context::Native>();
  native->display = display;
  native->platform = platform;
  try {
    native->make_egl_context(options, major, minor);
  } catch (const Error& e) {
    throw Error(platform + ": " + e.what());
  }
  return native;
}

// One EGL device as the device platform lists it.
struct DeviceCandidate {
  EGLDeviceEXT device = EGL_NO_DEVICE_EXT;
  int index = 0;
  bool hardware = false;
  std::optional<int> cuda;  // EGL_CUDA_DEVICE_NV, where the driver has EGL_NV_device_cuda
  std::string chosen_by;
};

std::string describe(const std::vector<DeviceCandidate>& devices) {
  std::string s;
  for (const DeviceCandidate& d : devices)
    s += (s.empty() ? "" : ", ") + std::to_string(d.index) + " (" + (d.hardware ? "hardware" : "software") +
         (d.cuda ? ", CUDA " + std::to_string(*d.cuda) : "") + ")";
  return s.empty() ? "none" : s;
}

// The devices to try, in order, each with how it was chosen. With a requested CUDA ordinal
// that is exactly one device or an error: running on another GPU than the one asked for
// would make every comparison with the CUDA backends meaningless.
std::vector<DeviceCandidate> choose_devices(std::vector<DeviceCandidate> all, std::optional<int> requested) {
  const bool any_cuda = std::any_of(all.begin(), all.end(), [](const DeviceCandidate& d) { return d.cuda.has_value(); });
  if (requested) {
    const int n = *requested;
    if (any_cuda) {
      for (DeviceCandidate& d : all)
        if (d.cuda == n) {
          d.chosen_by = "STEREO_DEVICE=" + std::to_string(n) + " matched by EGL_NV_device_cuda";
          return {d};
        }
      throw Error("STEREO_DEVICE=" + std::to_string(n) + ": no EGL device is CUDA device " + std::to_string(n) +
                  " (EGL devices: " + describe(all) + ")");
    }
    if (n == 0 && all.size() == 1) {
      all[0].chosen_by = "STEREO_DEVICE=0, the only EGL device (no EGL_NV_device_cuda to confirm it)";
      return all;
    }
    throw Error("STEREO_DEVICE=" + std::to_string(n) + ": the EGL driver has no EGL_NV_device_cuda, so the EGL device "
                "of CUDA device " + std::to_string(n) + " cannot be identified among " + std::to_string(all.size()) +
                " (" + describe(all) + "); unset STEREO_DEVICE, or use 0 where there is a single device");
  }
  // Unset: CUDA's default device where the driver tells which that is, then hardware before software.
  std::stable_sort(all.begin(), all.end(), [](const DeviceCandidate& a, const DeviceCandidate& b) {
    const int ra = a.cuda == 0 ? 0 : (a.hardware ? 1 : 2), rb = b.cuda == 0 ? 0 : (b.hardware ? 1 : 2);
    return ra < rb;
  });
  for (DeviceCandidate& d : all)
    d.chosen_by = d.cuda == 0 ? "CUDA device 0 (the default; EGL_NV_device_cuda)"
                  : d.hardware ? "first hardware device (STEREO_DEVICE unset)"
                               : "software device (STEREO_DEVICE unset)";
  return all;
}

std::unique_ptr<Context::Native> create_egl_device(const ContextOptions& options,
                                                   PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display) {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto query_device_string =
      reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
  auto query_device_attrib =
      reinterpret_cast<PFNEGLQUERYDEVICEATTRIBEXTPROC>(eglGetProcAddress("eglQueryDeviceAttribEXT"));
  if (!has_extension(client, "EGL_EXT_platform_device") || query_devices == nullptr || query_device_string == nullptr)
    throw Error("no EGL_EXT_platform_device");
  EGLint count = 0;
  if (query_devices(0, nullptr, &count) != EGL_TRUE) throw Error("eglQueryDevicesEXT failed");
  std::vector<EGLDeviceEXT> devices(std::size_t(std::max(count, 0)));
  if (count > 0 && query_devices(count, devices.data(), &count) != EGL_TRUE) throw Error("eglQueryDevicesEXT failed");
  devices.resize(std::size_t(std::max(count, 0)));
  if (devices.empty()) throw Error("no EGL devices");

  std::vector<DeviceCandidate> all;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    DeviceCandidate c;
    c.device = devices[i];
    c.index = int(i);
    const char* ext = query_device_string(devices[i], EGL_EXTENSIONS);
    c.hardware = has_extension(ext, "EGL_EXT_device_drm") && !has_extension(ext, "EGL_MESA_device_software");
    EGLAttrib ordinal = -1;
    if (has_extension(ext, "EGL_NV_device_cuda") && query_device_attrib != nullptr &&
        query_device_attrib(devices[i], EGL_CUDA_DEVICE_NV, &ordinal) == EGL_TRUE && ordinal >= 0)
      c.cuda = int(ordinal);
    all.push_back(c);
  }
  const std::vector<DeviceCandidate> order = choose_devices(all, options.device);
  std::string reasons;
  for (const DeviceCandidate& c : order) {
    const std::string name = "EGL device " + std::to_string(c.index) + " of " + std::to_string(all.size()) + " (" +
                             (c.hardware ? "hardware" : "software") + ")";
    try {
      auto native = try_display(get_platform_display(EGL_PLATFORM_DEVICE_EXT, c.device, nullptr), name, options);
      native->device = c.device;
      native->egl_device = {{"index", c.index},
                            {"count", all.size()},
                            {"kind", c.hardware ? "hardware" : "software"},
                            {"cuda_ordinal", c.cuda ? nlohmann::json(*c.cuda) : nlohmann::json(nullptr)},
                            {"chosen_by", c.chosen_by}};
      return native;
    } catch (const Error& e) {
      // A requested device that fails is an error of its own, not a reason to take another.
      if (options.device) throw;
      reasons += std::string(reasons.empty() ? "" : "; ") + e.what();
    }
  }
  throw Error(reasons);
}

std::unique_ptr<Context::Native> create_egl(const ContextOptions& options) {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_platform_display == nullptr) throw Error("eglGetPlatformDisplayEXT missing");
  std::string reasons;

  if (options.platform != "egl-surfaceless") {
    try {
      return create_egl_device(options, get_platform_display);
    } catch (const Error& e) {
      // A requested GPU is found on the device platform or not at all.
      const std::string what = e.what();
      if (options.device && what.rfind("STEREO_DEVICE", 0) != 0)
        throw Error("STEREO_DEVICE=" + std::to_string(*options.device) + " needs the EGL device platform: " + what);
      if (options.platform == "egl-device" || options.device) throw;
      reasons = e.what();
    }
  }

  if (options.device && *options.device != 0)
    throw Error("STEREO_DEVICE=" + std::to_string(*options.device) + ": the surfaceless platform cannot choose a GPU");
  if (!has_extension(client, "EGL_MESA_platform_surfaceless"))
    throw Error(reasons + (reasons.empty() ? "" : "; ") + "no EGL_MESA_platform_surfaceless");
  try {
    return try_display(get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr),
                       "EGL surfaceless", options);
  } catch (const Error& e) {
    throw Error(reasons + (reasons.empty() ? "" : "; ") + e.what());
  }
}

std::unique_ptr<Context::Native> create_glfw(const ContextOptions& options) {
  if (options.device && *options.device != 0)
    throw Error("STEREO_DEVICE=" + std::to_string(*options.device) +
                ": a GLFW window cannot choose a GPU; use STEREO_GL_PLATFORM=egl-device");
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
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, options.debug > 0 ? GLFW_TRUE : GLFW_FALSE);
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
  if (device != EGL_NO_DEVICE_EXT) {
    auto query_device_string =
        reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
    auto query_binary = reinterpret_cast<PFNEGLQUERYDEVICEBINARYEXTPROC>(eglGetProcAddress("eglQueryDeviceBinaryEXT"));
    EGLint size = 0;
    if (query_device_string != nullptr && query_binary != nullptr &&
        has_extension(query_device_string(device, EGL_EXTENSIONS), "EGL_EXT_device_persistent_id") &&
        query_binary(device, EGL_DEVICE_UUID_EXT, EGLint(bytes.size()), bytes.data(), &size) == EGL_TRUE &&
        size == EGLint(bytes.size())) {
      source = "EGL_EXT_device_persistent_id";
      return format_gpu_uuid(bytes);
    }
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
