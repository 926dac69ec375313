#include "gl/check.h"

#include "host/error.h"

namespace stereo::gl {

const char* error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    default: return "unknown GL error";
  }
}

void check_error(const char* expression, const char* file, int line) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return;
  // Drain the remaining flags so the next check starts clean.
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  std::string message = std::string("gl: ") + expression + " failed with " + error_name(first);
  if (first == GL_OUT_OF_MEMORY) message += " (out of GPU memory)";
  throw Error(message + " at " + file + ":" + std::to_string(line));
}

}  // namespace stereo::gl
