#include "gl/objects.h"

#include <algorithm>
#include <limits>

#include "gl/check.h"
#include "core/error.h"

namespace stereo::gl {
namespace detail {
void delete_texture(GLuint id) { glDeleteTextures(1, &id); }
void delete_framebuffer(GLuint id) { glDeleteFramebuffers(1, &id); }
void delete_vertex_array(GLuint id) { glDeleteVertexArrays(1, &id); }
void delete_buffer(GLuint id) { glDeleteBuffers(1, &id); }
void delete_query(GLuint id) { glDeleteQueries(1, &id); }
}  // namespace detail

GLsizei checked_sizei(std::size_t bytes, const std::string& what) {
  constexpr auto limit = std::size_t(std::numeric_limits<GLsizei>::max());
  if (bytes > limit)
    throw Error("gl: " + what + ": " + std::to_string(bytes) + " bytes exceed GL's GLsizei limit of " +
                std::to_string(limit) + " bytes");
  return GLsizei(bytes);
}

void label_object(GLenum identifier, GLuint id, const std::string& label) {
  GLint max_length = 0;
  GL_CHECK(glGetIntegerv(GL_MAX_LABEL_LENGTH, &max_length));
  const std::size_t length = std::min(label.size(), std::size_t(std::max(max_length - 1, 0)));
  GL_CHECK(glObjectLabel(identifier, id, GLsizei(length), label.data()));
}

Texture Texture::create(GLenum target, GLenum internal_format, int width, int height, GLenum filter,
                        const std::string& label) {
  require(width > 0 && height > 0, "gl: texture '" + label + "' needs a positive size, got " +
                                        std::to_string(width) + "x" + std::to_string(height));
  // An image wider or taller than the implementation's largest texture would fail inside
  // glTextureStorage2D with a bare GL_INVALID_VALUE; say which size and which limit instead.
  GLint max_size = 0;
  GL_CHECK(glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size));
  require(width <= max_size && height <= max_size,
          "gl: texture '" + label + "' would be " + std::to_string(width) + "x" + std::to_string(height) +
              ", above this OpenGL's largest texture size " + std::to_string(max_size) + " (GL_MAX_TEXTURE_SIZE)");
  GLuint id = 0;
  GL_CHECK(glCreateTextures(target, 1, &id));
  Texture t(id);
  t.target_ = target;
  t.format_ = internal_format;
  t.width_ = width;
  t.height_ = height;
  label_object(GL_TEXTURE, id, label);
  try {
    GL_CHECK(glTextureStorage2D(id, 1, internal_format, width, height));
  } catch (const Error& e) {  // GL_OUT_OF_MEMORY above all: name the size that did not fit
    throw Error("gl: texture '" + label + "' of " + std::to_string(width) + "x" + std::to_string(height) +
                " could not be allocated: " + e.what());
  }
  GL_CHECK(glTextureParameteri(id, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE));
  GL_CHECK(glTextureParameteri(id, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE));
  t.set_filter(filter);
  return t;
}

void Texture::set_filter(GLenum filter) {
  GL_CHECK(glTextureParameteri(id(), GL_TEXTURE_MIN_FILTER, GLint(filter)));
  GL_CHECK(glTextureParameteri(id(), GL_TEXTURE_MAG_FILTER, GLint(filter)));
}

void Texture::upload(GLenum format, GLenum type, const void* pixels) {
  GL_CHECK(glPixelStorei(GL_UNPACK_ALIGNMENT, 1));
  GL_CHECK(glTextureSubImage2D(id(), 0, 0, 0, width_, height_, format, type, pixels));
}

void Texture::download(GLenum format, GLenum type, void* out, std::size_t bytes) const {
  const GLsizei size = checked_sizei(bytes, "read-back of a " + std::to_string(width_) + "x" +
                                                 std::to_string(height_) + " texture");
  GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
  GL_CHECK(glGetTextureImage(id(), 0, format, type, size, out));
}

void Texture::bind(GLuint unit) const { GL_CHECK(glBindTextureUnit(unit, id())); }

Framebuffer Framebuffer::create(const std::string& label) {
  GLuint id = 0;
  GL_CHECK(glCreateFramebuffers(1, &id));
  Framebuffer f(id);
  f.label_ = label;
  label_object(GL_FRAMEBUFFER, id, label);
  return f;
}

void Framebuffer::attach_colour(int index, const Texture& texture) {
  GL_CHECK(glNamedFramebufferTexture(id(), GLenum(GL_COLOR_ATTACHMENT0 + index), texture.id(), 0));
}

void Framebuffer::attach_depth(const Texture& texture) {
  GL_CHECK(glNamedFramebufferTexture(id(), GL_DEPTH_ATTACHMENT, texture.id(), 0));
}

void Framebuffer::set_draw_buffers(int count) {
  GLenum buffers[8];
  require(count >= 1 && count <= 8, "gl: framebuffer '" + label_ + "': 1..8 draw buffers, got " + std::to_string(count));
  for (int i = 0; i < count; ++i) buffers[i] = GLenum(GL_COLOR_ATTACHMENT0 + i);
  GL_CHECK(glNamedFramebufferDrawBuffers(id(), count, buffers));
}

void Framebuffer::check_complete() const {
  const GLenum status = glCheckNamedFramebufferStatus(id(), GL_FRAMEBUFFER);
  if (status == GL_FRAMEBUFFER_COMPLETE) return;
  const char* name = "unknown status";
  switch (status) {
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: name = "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT"; break;
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: name = "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT"; break;
    case GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER: name = "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER"; break;
    case GL_FRAMEBUFFER_UNSUPPORTED: name = "GL_FRAMEBUFFER_UNSUPPORTED"; break;
    case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE: name = "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE"; break;
    case 0: name = "glCheckNamedFramebufferStatus failed"; break;
    default: break;
  }
  throw Error("gl: framebuffer '" + label_ + "' is not complete: " + name);
}

VertexArray VertexArray::create(const std::string& label) {
  GLuint id = 0;
  GL_CHECK(glCreateVertexArrays(1, &id));
  VertexArray v(id);
  label_object(GL_VERTEX_ARRAY, id, label);
  return v;
}

Buffer Buffer::create(std::size_t bytes, const void* data, GLbitfield flags, const std::string& label) {
  GLuint id = 0;
  GL_CHECK(glCreateBuffers(1, &id));
  Buffer b(id);
  b.size_ = bytes;
  label_object(GL_BUFFER, id, label);
  GL_CHECK(glNamedBufferStorage(id, GLsizeiptr(bytes), data, flags));
  return b;
}

Query Query::create(GLenum target, const std::string& label) {
  GLuint id = 0;
  GL_CHECK(glCreateQueries(target, 1, &id));
  Query q(id);
  q.target_ = target;
  label_object(GL_QUERY, id, label);
  return q;
}

void Query::begin() const { GL_CHECK(glBeginQuery(target_, id())); }
void Query::end() const { GL_CHECK(glEndQuery(target_)); }

GLuint64 Query::result() const {
  GLuint64 value = 0;
  GL_CHECK(glGetQueryObjectui64v(id(), GL_QUERY_RESULT, &value));
  return value;
}

}  // namespace stereo::gl
