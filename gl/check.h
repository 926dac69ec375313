#pragma once
/// \file gl/check.h
/// GL_CHECK: runs a GL call, then turns any pending GL error into a stereo::Error that names
/// the expression, file:line and the error (GL_OUT_OF_MEMORY reads "out of GPU memory").

#include <GL/glew.h>

#include <string>

namespace stereo::gl {

/// Name of a glGetError() code ("GL_INVALID_OPERATION").
const char* error_name(GLenum error);

/// Drains glGetError(); throws stereo::Error naming `expression` and `file:line` when any
/// error was pending.
void check_error(const char* expression, const char* file, int line);

}  // namespace stereo::gl

#define GL_CHECK(expr)                                            \
  do {                                                            \
    expr;                                                         \
    ::stereo::gl::check_error(#expr, __FILE__, __LINE__);         \
  } while (false)
