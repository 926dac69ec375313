#pragma once
/// \file cuda/common.h
/// What every CUDA stage shares: CUDA_CHECK, owned device memory, streams and events, and
/// div_up. Device memory and handles are unique_ptrs with non-throwing deleters (the CUTLASS
/// DeviceAllocation pattern), so an exception never leaks GPU memory.

#include <cuda_runtime.h>

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/image.h"

namespace stereo {
class ThreadPool;  // core/thread_pool.h
}  // namespace stereo

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

/// Blocks of `threads` for a 1-D launch over `count` elements. Counts are 64-bit so that an
/// image of more than 2^31 pixels is indexed correctly (kernels index with std::size_t);
/// throws when even the block count exceeds the grid's x limit (2^31 - 1).
unsigned blocks_1d(std::size_t count, int threads, const std::string& component);

/// Refuses images of more than 2^31 - 1 pixels, for kernels that index pixels with `int`
/// (one IMAD.WIDE a load instead of 64-bit address arithmetic on their hot paths).
void require_int_pixels(int width, int height, const std::string& component);

// ---- device memory ---------------------------------------------------------------------

struct DeviceFree {
  void operator()(void* p) const noexcept { cudaFree(p); }  // errors at teardown are moot
};

template <class T>
using DeviceBuffer = std::unique_ptr<T[], DeviceFree>;

/// `bytes` in MiB with one decimal ("12.5"), as every memory message of the CUDA backend gives it.
std::string mib(std::size_t bytes);

/// cudaMalloc that turns out-of-memory into "<component>: out of GPU memory allocating
/// N MiB for <what>" and any other failure into the usual CUDA_CHECK message.
void* device_alloc(std::size_t bytes, const std::string& component, const std::string& what);

/// Checks before a method allocates: throws "<component>: <what> needs X MiB of GPU memory,
/// Y MiB free on <GPU name>" when cudaMemGetInfo reports less than `bytes` free on the
/// current device. `what` names the size ("1920x1080 with 256 levels"). A pass does not
/// promise the allocations succeed (other processes, fragmentation): device_alloc still
/// reports those.
void require_free_memory(std::size_t bytes, const std::string& component, const std::string& what);

namespace testing {
/// Fault injection for tests: after `n` more successful device_alloc calls, every further
/// one throws device_alloc's out-of-memory error without calling cudaMalloc, until
/// fail_allocations_after(-1) turns it off again. Process-wide; tests only.
void fail_allocations_after(long n);
}  // namespace testing

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

/// Copies `bytes` from host memory to device memory and returns once they are there. A plain
/// cudaMemcpy from pageable memory may return as soon as the data is staged, before its DMA
/// lands, and kernels on a non-blocking stream do not wait for it (ESAW's colour table was read
/// half-written that way under GPU load): every synchronous upload goes through this.
void copy_to_device(void* dst, const void* src, std::size_t bytes);

/// Synchronous helpers for tests and set-up (not on a timed path).
DeviceImage<float> upload(const ImageF& image);
ImageF download(const DeviceImage<float>& image);
/// Fills with 0xFF bytes (a NaN in float), so an unwritten output cannot pass a test.
template <class T>
void poison(DeviceImage<T>& image) {
  CUDA_CHECK(cudaMemset(image.get(), 0xFF, image.count() * sizeof(T)));
}

// ---- page-locked host memory -----------------------------------------------------------

struct HostFree {
  void operator()(void* p) const noexcept { cudaFreeHost(p); }
};

/// Page-locked (pinned) host memory: the copy engines read and write it directly, at the
/// link's rate (~25 GB/s on PCIe 5 / H100), where pageable memory goes through the driver's
/// own staging at a quarter of that.
template <class T>
using HostBuffer = std::unique_ptr<T[], HostFree>;

/// cudaHostAlloc with the message style of device_alloc ("<component>: out of page-locked
/// host memory allocating N MiB for <what>").
void* host_alloc(std::size_t bytes, const std::string& component, const std::string& what);

template <class T>
HostBuffer<T> make_host_buffer(std::size_t count, const std::string& component, const std::string& what) {
  static_assert(std::is_trivially_copyable_v<T>);
  return HostBuffer<T>(static_cast<T*>(host_alloc(count * sizeof(T), component, what)));
}

/// One piece of a staged upload: `bytes` from pageable `src` to device `d_dst`. With
/// `row_bytes` set and `src_pitch` larger, `src` is rows of `row_bytes` bytes `src_pitch`
/// apart (an image view with a row pitch): the host threads gather them densely into the
/// staging, so the device receives `bytes` dense bytes all the same.
struct UploadPart {
  void* d_dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
  std::size_t row_bytes = 0;  ///< 0: `src` is contiguous
  std::size_t src_pitch = 0;
};

/// Host-to-device copy of pageable parts through the pinned `staging` (at least the sum of
/// their bytes, the parts laid end to end), in waves of slices: the host copies the next
/// wave into staging while the copy engine moves the ones before, so the upload takes about
/// the longer of the two plus the first wave, rather than their sum. The parts form one
/// pipeline (a second image does not restart it), and the slices start small and double up
/// to 1 MiB so that the first wave, which nothing overlaps, is short. With a `pool`, a
/// wave's slices (one per pool thread) are copied by the pool's threads at once, which lifts
/// the host side above one core's memcpy rate; only the calling thread calls CUDA.
/// Asynchronous on `stream` except for the host copies themselves; the staging must not be
/// in use by an earlier copy (the caller orders that).
void staged_upload(const std::vector<UploadPart>& parts, void* staging, cudaStream_t stream,
                   ThreadPool* pool = nullptr);
/// One part.
void staged_upload(void* d_dst, const void* src, void* staging, std::size_t bytes, cudaStream_t stream,
                   ThreadPool* pool = nullptr);

/// memcpy of `bytes` split over the pool's threads, in whole pages: a copy out of page-locked
/// memory that one core (~8-10 GB/s from memory not in cache) would make slower than the link.
void parallel_copy(ThreadPool& pool, void* dst, const void* src, std::size_t bytes);

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

/// A captured graph and its executable form, owned (non-throwing deleters).
struct GraphDeleter {
  void operator()(cudaGraph_t g) const noexcept { cudaGraphDestroy(g); }
};
struct GraphExecDeleter {
  void operator()(cudaGraphExec_t g) const noexcept { cudaGraphExecDestroy(g); }
};
using Graph = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, GraphDeleter>;
using GraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDeleter>;

/// Captures what `launch` enqueues on `stream` (and on streams it forks from it with events)
/// into an executable graph. The launches are only recorded, not run; an exception during the
/// capture ends it before it propagates, so the stream is never left capturing. With `keep`,
/// the graph it was made from is handed over there (whose nodes name the executable's, for
/// cudaGraphExec*SetParams-style updates).
template <class F>
GraphExec capture_graph(cudaStream_t stream, F&& launch, Graph* keep = nullptr) {
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    launch();
  } catch (...) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(stream, &broken);  // the first error is the one to report
    if (broken) cudaGraphDestroy(broken);
    throw;
  }
  cudaGraph_t raw = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(stream, &raw));
  Graph graph(raw);
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph.get(), 0));
  if (keep != nullptr) *keep = std::move(graph);
  return GraphExec(exec);
}

/// Milliseconds between two recorded (and completed) events.
float elapsed_ms(const Event& start, const Event& stop);

// ---- devices ---------------------------------------------------------------------------

/// Empty when a device is usable, else "no CUDA device: <reason>". Never throws.
std::optional<std::string> device_unavailable();
/// Name of the current device (cudaGetDeviceProperties).
std::string device_name();
/// Number of SMs of the current device.
int sm_count();

/// The device a CUDA matcher runs on: the ordinal requested_gpu() gives (--device N or
/// STEREO_DEVICE, core/gpu_select.h), else the calling thread's current device (0 unless
/// someone set another). Makes it current and returns it. Throws "<component>: --device 3
/// (STEREO_DEVICE=3) but this machine has 1 CUDA device" for an ordinal past the last.
/// Every CUDA matcher calls this once in its constructor and keeps the ordinal.
int select_device(const std::string& component);

/// Makes `ordinal` the current device for a scope and restores the previous one after.
/// A matcher opens one at the top of every public call that touches the GPU: the CUDA
/// current device is per host thread, and a matcher may be used from another thread than
/// the one that made it.
class DeviceScope {
 public:
  explicit DeviceScope(int ordinal);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = -1;
  int ordinal_ = -1;
};

/// cudaDevAttrMaxSharedMemoryPerBlockOptin of `ordinal`: the most dynamic shared memory one
/// block may ask for after cudaFuncSetAttribute (H100: 232448 B; RTX 30/40/50: 101376 B;
/// Turing: 65536 B).
std::size_t shared_memory_optin_limit(int ordinal);

/// What identifies the GPU in a result: {"name", "uuid" ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-
/// xxxxxxxxxxxx", as nvidia-smi -L prints it), "ordinal", "compute_capability" ("9.0"),
/// "driver" (the CUDA version the driver supports, "13.0"), "runtime" (this build's CUDA
/// runtime), "smem_optin_limit" (bytes)}. For Matcher::device_info() of every CUDA matcher.
nlohmann::json device_info_json(int ordinal);

/// The 16 bytes of a cudaUUID_t as nvidia-smi prints them (core/gpu_select.h format_gpu_uuid).
std::string format_uuid(const cudaUUID_t& uuid);

}  // namespace stereo::cu
