#include "gl/pixel_transfer.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/error.h"
#include "gl/check.h"

namespace stereo::gl {

PixelTransfer::Mapped PixelTransfer::map_buffer(std::size_t bytes, GLbitfield access, const std::string& label) {
  const GLbitfield flags = access | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  Mapped m;
  m.buffer = Buffer::create(bytes, nullptr, flags | GL_CLIENT_STORAGE_BIT, label);
  m.data = static_cast<std::uint8_t*>(glMapNamedBufferRange(m.buffer.id(), 0, GLsizeiptr(bytes), flags));
  check_gl_error("glMapNamedBufferRange(" + label + ", " + std::to_string(bytes) + " bytes)");
  require(m.data != nullptr, "gl: cannot map the " + label + " (" + std::to_string(bytes) + " bytes)");
  return m;
}

PixelTransfer::~PixelTransfer() {
  // The context is current here (the matchers' destructors make it so); a fence outlives
  // nothing it guards, so deleting an unsignalled one is fine.
  for (GLsync f : up_fence_)
    if (f) glDeleteSync(f);
  for (GLsync f : down_fence_)
    if (f) glDeleteSync(f);
}

void PixelTransfer::wait(GLsync& fence, const char* what) {
  if (!fence) return;
  // Flush on the first try so the fence can signal at all; then wait without limit (the
  // timeout of one call is a slice, not a deadline).
  GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
  for (;;) {
    const GLenum status = glClientWaitSync(fence, flags, GLuint64(1000000000));
    if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) break;
    if (status == GL_WAIT_FAILED) {
      check_gl_error(std::string("glClientWaitSync(") + what + ")");
      throw Error(std::string("gl: waiting for the ") + what + " fence failed");
    }
    flags = 0;
  }
  glDeleteSync(fence);
  fence = nullptr;
}

void PixelTransfer::upload(Texture& texture, const ImageU8& image, int slot, const std::string& component, int half) {
  upload(texture, ImageView(image), slot, component, half);
}

void PixelTransfer::upload(Texture& texture, const ImageView& image, int slot, const std::string& component,
                           int half) {
  require(image.memory == Memory::host,
          component + ": the GL upload reads host memory; the image view is in CUDA device memory");
  require(image.channels == 1 || image.channels == 3 || image.channels == 4,
          component + ": images need 1, 3 or 4 channels, got " + std::to_string(image.channels));
  require(slot == 0 || slot == 1, "gl: upload slot must be 0 or 1");
  require(half == 0 || half == 1, "gl: upload half must be 0 or 1");
  const std::size_t texel_bytes = image.channels == 1 ? 1 : 4;
  const std::size_t pixels = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height);
  const std::size_t slot_bytes = pixels * 4;  // room for RGBA in either slot
  wait(up_fence_[half], "upload");  // this half's previous copies have read it
  if (!up_.buffer || up_.buffer.size() < 4 * slot_bytes) {
    wait(up_fence_[1 - half], "upload");  // the old buffer goes: nothing may still read it
    up_ = map_buffer(4 * slot_bytes, GL_MAP_WRITE_BIT, "upload PBO");
  }
  const std::size_t offset = (std::size_t(half) * 2 + std::size_t(slot)) * slot_bytes;
  std::uint8_t* const base = up_.data + offset;
  const std::uint8_t* const source = image.data;
  // One thread expands 1080p RGB at ~1-2 GB/s of output (~4-8 ms for 8 MB): the bulk of the
  // upload. Bands of pixels on a few threads bring it under the DMA's own time; every byte
  // is written by exactly one band, so the buffer is the same for any thread count.
  constexpr std::size_t PARALLEL_PIXELS = std::size_t(1) << 18;
  const auto expand_pixels = [](const std::uint8_t* src, std::uint8_t* dst, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i, src += 3, dst += 4) {
      dst[0] = src[0];
      dst[1] = src[1];
      dst[2] = src[2];
      dst[3] = 255;
    }
  };
  const auto expand = [&](std::size_t first, std::size_t last) {
    expand_pixels(source + first * 3, base + first * 4, last - first);
  };
  const bool as_rgb = image.channels == 3 && !host_expand_;
  const std::size_t plain_bytes = pixels * (as_rgb ? 3 : texel_bytes);
  if (!pool_ && pixels >= PARALLEL_PIXELS)
    pool_ = std::make_unique<ThreadPool>(std::min(8u, ThreadPool::hardware_threads()));
  if (!image.dense()) {
    // A view with a row pitch: the buffer gets the same dense rows, copied (or expanded) row
    // by row, in bands of rows on the pool when large.
    const std::size_t row_in = image.row_bytes(), row_out = std::size_t(image.width) * (as_rgb ? 3 : texel_bytes);
    const auto rows = [&](std::size_t first, std::size_t last) {
      for (std::size_t y = first; y < last; ++y) {
        const std::uint8_t* src = image.row(int(y));
        if (as_rgb || image.channels != 3) std::memcpy(base + y * row_out, src, row_in);
        else expand_pixels(src, base + y * row_out, std::size_t(image.width));
      }
    };
    const std::size_t height = std::size_t(image.height);
    if (pixels >= PARALLEL_PIXELS) {
      const std::size_t bands = std::size_t(pool_->size()) * 2;
      pool_->parallel_for(bands, [&](std::size_t b) { rows(height * b / bands, height * (b + 1) / bands); });
    } else {
      rows(0, height);
    }
  } else if ((as_rgb || image.channels != 3) && pixels >= PARALLEL_PIXELS) {
    // A plain copy, in bands too: one core's memcpy (~8-10 GB/s) would be longer than the DMA.
    const std::size_t bands = std::size_t(pool_->size()) * 2;
    pool_->parallel_for(bands, [&](std::size_t b) {
      const std::size_t first = plain_bytes * b / bands, last = plain_bytes * (b + 1) / bands;
      std::memcpy(base + first, source + first, last - first);
    });
  } else if (as_rgb || image.channels != 3) {
    std::memcpy(base, source, plain_bytes);
  } else if (pixels >= PARALLEL_PIXELS) {
    const std::size_t bands = std::size_t(pool_->size()) * 2;
    pool_->parallel_for(bands, [&](std::size_t b) { expand(pixels * b / bands, pixels * (b + 1) / bands); });
  } else {
    expand(0, pixels);
  }
  GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, up_.buffer.id()));
  GL_CHECK(glPixelStorei(GL_UNPACK_ALIGNMENT, 1));
  GL_CHECK(glTextureSubImage2D(texture.id(), 0, 0, 0, image.width, image.height,
                               image.channels == 1 ? GL_RED : as_rgb ? GL_RGB : GL_RGBA, GL_UNSIGNED_BYTE,
                               reinterpret_cast<const void*>(offset)));
  GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
}

void PixelTransfer::fence_upload(int half) {
  require(half == 0 || half == 1, "gl: upload half must be 0 or 1");
  if (up_fence_[half]) glDeleteSync(up_fence_[half]);
  up_fence_[half] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  check_gl_error("glFenceSync(upload)");
}

std::size_t readback_bytes(int width, int height, int channels) {
  const std::size_t bytes = std::size_t(width) * std::size_t(height) * std::size_t(channels) * sizeof(float);
  checked_sizei(bytes, "read-back of " + std::to_string(width) + "x" + std::to_string(height) + "x" +
                           std::to_string(channels) + " floats");
  return bytes;
}

ImageF PixelTransfer::download(const Texture& texture, GLenum format, int channels) {
  // Refused before the host image or the buffer is allocated.
  const std::size_t bytes = readback_bytes(texture.width(), texture.height(), channels);
  const GLsizei size = checked_sizei(bytes, "read-back");
  if (!down_[0].buffer || down_[0].buffer.size() < bytes) {
    wait(down_fence_[0], "read-back");  // the old buffer goes: no copy may still write it
    down_[0] = map_buffer(bytes, GL_MAP_READ_BIT, "read-back PBO 0");
  }
  GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, down_[0].buffer.id()));
  GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
  GL_CHECK(glGetTextureImage(texture.id(), 0, format, GL_FLOAT, size, nullptr));
  GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
  GL_CHECK(glFlush());
  // The host image is allocated (and zero-filled: 8 MB at 1080p) while the GPU copies.
  ImageF out(texture.width(), texture.height(), channels);
  GL_CHECK(glFinish());  // the copy into the coherent mapping is complete and visible
  copy_out(out.data.data(), down_[0].data, bytes);
  return out;
}

void PixelTransfer::start_download(const Texture& texture, GLenum format, int channels, int half) {
  require(half == 0 || half == 1, "gl: read-back half must be 0 or 1");
  const std::size_t bytes = readback_bytes(texture.width(), texture.height(), channels);
  const GLsizei size = checked_sizei(bytes, "read-back");
  wait(down_fence_[half], "read-back");  // (collected already in the sequence path)
  if (!down_[half].buffer || down_[half].buffer.size() < bytes)
    down_[half] = map_buffer(bytes, GL_MAP_READ_BIT, "read-back PBO " + std::to_string(half));
  GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, down_[half].buffer.id()));
  GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
  GL_CHECK(glGetTextureImage(texture.id(), 0, format, GL_FLOAT, size, nullptr));
  GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
  down_fence_[half] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  check_gl_error("glFenceSync(read-back)");
  pending_[half] = Pending{texture.width(), texture.height(), channels};
}

void PixelTransfer::wait_download(int half) {
  require(half == 0 || half == 1, "gl: read-back half must be 0 or 1");
  require(pending_[half].width > 0, "gl: no read-back started in half " + std::to_string(half));
  wait(down_fence_[half], "read-back");
}

ImageF PixelTransfer::finish_download(int half) {
  require(half == 0 || half == 1, "gl: read-back half must be 0 or 1");
  const Pending p = pending_[half];
  require(p.width > 0, "gl: no read-back started in half " + std::to_string(half));
  // A coherent persistent mapping: once the fence has signalled, the copy is visible here.
  wait(down_fence_[half], "read-back");
  pending_[half] = Pending{};
  ImageF out(p.width, p.height, p.channels);
  copy_out(out.data.data(), down_[half].data, out.data.size() * sizeof(float));
  return out;
}

void PixelTransfer::copy_out(void* dst, const void* src, std::size_t bytes) {
  // Bands on the pool above 1 MiB: one core reads a mapped buffer at a few GB/s, which at
  // 1080p (8 MB of floats) was most of the read-back.
  constexpr std::size_t PARALLEL_BYTES = std::size_t(1) << 20;
  if (bytes < PARALLEL_BYTES) {
    std::memcpy(dst, src, bytes);
    return;
  }
  if (!pool_) pool_ = std::make_unique<ThreadPool>(std::min(8u, ThreadPool::hardware_threads()));
  const std::size_t bands = std::size_t(pool_->size()) * 2;
  pool_->parallel_for(bands, [&](std::size_t b) {
    const std::size_t first = bytes * b / bands, last = bytes * (b + 1) / bands;
    std::memcpy(static_cast<unsigned char*>(dst) + first, static_cast<const unsigned char*>(src) + first,
                last - first);
  });
}

}  // namespace stereo::gl
