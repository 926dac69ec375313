#pragma once
/// \file gl/check.h
/// GL error checks. GL_CHECK runs a GL call, then reports every pending GL error as one
/// stereo::Error naming the expression, file:line and each error code (GL_OUT_OF_MEMORY reads
/// "out of GPU memory"), together with what the KHR_debug callback recorded since the last
/// check when debug output is on (gl/context.h: debug builds or STEREO_GL_DEBUG=1).
///
/// glGetError() clears the flag it returns, so it must never be the expression of GL_CHECK:
/// `GL_CHECK(glGetError())` would swallow the error and then find none. A static_assert in the
/// macro refuses it; call check_gl_error("what just ran") instead.

#include <GL/glew.h>

#include <string>
#include <string_view>

namespace stereo::gl {

/// Name of a glGetError() code ("GL_INVALID_OPERATION").
const char* error_name(GLenum error);

/// Drains glGetError() (every pending code, each reported once) and the debug messages of
/// type GL_DEBUG_TYPE_ERROR recorded since the last check; throws stereo::Error
/// "gl: <where> failed with GL_INVALID_ENUM [driver: ...]" when there was any.
void check_gl_error(std::string_view where);

/// check_gl_error("<expression> at <file>:<line>"), for GL_CHECK.
void check_error(const char* expression, const char* file, int line);

namespace detail {
/// True when a GL_CHECK expression calls glGetError itself (refused at compile time).
constexpr bool calls_get_error(std::string_view expression) {
  return expression.find("glGetError") != std::string_view::npos;
}
/// Keeps a KHR_debug error message for the next check. Called from the debug callback, so it
/// never throws (a C callback must not unwind into the driver); keeps at most 16 messages.
void record_debug_error(std::string_view message) noexcept;
/// Forgets recorded messages (after context set-up, whose probing may raise errors).
void clear_debug_errors() noexcept;
}  // namespace detail

}  // namespace stereo::gl

#define GL_CHECK(expr)                                                                    \
  do {                                                                                    \
    static_assert(!::stereo::gl::detail::calls_get_error(#expr),                          \
                  "GL_CHECK(glGetError()) consumes the error it reports: use check_gl_error"); \
    expr;                                                                                 \
    ::stereo::gl::check_error(#expr, __FILE__, __LINE__);                                 \
  } while (false)
