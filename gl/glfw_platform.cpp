// The GLFW platform of gl::Context (gl/context_platform.h): a hidden 1x1 window, where a
// display exists (CI: xvfb-run).

#include <GL/glew.h>

#include "gl/context_platform.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "core/error.h"

namespace stereo::gl::detail {

std::unique_ptr<Context::Native> create_glfw(const ContextOptions& options) {
  if (options.device && *options.device != 0)
    throw Error("STEREO_DEVICE=" + std::to_string(*options.device) +
                ": a GLFW window cannot choose a GPU; use STEREO_GL_PLATFORM=egl-device");
  if (glfwInit() != GLFW_TRUE) {
    const char* description = nullptr;
    glfwGetError(&description);
    throw Error(std::string("glfwInit failed: ") + (description ? description : "no display"));
  }
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, options.debug > 0 ? GLFW_TRUE : GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(1, 1, "stereo", nullptr, nullptr);
  if (window == nullptr) {
    const char* description = nullptr;
    glfwGetError(&description);
    glfwTerminate();
    throw Error(std::string("glfwCreateWindow(4.5 core) failed: ") + (description ? description : "unknown"));
  }
  auto native = std::make_unique<Context::Native>();
  native->window = window;
  native->platform = "GLFW hidden window";
  glfwMakeContextCurrent(window);
  load_entry_points(false);
  return native;
}

}  // namespace stereo::gl::detail
