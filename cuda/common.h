#pragma once
/// \file cuda/common.h
/// What every CUDA stage shares: CUDA_CHECK, owned device memory, streams and events, and
/// div_up. Device memory and handles are unique_ptrs with non-throwing deleters (the CUTLASS
/// DeviceAllocation pattern), so an exception never leaks GPU memory.

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "host/error.h"
#include "host/image.h"

namespace stereo::cu {

/// Throws stereo::Error naming the failing expression, file:line and cudaGetErrorString.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* expression, const char* file, int line);

}  // namespace stereo::cu

/// Checks a CUDA runtime call; throws stereo::Error (never prints and continues, never exits).
#define CUDA_CHECK(expr)                                                                   \
  do {                                                                                     \
    const cudaError_t stereo_cuda_status_ = (expr);                                        \
    if (stereo_cuda_status_ != cudaSuccess)                                                \
      ::stereo::cu::throw_cuda_error(stereo_cuda_status_, #expr, __FILE__, __LINE__);     \
  } while (0)

/// Checks a kernel launch: the launch configuration error now, not at the next sync.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

namespace stereo::cu {

constexpr int div_up(int a, int b) { return (a + b - 1) / b; }

// ---- device memory ---------------------------------------------------------------------

struct DeviceFree {
  void operator()(void* p) const noexcept { cudaFree(p); }  // errors at teardown are moot
};

template <class T>
using DeviceBuffer = std::unique_ptr<T[], DeviceFree>;

/// cudaMalloc that turns out-of-memory into "<component>: out of GPU memory allocating
/// N MiB for <what>" and any other failure into the usual CUDA_CHECK message.
void* device_alloc(std::size_t bytes, const std::string& component, const std::string& what);

template <class T>
DeviceBuffer<T> make_device_buffer(std::size_t count, const std::string& component, const std::string& what) {
  static_assert(std::is_trivially_copyable_v<T>);
  return DeviceBuffer<T>(static_cast<T*>(device_alloc(count * sizeof(T), component, what)));
}

/// A single-channel device image, row-major and densely packed (pitch = width).
template <class T>
struct DeviceImage {
  int width = 0;
  int height = 0;
  DeviceBuffer<T> data;

  DeviceImage() = default;
  DeviceImage(int w, int h, const std::string& component, const std::string& what)
      : width(w), height(h),
        data(make_device_buffer<T>(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), component, what)) {}
  [[nodiscard]] std::size_t count() const { return static_cast<std::size_t>(width) * static_cast<std::size_t>(height); }
  [[nodiscard]] T* get() { return data.get(); }
  [[nodiscard]] const T* get() const { return data.get(); }
};

/// Synchronous helpers for tests and set-up (not on a timed path).
DeviceImage<float> upload(const ImageF& image);
ImageF download(const DeviceImage<float>& image);
/// Fills with 0xFF bytes (a NaN in float), so an unwritten output cannot pass a test.
template <class T>
void poison(DeviceImage<T>& image) {
  CUDA_CHECK(cudaMemset(image.get(), 0xFF, image.count() * sizeof(T)));
}

// ---- streams and events ----------------------------------------------------------------

struct StreamDestroy {
  void operator()(cudaStream_t s) const noexcept { cudaStreamDestroy(s); }
};
struct EventDestroy {
  void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); }
};
using Stream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, StreamDestroy>;
using Event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDestroy>;

Stream make_stream();
Event make_event();
/// Milliseconds between two recorded (and completed) events.
float elapsed_ms(const Event& start, const Event& stop);

// ---- devices ---------------------------------------------------------------------------

/// Empty when a device is usable, else "no CUDA device: <reason>". Never throws.
std::optional<std::string> device_unavailable();
/// Name of the current device (cudaGetDeviceProperties).
std::string device_name();
/// Number of SMs of the current device.
int sm_count();

}  // namespace stereo::cu
