// The EGL platforms of gl::Context (gl/context_platform.h): the device platform
// (EGL_EXT_platform_device), which can tell which GPU a CUDA ordinal is, and Mesa's surfaceless
// platform, which cannot.

#include <GL/glew.h>

#include "gl/context_platform.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/error.h"

namespace stereo::gl {
namespace detail {

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

std::optional<std::array<std::uint8_t, 16>> egl_device_uuid(EGLDeviceEXT device) {
  if (device == EGL_NO_DEVICE_EXT) return std::nullopt;
  auto query_device_string =
      reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
  auto query_binary = reinterpret_cast<PFNEGLQUERYDEVICEBINARYEXTPROC>(eglGetProcAddress("eglQueryDeviceBinaryEXT"));
  std::array<std::uint8_t, 16> bytes{};
  EGLint size = 0;
  if (query_device_string != nullptr && query_binary != nullptr &&
      has_extension(query_device_string(device, EGL_EXTENSIONS), "EGL_EXT_device_persistent_id") &&
      query_binary(device, EGL_DEVICE_UUID_EXT, EGLint(bytes.size()), bytes.data(), &size) == EGL_TRUE &&
      size == EGLint(bytes.size()))
    return bytes;
  return std::nullopt;
}

}  // namespace detail

using detail::egl_error_name;
using detail::has_extension;
using detail::load_entry_points;

void Context::Native::make_egl_context(const ContextOptions& options, EGLint major, EGLint minor) {
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

namespace {

std::unique_ptr<Context::Native> try_display(EGLDisplay display, const std::string& platform,
                                             const ContextOptions& options) {
  if (display == EGL_NO_DISPLAY) throw Error(platform + ": eglGetPlatformDisplayEXT failed");
  EGLint major = 0, minor = 0;
  if (eglInitialize(display, &major, &minor) != EGL_TRUE)
    throw Error(platform + ": eglInitialize failed (" + egl_error_name(eglGetError()) + ")");
  auto native = std::make_unique<Context::Native>();
  detail::retain_display(display);
  native->display = display;  // from here ~Native releases it
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

}  // namespace

namespace detail {

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

}  // namespace detail
}  // namespace stereo::gl
