#pragma once
/// \file gl/objects.h
/// Move-only RAII owners of GL objects, created with DSA (glCreate*) and named with
/// glObjectLabel so debuggers and driver messages show what they are. Move construction leaves
/// the source empty; move-assignment swaps everything, so the old object (its name with its own
/// size, format and label) dies with the moved-from value. No copies.
/// All calls need the shared context (gl/context.h) current on the calling thread.

#include <GL/glew.h>

#include <cstddef>
#include <string>
#include <utility>

namespace stereo::gl {

/// Owns one GL name; `Delete` releases it. The base of every object type below.
///
/// Handle itself cannot be moved: each derived type moves by swapping *all* of its state
/// (name, size, format, label...) in its own swap(), so a moved-from object always describes
/// the GL name it now owns and releases. A derived type that forgot would not compile, since
/// its defaulted move operations would be deleted along with these.
template <void (*Delete)(GLuint)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(GLuint id) : id_(id) {}
  ~Handle() {
    if (id_ != 0) Delete(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&&) = delete;
  Handle& operator=(Handle&&) = delete;
  [[nodiscard]] GLuint id() const { return id_; }
  explicit operator bool() const { return id_ != 0; }

 protected:
  void swap_name(Handle& other) noexcept { std::swap(id_, other.id_); }

 private:
  GLuint id_ = 0;
};

/// `bytes` as the GLsizei buffer size GL's read-back calls take (glGetTextureImage...);
/// throws stereo::Error naming `what` when it exceeds 2^31 - 1, before anything reaches GL
/// (a plain cast would wrap to a negative or short size).
GLsizei checked_sizei(std::size_t bytes, const std::string& what);

/// glObjectLabel, the label cut to GL_MAX_LABEL_LENGTH (a longer one is a GL error, and a
/// label is only for reading).
void label_object(GLenum identifier, GLuint id, const std::string& label);

namespace detail {
void delete_texture(GLuint id);
void delete_framebuffer(GLuint id);
void delete_vertex_array(GLuint id);
void delete_buffer(GLuint id);
void delete_query(GLuint id);
}  // namespace detail

/// An immutable-storage texture with one level (glTextureStorage2D).
class Texture : public Handle<detail::delete_texture> {
 public:
  Texture() = default;
  Texture(Texture&& other) noexcept { swap(other); }
  Texture& operator=(Texture&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(Texture& other) noexcept {
    swap_name(other);
    std::swap(target_, other.target_);
    std::swap(format_, other.format_);
    std::swap(width_, other.width_);
    std::swap(height_, other.height_);
  }
  /// `target` GL_TEXTURE_2D or GL_TEXTURE_RECTANGLE (texel-unit coordinates, no mipmaps).
  /// Sampler state: `filter` for min and mag, CLAMP_TO_EDGE on both axes.
  static Texture create(GLenum target, GLenum internal_format, int width, int height, GLenum filter,
                        const std::string& label);

  void set_filter(GLenum filter);
  /// Replaces the whole image from tightly packed host rows (row 0 = texture row 0).
  void upload(GLenum format, GLenum type, const void* pixels);
  /// Reads the whole image back into `out` (`bytes` long); row 0 = texture row 0. Refuses a
  /// `bytes` past GLsizei (checked_sizei) before calling GL.
  void download(GLenum format, GLenum type, void* out, std::size_t bytes) const;
  /// Binds to texture unit `unit` (glBindTextureUnit).
  void bind(GLuint unit) const;

  [[nodiscard]] GLenum target() const { return target_; }
  [[nodiscard]] GLenum internal_format() const { return format_; }
  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int height() const { return height_; }

 private:
  using Handle::Handle;
  GLenum target_ = 0, format_ = 0;
  int width_ = 0, height_ = 0;
};

/// A framebuffer object for render-to-texture.
class Framebuffer : public Handle<detail::delete_framebuffer> {
 public:
  Framebuffer() = default;
  Framebuffer(Framebuffer&& other) noexcept { swap(other); }
  Framebuffer& operator=(Framebuffer&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(Framebuffer& other) noexcept {
    swap_name(other);
    label_.swap(other.label_);
  }
  static Framebuffer create(const std::string& label);
  /// Attaches `texture` level 0 as GL_COLOR_ATTACHMENT0 + index.
  void attach_colour(int index, const Texture& texture);
  void attach_depth(const Texture& texture);
  /// Fragment outputs 0..count-1 write colour attachments 0..count-1.
  void set_draw_buffers(int count);
  /// Throws stereo::Error naming the framebuffer and the status unless it is complete.
  void check_complete() const;
  [[nodiscard]] const std::string& label() const { return label_; }

 private:
  using Handle::Handle;
  std::string label_;
};

/// An empty vertex array: full-screen passes take their vertices from gl_VertexID.
class VertexArray : public Handle<detail::delete_vertex_array> {
 public:
  VertexArray() = default;
  VertexArray(VertexArray&& other) noexcept { swap(other); }
  VertexArray& operator=(VertexArray&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(VertexArray& other) noexcept {
    swap_name(other);
  }
  static VertexArray create(const std::string& label);

 private:
  using Handle::Handle;
};

/// A buffer with immutable storage (glNamedBufferStorage).
class Buffer : public Handle<detail::delete_buffer> {
 public:
  Buffer() = default;
  Buffer(Buffer&& other) noexcept { swap(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(Buffer& other) noexcept {
    swap_name(other);
    std::swap(size_, other.size_);
  }
  static Buffer create(std::size_t bytes, const void* data, GLbitfield flags, const std::string& label);
  [[nodiscard]] std::size_t size() const { return size_; }

 private:
  using Handle::Handle;
  std::size_t size_ = 0;
};

/// A query object (GL_TIME_ELAPSED, GL_SAMPLES_PASSED, ...).
class Query : public Handle<detail::delete_query> {
 public:
  Query() = default;
  Query(Query&& other) noexcept { swap(other); }
  Query& operator=(Query&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(Query& other) noexcept {
    swap_name(other);
    std::swap(target_, other.target_);
  }
  static Query create(GLenum target, const std::string& label);
  [[nodiscard]] GLenum target() const { return target_; }
  void begin() const;
  void end() const;
  /// The result, waiting for it (GL_QUERY_RESULT).
  [[nodiscard]] GLuint64 result() const;

 private:
  using Handle::Handle;
  GLenum target_ = 0;
};

}  // namespace stereo::gl
