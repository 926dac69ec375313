#include "cuda/common.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

#include "core/gpu_select.h"
#include "core/thread_pool.h"

namespace stereo::cu {
namespace {

// device_alloc calls that may still succeed before the injected failures begin; -1 = off.
std::atomic<long> allocations_before_failure{-1};

// True when this allocation is to fail by injection (counts the ones that may succeed).
bool inject_failure() {
  long left = allocations_before_failure.load();
  while (left > 0)
    if (allocations_before_failure.compare_exchange_weak(left, left - 1)) return false;
  return left == 0;
}

// 13000 -> "13.0", 12080 -> "12.8" (CUDA's 1000 * major + 10 * minor encoding).
std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace

std::string mib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", double(bytes) / (1024.0 * 1024.0));
  return text;
}

void throw_cuda_error(cudaError_t status, const char* expression, const char* file, int line) {
  std::ostringstream message;
  message << "CUDA error: " << expression << " failed at " << file << ":" << line << ": "
          << cudaGetErrorString(status);
  throw Error(message.str());
}

unsigned blocks_1d(std::size_t count, int threads, const std::string& component) {
  const std::size_t per_block = static_cast<std::size_t>(threads);
  const std::size_t blocks = (count + per_block - 1) / per_block;
  require(blocks <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
          component + ": " + std::to_string(count) + " elements need " + std::to_string(blocks) +
              " blocks of " + std::to_string(threads) + " threads, more than a CUDA grid's 2^31 - 1");
  return static_cast<unsigned>(blocks);
}

void require_int_pixels(int width, int height, const std::string& component) {
  require(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) <=
              static_cast<std::size_t>(std::numeric_limits<int>::max()),
          component + ": " + std::to_string(width) + "x" + std::to_string(height) +
              " pixels exceed its 32-bit pixel indices (2^31 - 1 pixels)");
}

void* device_alloc(std::size_t bytes, const std::string& component, const std::string& what) {
  void* p = nullptr;
  const cudaError_t status = inject_failure() ? cudaErrorMemoryAllocation : cudaMalloc(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free error so the context stays usable
    throw Error(component + ": out of GPU memory allocating " + mib(bytes) + " MiB for " + what, ErrorKind::out_of_memory);
  }
  CUDA_CHECK(status);
  return p;
}

void* host_alloc(std::size_t bytes, const std::string& component, const std::string& what) {
  void* p = nullptr;
  const cudaError_t status = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    throw Error(component + ": out of page-locked host memory allocating " + mib(bytes) + " MiB for " + what,
                ErrorKind::out_of_memory);
  }
  CUDA_CHECK(status);
  return p;
}

namespace {

/// Bytes offset .. offset + bytes - 1 of `part`'s dense content into `dst`: one memcpy for a
/// contiguous part, else the pieces of the rows they fall in.
void copy_part(const UploadPart& part, std::size_t offset, std::size_t bytes, unsigned char* dst) {
  const auto* src = static_cast<const unsigned char*>(part.src);
  if (part.row_bytes == 0 || part.src_pitch == part.row_bytes) {
    std::memcpy(dst, src + offset, bytes);
    return;
  }
  while (bytes > 0) {
    const std::size_t row = offset / part.row_bytes, column = offset % part.row_bytes;
    const std::size_t n = std::min(bytes, part.row_bytes - column);
    std::memcpy(dst, src + row * part.src_pitch + column, n);
    dst += n;
    offset += n;
    bytes -= n;
  }
}

}  // namespace

void staged_upload(const std::vector<UploadPart>& parts, void* staging, cudaStream_t stream, ThreadPool* pool) {
  // Slices grow from 128 KiB (a wave of them is copied in ~10-20 us, the pipeline's start-up
  // that nothing overlaps) to 1 MiB (a cudaMemcpyAsync call, a few microseconds, is then
  // small beside the slice's ~40 us on the link). A slice never crosses from one part into
  // the next, so each maps to one contiguous device range.
  constexpr std::size_t FIRST_SLICE = std::size_t(128) << 10;
  constexpr std::size_t MAX_SLICE = std::size_t(1) << 20;
  struct Slice {
    std::size_t part, offset, bytes, stage;  // offset in the part, stage offset in staging
  };
  std::vector<Slice> slices;
  std::size_t slice = FIRST_SLICE, stage = 0;
  const std::size_t wave = pool != nullptr ? pool->size() : 1;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    for (std::size_t offset = 0; offset < parts[p].bytes;) {
      const std::size_t n = std::min(slice, parts[p].bytes - offset);
      slices.push_back({p, offset, n, stage});
      offset += n;
      stage += n;
      // Double after each full wave.
      if (slices.size() % wave == 0) slice = std::min(2 * slice, MAX_SLICE);
    }
  }
  auto* stage_base = static_cast<unsigned char*>(staging);
  for (std::size_t first = 0; first < slices.size(); first += wave) {
    const std::size_t count = std::min(wave, slices.size() - first);
    const auto copy_slice = [&](std::size_t k) {
      const Slice& sl = slices[first + k];
      copy_part(parts[sl.part], sl.offset, sl.bytes, stage_base + sl.stage);
    };
    if (pool != nullptr && count > 1)
      pool->parallel_for(count, copy_slice);
    else
      for (std::size_t k = 0; k < count; ++k) copy_slice(k);
    // The wave's DMA, issued by this thread only (the current device is the caller's): one
    // copy per run of slices within one part.
    for (std::size_t k = first; k < first + count;) {
      std::size_t end = k + 1, n = slices[k].bytes;
      while (end < first + count && slices[end].part == slices[k].part) n += slices[end++].bytes;
      CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(parts[slices[k].part].d_dst) + slices[k].offset,
                                 stage_base + slices[k].stage, n, cudaMemcpyHostToDevice, stream));
      k = end;
    }
  }
}

void staged_upload(void* d_dst, const void* src, void* staging, std::size_t bytes, cudaStream_t stream,
                   ThreadPool* pool) {
  staged_upload(std::vector<UploadPart>{{d_dst, src, bytes}}, staging, stream, pool);
}

void parallel_copy(ThreadPool& pool, void* dst, const void* src, std::size_t bytes) {
  const std::size_t parts = pool.size();
  const std::size_t chunk = ((bytes + parts - 1) / parts + 4095) / 4096 * 4096;
  pool.parallel_for(parts, [&](std::size_t k) {
    const std::size_t begin = std::min(bytes, k * chunk), end = std::min(bytes, (k + 1) * chunk);
    std::memcpy(static_cast<unsigned char*>(dst) + begin, static_cast<const unsigned char*>(src) + begin, end - begin);
  });
}

void require_free_memory(std::size_t bytes, const std::string& component, const std::string& what) {
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (bytes > free)
    throw Error(component + ": " + what + " needs " + mib(bytes) + " MiB of GPU memory, " + mib(free) +
                    " MiB free of " + mib(total) + " MiB on " + device_name(),
                ErrorKind::out_of_memory);
}

namespace testing {
void fail_allocations_after(long n) { allocations_before_failure.store(n < 0 ? -1 : n); }
}  // namespace testing

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

DeviceImage<float> upload(const ImageF& image) {
  require(image.channels == 1, "cuda upload: expected a single-channel image, got " +
                                   std::to_string(image.channels) + " channels");
  DeviceImage<float> out(image.width, image.height, "cuda", "an uploaded image");
  copy_to_device(out.get(), image.data.data(), out.count() * sizeof(float));
  return out;
}

ImageF download(const DeviceImage<float>& image) {
  ImageF out(image.width, image.height, 1);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(out.data.data(), image.get(), image.count() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

Stream make_stream() {
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}

Event make_event() {
  cudaEvent_t e = nullptr;
  CUDA_CHECK(cudaEventCreate(&e));
  return Event(e);
}

float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

std::optional<std::string> device_unavailable() {
  try {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      // Without an NVIDIA driver the runtime reports an "insufficient" driver; say what a
      // user can act on, and keep the runtime's own words after it.
      if (status == cudaErrorInsufficientDriver)
        return std::string("no CUDA device: no NVIDIA driver, or one older than this build's CUDA ") +
               std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
               " runtime needs (" + cudaGetErrorString(status) + ")";
      if (status == cudaErrorNoDevice) return std::string("no CUDA device: the driver sees no GPU");
      return std::string("no CUDA device: ") + cudaGetErrorString(status);
    }
    if (count == 0) return std::string("no CUDA device: no device found");
    return std::nullopt;
  } catch (...) {
    return std::string("no CUDA device: the CUDA runtime failed to initialise");
  }
}

std::string device_name() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

int sm_count() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int count = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

}  // namespace stereo::cu

namespace stereo::cu {

int select_device(const std::string& component) {
  const std::optional<int> requested = requested_gpu();
  int ordinal = 0;
  if (requested) {
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (*requested >= count) {
      const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
      throw Error(component + ": --device " + std::to_string(*requested) + " (" + GPU_ENV + "=" +
                  std::to_string(*requested) + ") but this machine has " + std::to_string(count) +
                  (count == 1 ? " CUDA device" : " CUDA devices") +
                      (visible ? std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")" : std::string()),
                  ErrorKind::unavailable);
    }
    ordinal = *requested;
  } else {
    CUDA_CHECK(cudaGetDevice(&ordinal));
  }
  CUDA_CHECK(cudaSetDevice(ordinal));
  return ordinal;
}

DeviceScope::DeviceScope(int ordinal) : ordinal_(ordinal) {
  CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != ordinal_) CUDA_CHECK(cudaSetDevice(ordinal_));
}

DeviceScope::~DeviceScope() {
  if (previous_ != ordinal_) (void)cudaSetDevice(previous_);  // a destructor must not throw
}

std::size_t shared_memory_optin_limit(int ordinal) {
  int bytes = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
  return static_cast<std::size_t>(bytes);
}

std::string format_uuid(const cudaUUID_t& uuid) {
  std::array<std::uint8_t, 16> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(uuid.bytes[i]);
  return format_gpu_uuid(bytes);
}

nlohmann::json device_info_json(int ordinal) {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  int driver = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  return {{"name", std::string(prop.name)},
          {"uuid", format_uuid(prop.uuid)},
          {"ordinal", ordinal},
          {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
          {"driver", cuda_version_string(driver)},
          {"runtime", cuda_version_string(CUDART_VERSION)},
          {"smem_optin_limit", shared_memory_optin_limit(ordinal)}};
}

}  // namespace stereo::cu
