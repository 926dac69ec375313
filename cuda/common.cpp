#include "cuda/common.h"

#include <sstream>

namespace stereo::cu {

void throw_cuda_error(cudaError_t status, const char* expression, const char* file, int line) {
  std::ostringstream message;
  message << "CUDA error: " << expression << " failed at " << file << ":" << line << ": "
          << cudaGetErrorString(status);
  throw Error(message.str());
}

void* device_alloc(std::size_t bytes, const std::string& component, const std::string& what) {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free error so the context stays usable
    std::ostringstream message;
    message.precision(1);
    message << std::fixed << component << ": out of GPU memory allocating "
            << double(bytes) / (1024.0 * 1024.0) << " MiB for " << what;
    throw Error(message.str());
  }
  CUDA_CHECK(status);
  return p;
}

DeviceImage<float> upload(const ImageF& image) {
  require(image.channels == 1, "cuda upload: expected a single-channel image, got " +
                                   std::to_string(image.channels) + " channels");
  DeviceImage<float> out(image.width, image.height, "cuda", "an uploaded image");
  CUDA_CHECK(cudaMemcpy(out.get(), image.data.data(), out.count() * sizeof(float), cudaMemcpyHostToDevice));
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
