#pragma once
/// \file app/view/cuda_interop.h
/// The CUDA-GL interop of the window: a GL pixel buffer registered with CUDA
/// (cudaGraphicsGLRegisterBuffer, write-discard). A CUDA backend's compute_into() writes its
/// float map into the mapped buffer (device memory), and unmap() copies the buffer into an R32F
/// texture on the GPU (glTextureSubImage2D from GL_PIXEL_UNPACK_BUFFER): the map never passes
/// through host memory. Where the scene has ground truth, `eval`'s figures and error picture
/// are computed from that texture on the GPU too (app/view/gl_figures.h). Built only with CUDA (STEREO_VIEW_CUDA_INTEROP).

#include <memory>
#include <optional>
#include <string>

#include "app/view/gl_figures.h"
#include "app/view/viewer_state.h"
#include "app/view/window_context.h"
#include "gl/objects.h"

namespace stereo::view {

class CudaGlMap : public DeviceMapTarget {
 public:
  /// Why the window's GL context cannot share memory with a CUDA device here (no CUDA device,
  /// or the context is not on one, as with Mesa's llvmpipe), or nothing when it can. The
  /// window's context must be current.
  static std::optional<std::string> unavailable();
  /// map() and unmap() run with `context` current and leave none current (they are called
  /// from the state's run, between a GL matcher's calls): window_context.h.
  explicit CudaGlMap(const WindowContext& context);
  ~CudaGlMap() override;
  CudaGlMap(const CudaGlMap&) = delete;
  CudaGlMap& operator=(const CudaGlMap&) = delete;

  DisparityView map(int width, int height) override;
  void unmap(bool written) override;
  /// Scores the texture on the GPU (app/view/gl_figures.h): a few counts per row come back,
  /// not the map.
  Figures evaluate(const Scene& scene, double threshold, std::uint64_t scene_key) override;
  /// The map of the last unmap(): r32f, the map's size, row 0 = image row 0.
  [[nodiscard]] const gl::Texture& texture() const { return texture_; }
  /// The error picture of the last evaluate() that gave figures.
  [[nodiscard]] const gl::Texture* error_texture() const override {
    return figures_ ? &figures_->error_map() : nullptr;
  }

 private:
  struct Registration;
  const WindowContext& context_;
  std::unique_ptr<Registration> registration_;
  gl::Buffer buffer_;
  gl::Texture texture_;
  int width_ = 0, height_ = 0;
  int device_ = 0;
  bool mapped_ = false;
  std::unique_ptr<GlFigures> figures_;  // made at the first scene with ground truth
};

}  // namespace stereo::view
