// The CUDA-GL interop: the CUDA backend writes the map into a GL buffer; GL copies it into the
// texture the ramp pass reads. Per frame that is one map/unmap pair of the registered buffer
// and one buffer-to-texture copy in video memory (8 MiB at 1920x1080); nothing reaches the host.

#include "app/view/cuda_interop.h"

#include <GL/glew.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <string>

#include "core/error.h"
#include "cuda/common.h"
#include "gl/check.h"

namespace stereo::view {

struct CudaGlMap::Registration {
  cudaGraphicsResource_t resource = nullptr;
  ~Registration() {
    if (resource != nullptr) cudaGraphicsUnregisterResource(resource);  // no throw from a destructor
  }
};

std::optional<std::string> CudaGlMap::unavailable() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the sticky-free error of a machine without a device
    return std::string("no CUDA device");
  }
  unsigned int gl_devices = 0;
  int device = -1;
  const cudaError_t status = cudaGLGetDevices(&gl_devices, &device, 1, cudaGLDeviceListAll);
  if (status != cudaSuccess || gl_devices == 0) {
    cudaGetLastError();
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return std::string("the window's OpenGL (") + (renderer ? renderer : "?") + ") is not on a CUDA device";
  }
  return std::nullopt;
}

CudaGlMap::CudaGlMap(const WindowContext& context) : context_(context), registration_(std::make_unique<Registration>()) {
  unsigned int gl_devices = 0;
  CUDA_CHECK(cudaGLGetDevices(&gl_devices, &device_, 1, cudaGLDeviceListAll));
}

CudaGlMap::~CudaGlMap() {
  if (mapped_) cudaGraphicsUnmapResources(1, &registration_->resource, nullptr);
}

DisparityView CudaGlMap::map(int width, int height) {
  require(width > 0 && height > 0, "view: interop map of " + std::to_string(width) + "x" + std::to_string(height),
          ErrorKind::invalid_argument);
  context_.acquire();
  if (width != width_ || height != height_) {
    registration_ = std::make_unique<Registration>();  // unregisters the old buffer first
    buffer_ = gl::Buffer::create(std::size_t(width) * std::size_t(height) * sizeof(float), nullptr, 0,
                                 "view.interop map");
    texture_ = gl::Texture::create(GL_TEXTURE_2D, GL_R32F, width, height, GL_NEAREST, "view.interop disparity");
    CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&registration_->resource, buffer_.id(),
                                            cudaGraphicsRegisterFlagsWriteDiscard));
    width_ = width;
    height_ = height;
  }
  CUDA_CHECK(cudaGraphicsMapResources(1, &registration_->resource, nullptr));
  mapped_ = true;
  void* pointer = nullptr;
  std::size_t bytes = 0;
  CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&pointer, &bytes, registration_->resource));
  context_.release();  // the matcher's run comes next; unmap() takes the context back
  return DisparityView::cuda(static_cast<float*>(pointer), width, height, 0, device_);
}

void CudaGlMap::unmap(bool written) {
  if (!mapped_) return;
  mapped_ = false;
  context_.acquire();
  struct Release {
    const WindowContext& c;
    ~Release() { c.release(); }
  } release{context_};
  // Unmapping orders CUDA's writes before GL's later use of the buffer (the CUDA-GL interop's
  // synchronisation rule); compute_into() has returned, so the writes are queued or done.
  CUDA_CHECK(cudaGraphicsUnmapResources(1, &registration_->resource, nullptr));
  if (!written) return;  // the texture keeps the last good map
  GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_.id()));
  GL_CHECK(glPixelStorei(GL_UNPACK_ALIGNMENT, 4));
  GL_CHECK(glTextureSubImage2D(texture_.id(), 0, 0, 0, width_, height_, GL_RED, GL_FLOAT, nullptr));
  GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
}

DeviceMapTarget::Figures CudaGlMap::evaluate(const Scene& scene, double threshold, std::uint64_t scene_key) {
  if (const auto why = GlFigures::unsupported(scene)) return {std::nullopt, "no figures on the GPU: " + *why, 0.0, 0.0};
  context_.acquire();
  struct Release {
    const WindowContext& c;
    ~Release() { c.release(); }
  } release{context_};
  if (!figures_) figures_ = std::make_unique<GlFigures>();
  Metrics m = figures_->evaluate(texture_, scene, threshold, scene_key);
  return {std::move(m), "", figures_->last_pass_ms(), figures_->last_upload_ms()};
}

}  // namespace stereo::view
