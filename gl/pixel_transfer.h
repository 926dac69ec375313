#pragma once
/// \file gl/pixel_transfer.h
/// Host <-> texture copies of the GL matchers (gl/matcher_shell.h) through persistently mapped
/// pixel buffer objects, single or double-buffered for sequences, and the upload's one knob.

#include <GL/glew.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/image.h"
#include "core/image_view.h"
#include "core/thread_pool.h"
#include "gl/objects.h"

namespace stereo::gl {

/// The knob of the upload every GL matcher shares, bound beside its backend's Options
/// (`--set gl_upload=rgba`).
struct UploadOptions {
  // How RGB reaches the texture: a choice, not the paper's. Measured on the H100 at 1920x1080
  // (two images): rgb (the driver expands while unpacking from the PBO) 0.89-0.93 ms, rgba
  // (expanded by host threads first) 2.17-2.39 ms; the maps are identical (tests).
  std::string upload = "rgb";

  template <class B>
  void describe(B& b) {
    b.choice("gl_upload", upload, {"rgba", "rgb"},
             "RGB images into the upload buffer: rgba = expanded to RGBA by the host; rgb = as given, the "
             "driver expands them while unpacking from the buffer (a quarter fewer bytes over the link)");
  }
};

/// Host <-> texture copies through pixel buffer objects in client memory, persistently
/// mapped: the driver DMAs straight from/to them instead of staging pageable memory itself
/// (measured on an H100, driver 580: plain glTextureSubImage2D of two 1920x1080 RGB images
/// took 9-13 ms). RGB rows are expanded to RGBA while being written into the buffer, since
/// drivers convert 3-byte texels on the CPU. Callers order shader writes before download()
/// with the barriers their passes need; upload() expects the previous run to have finished
/// (each run ends in a read-back that waits for it).
class PixelTransfer {
 public:
  PixelTransfer() = default;
  PixelTransfer(const PixelTransfer&) = delete;
  PixelTransfer& operator=(const PixelTransfer&) = delete;
  ~PixelTransfer();

  /// Image `slot` (0 or 1: the two views) into `texture` (RGBA8, same size), through half
  /// `half` (0 or 1) of the upload buffer. A half is written only after the copies issued
  /// from it last time are complete (its fence), so a sequence can fill one half while the
  /// GPU still reads the other.
  void upload(Texture& texture, const ImageU8& image, int slot, const std::string& component, int half = 0);
  /// The same from a host view of any row pitch: the buffer receives the same dense rows (a
  /// view with a pitch is copied row by row, no extra copy), so the texture is identical.
  void upload(Texture& texture, const ImageView& image, int slot, const std::string& component, int half = 0);
  /// RGB images: expanded to RGBA by the host while written into the buffer (true, the
  /// default), or written as they are, the driver expanding them while it unpacks from the
  /// buffer (false: 3 bytes per pixel over the link instead of 4, the host copy a plain
  /// memcpy; whether the driver expands on the GPU or the CPU decides which is faster).
  void expand_rgb_on_host(bool on) { host_expand_ = on; }
  /// Fences the copies just issued from upload half `half` (the sequence path calls it after
  /// both views; single runs need not, their read-back waits for everything).
  void fence_upload(int half);
  /// The whole texture as `channels` floats per pixel (GL_RED: 1, GL_GREEN: 1, GL_RGBA: 4).
  ImageF download(const Texture& texture, GLenum format, int channels);
  /// The asynchronous read-back of the sequence path: the copy of `texture` into read-back
  /// half `half`, fenced; finish_download(half) waits for that fence alone (not glFinish),
  /// so the GPU can already run the next frame's passes.
  void start_download(const Texture& texture, GLenum format, int channels, int half);
  ImageF finish_download(int half);
  /// Waits for half `half`'s read-back fence alone (finish_download then only copies), so a
  /// caller can tell the GPU's work from the host's copy.
  void wait_download(int half);

 private:
  struct Mapped {
    Buffer buffer;
    std::uint8_t* data = nullptr;
  };
  struct Pending {
    int width = 0, height = 0, channels = 0;
  };
  static Mapped map_buffer(std::size_t bytes, GLbitfield access, const std::string& label);
  static void wait(GLsync& fence, const char* what);
  /// memcpy out of a read-back buffer, in bands on pool_ when large.
  void copy_out(void* dst, const void* src, std::size_t bytes);
  /// Host threads for the RGB -> RGBA expansion and the large copies (created on first use).
  std::unique_ptr<ThreadPool> pool_;
  Mapped up_;
  Mapped down_[2];
  GLsync up_fence_[2] = {nullptr, nullptr};
  GLsync down_fence_[2] = {nullptr, nullptr};
  Pending pending_[2];
  bool host_expand_ = true;
};

/// Bytes of a read-back of width x height pixels of `channels` floats; throws stereo::Error
/// when that is past the GLsizei size glGetTextureImage takes, before anything is allocated.
std::size_t readback_bytes(int width, int height, int channels);

}  // namespace stereo::gl
