#include "gl/check.h"

#include <mutex>
#include <utility>
#include <vector>

#include "core/error.h"

namespace stereo::gl {
namespace {

// The debug callback runs synchronously on the GL thread (GL_DEBUG_OUTPUT_SYNCHRONOUS), but a
// mutex costs nothing here and keeps a stray asynchronous driver message safe.
std::mutex g_debug_mutex;
std::vector<std::string> g_debug_errors;
std::size_t g_debug_dropped = 0;
constexpr std::size_t MAX_DEBUG_ERRORS = 16;
// A lost context returns GL_CONTEXT_LOST from every glGetError call: stop after this many.
constexpr int MAX_ERROR_CODES = 32;

}  // namespace

const char* error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_CONTEXT_LOST: return "GL_CONTEXT_LOST";
    default: return "unknown GL error";
  }
}

namespace detail {

void record_debug_error(std::string_view message) noexcept {
  try {
    std::lock_guard<std::mutex> lock(g_debug_mutex);
    if (g_debug_errors.size() < MAX_DEBUG_ERRORS)
      g_debug_errors.emplace_back(message);
    else
      ++g_debug_dropped;
  } catch (...) {
    // Out of memory while recording: the glGetError code still reaches the next check.
  }
}

void clear_debug_errors() noexcept {
  std::lock_guard<std::mutex> lock(g_debug_mutex);
  g_debug_errors.clear();
  g_debug_dropped = 0;
}

}  // namespace detail

namespace {

// Every code still pending after `codes` (which holds what the caller already took), then the
// recorded debug messages; throws when there is anything.
void report(std::string_view where, std::vector<GLenum> codes) {
  if (codes.empty() || codes.back() != GL_CONTEXT_LOST) {
    for (GLenum e = glGetError(); e != GL_NO_ERROR && int(codes.size()) < MAX_ERROR_CODES; e = glGetError()) {
      codes.push_back(e);
      if (e == GL_CONTEXT_LOST) break;
    }
  }
  std::vector<std::string> messages;
  std::size_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(g_debug_mutex);
    messages.swap(g_debug_errors);
    dropped = std::exchange(g_debug_dropped, 0);
  }
  if (codes.empty() && messages.empty() && dropped == 0) return;

  std::string text = "gl: " + std::string(where) + " failed with ";
  bool out_of_memory = false;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    text += (i ? ", " : "") + std::string(error_name(codes[i]));
    out_of_memory |= codes[i] == GL_OUT_OF_MEMORY;
  }
  if (codes.empty()) text += "a KHR_debug error";
  if (out_of_memory) text += " (out of GPU memory)";
  for (const std::string& m : messages) text += " [driver: " + m + "]";
  if (dropped) text += " [and " + std::to_string(dropped) + " more driver messages]";
  throw Error(text);
}

}  // namespace

void check_gl_error(std::string_view where) { report(where, {}); }

void check_error(const char* expression, const char* file, int line) {
  // The common case stays cheap: one glGetError and an uncontended lock; the message is built
  // only on failure.
  const GLenum first = glGetError();
  if (first == GL_NO_ERROR) {
    std::lock_guard<std::mutex> lock(g_debug_mutex);
    if (g_debug_errors.empty() && g_debug_dropped == 0) return;
  }
  const std::string where = std::string(expression) + " at " + file + ":" + std::to_string(line);
  report(where, first == GL_NO_ERROR ? std::vector<GLenum>{} : std::vector<GLenum>{first});
}

}  // namespace stereo::gl
