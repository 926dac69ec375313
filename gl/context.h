#pragma once
/// \file gl/context.h
/// One process-wide OpenGL 4.5 core context, created lazily on first use.
///
/// Chosen by the environment (ContextOptions::from_environment):
///  - STEREO_GL_PLATFORM
///     - `egl` (default): headless. The EGL device platform (EGL_EXT_platform_device), then,
///       unless STEREO_DEVICE is set, Mesa's surfaceless platform.
///     - `egl-device`: the EGL device platform only.
///     - `egl-surfaceless`: Mesa's surfaceless platform only (EGL_MESA_platform_surfaceless).
///     - `glfw`: a hidden 1x1 GLFW window, where a display exists (CI: xvfb-run).
///  - STEREO_GL_SURFACE (EGL): `auto` (default: no surface where EGL_KHR_surfaceless_context
///    allows, else a 1x1 pbuffer), `none` (EGL_KHR_surfaceless_context, required), `pbuffer`.
///  - STEREO_DEVICE=N, the CUDA device ordinal (the CLI's --device N sets it). On the device
///    platform the EGL device whose EGL_CUDA_DEVICE_NV (EGL_NV_device_cuda) is N; a driver
///    without that extension is accepted only for N = 0 with a single EGL device; any other
///    case is an error, never a silent other GPU. glfw and egl-surfaceless cannot choose a
///    GPU and accept only N = 0. Unset: the device CUDA calls 0 where the driver says, else
///    hardware devices (EGL_EXT_device_drm) before Mesa's software device.
///  - STEREO_GL_DEBUG=1 (and every build without NDEBUG): a debug context with a KHR_debug
///    callback, GL_DEBUG_OUTPUT_SYNCHRONOUS. Driver messages of type error are kept and thrown
///    by the next GL check (gl/check.h), never thrown across the C callback.
///    STEREO_GL_DEBUG=2 also prints the other messages to stderr; 0 turns it off.
/// GLEW loads the entry points. All GL work happens on the thread that created the context;
/// make_current() refuses any other thread with a clear error (see there why).
/// What each pass may assume of the context's state: gl/STATE.md.

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace stereo::gl {

/// How the context is made; see the file comment for each field's variable.
struct ContextOptions {
  std::string platform = "egl";  ///< egl, egl-device, egl-surfaceless, glfw
  std::string surface = "auto";  ///< auto, none, pbuffer
  std::optional<int> device;     ///< CUDA ordinal to match (STEREO_DEVICE)
  int debug = 0;                 ///< 0 off, 1 KHR_debug errors, 2 also print other messages

  /// Reads the variables; throws stereo::Error naming a variable with a bad value.
  static ContextOptions from_environment();
};

/// STEREO_DEVICE's value as a CUDA ordinal: nothing for null or empty text, else a
/// non-negative decimal integer; throws stereo::Error quoting the text otherwise.
std::optional<int> parse_device_ordinal(const char* text);

/// A 16-byte device UUID the way nvidia-smi prints it and CUDA's cudaDeviceProp::uuid holds
/// it: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lower-case hex, bytes in order.
std::string format_gpu_uuid(const std::array<std::uint8_t, 16>& bytes);

class Context {
 public:
  /// Creates a context and makes it current; throws stereo::Error with the reason.
  static std::shared_ptr<Context> create(const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// Makes the context current on the calling thread, which must be the thread that created
  /// it; any other thread gets a stereo::Error saying so. Why one thread: an EGL or GLFW
  /// context is current on at most one thread at a time, and this one stays current on its
  /// thread between calls (releasing and re-binding it around every pass would cost each pass
  /// an eglMakeCurrent and still serialise the threads), so a second thread could only fail
  /// inside eglMakeCurrent (EGL_BAD_ACCESS) or, worse, issue GL calls with no context. Every GL
  /// backend of a process therefore runs on the thread that first used one; use one process
  /// per thread to run GL work in parallel.
  void make_current() const;
  /// True on the thread that created the context (the one make_current accepts).
  [[nodiscard]] bool owned_by_this_thread() const noexcept { return std::this_thread::get_id() == owner_; }

  [[nodiscard]] const std::string& renderer() const { return renderer_; }  ///< GL_RENDERER
  [[nodiscard]] const std::string& vendor() const { return vendor_; }      ///< GL_VENDOR
  [[nodiscard]] const std::string& version() const { return version_; }    ///< GL_VERSION
  [[nodiscard]] const std::string& platform() const { return platform_; }  ///< e.g. "EGL device 0 of 1 (software)"
  /// The GPU's UUID (format_gpu_uuid) from GL_EXT_memory_object or EGL_EXT_device_persistent_id;
  /// nothing where the driver offers neither.
  [[nodiscard]] const std::optional<std::string>& uuid() const { return uuid_; }
  /// True when the KHR_debug callback is installed.
  [[nodiscard]] bool debug() const { return debug_; }
  /// {"name", "uuid" (or null), "vendor", "version", "platform", "debug", "egl_device"}:
  /// egl_device holds the device's index among the EGL devices, their count, its CUDA
  /// ordinal (or null) and how it was chosen; null off the device platform.
  [[nodiscard]] nlohmann::json device_info() const;
  /// Mesa llvmpipe: its GL_TIME_ELAPSED queries do not cover a whole pass, so passes are timed
  /// with glFinish and a host clock instead.
  [[nodiscard]] bool is_llvmpipe() const { return renderer_.find("llvmpipe") != std::string::npos; }
  [[nodiscard]] bool use_timer_queries() const { return !is_llvmpipe(); }

  /// Platform handles (EGL display/context/surface or the GLFW window), defined in
  /// gl/context_platform.h.
  struct Native;

 private:
  Context(std::unique_ptr<Native> native, const ContextOptions& options);
  std::unique_ptr<Native> native_;
  std::thread::id owner_ = std::this_thread::get_id();
  std::string renderer_, vendor_, version_, platform_;
  std::optional<std::string> uuid_;
  std::string uuid_source_;
  bool debug_ = false;
};

/// The process-wide context, created on first call from ContextOptions::from_environment()
/// (and made current on each call); throws stereo::Error "no OpenGL 4.5 context: <reason>"
/// when none can be made.
std::shared_ptr<Context> shared_context();

/// Why no OpenGL 4.5 context can be made here ("no OpenGL 4.5 context: eglInitialize failed"),
/// or nothing when one can. Tries once per process.
std::optional<std::string> context_unavailable();

}  // namespace stereo::gl
