#include "gl/state.h"

#include <GL/glew.h>

#include <cstdlib>
#include <cstring>

#include "gl/check.h"
#include "core/error.h"

namespace stereo::gl {

bool contract_checks_enabled() {
#ifndef NDEBUG
  return true;
#else
  static const bool enabled = [] {
    const char* value = std::getenv("STEREO_GL_DEBUG");
    return value != nullptr && (std::strcmp(value, "1") == 0 || std::strcmp(value, "2") == 0);
  }();
  return enabled;
#endif
}

void check_state_at_rest(const std::string& where) {
  check_gl_error(where);  // an error from the pass itself is reported as that, not as state
  std::string broken;
  auto note = [&](const std::string& what) { broken += (broken.empty() ? "" : ", ") + what; };
  const struct {
    GLenum cap;
    const char* name;
  } off[] = {{GL_BLEND, "GL_BLEND"},
             {GL_DEPTH_TEST, "GL_DEPTH_TEST"},
             {GL_STENCIL_TEST, "GL_STENCIL_TEST"},
             {GL_SCISSOR_TEST, "GL_SCISSOR_TEST"},
             {GL_CULL_FACE, "GL_CULL_FACE"},
             {GL_RASTERIZER_DISCARD, "GL_RASTERIZER_DISCARD"},
             {GL_FRAMEBUFFER_SRGB, "GL_FRAMEBUFFER_SRGB"}};
  for (const auto& c : off)
    if (glIsEnabled(c.cap)) note(std::string(c.name) + " enabled");
  GLboolean colour[4] = {GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
  glGetBooleanv(GL_COLOR_WRITEMASK, colour);
  if (!(colour[0] && colour[1] && colour[2] && colour[3])) note("colour writes masked");
  GLboolean depth = GL_TRUE;
  glGetBooleanv(GL_DEPTH_WRITEMASK, &depth);
  if (!depth) note("depth writes off");
  GLint pack = 0, unpack = 0;
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack);
  glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpack);
  if (pack != 0) note("buffer " + std::to_string(pack) + " bound to GL_PIXEL_PACK_BUFFER");
  if (unpack != 0) note("buffer " + std::to_string(unpack) + " bound to GL_PIXEL_UNPACK_BUFFER");
  check_gl_error("reading the state after " + where);
  if (!broken.empty()) throw Error("gl: state contract (gl/STATE.md) broken after " + where + ": " + broken);
}

}  // namespace stereo::gl
