// GL context and object basics: the context probe, RAII objects, FBO completeness, shader
// errors with their info log, GL_CHECK, define injection and the registry entry.
// Every test needs an OpenGL 4.5 context and skips with the probe's reason without one.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gl/check.h"
#include "gl/context.h"
#include "gl/objects.h"
#include "gl/program.h"
#include "host/backends.h"
#include "host/error.h"
#include "host/matcher.h"
#include "test_gl_util.h"

namespace stereo::gl {
namespace {

TEST(GlContext, IsOpenGL45Core) {
  STEREO_REQUIRE_GL45();
  auto context = shared_context();
  EXPECT_FALSE(context->renderer().empty());
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  EXPECT_GE(major * 10 + minor, 45);
  EXPECT_EQ(context.get(), shared_context().get()) << "one process-wide context";
  std::cout << "GL context: " << context->renderer() << " | " << context->version() << " | " << context->platform()
            << "\n";
  RecordProperty("gl_renderer", context->renderer());
}

TEST(GlObjects, TextureRoundTripAndMoves) {
  STEREO_REQUIRE_GL45();
  const int w = 5, h = 3;  // odd sizes, rows not a multiple of 4 bytes
  std::vector<std::uint8_t> pixels(std::size_t(w * h * 3));
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = std::uint8_t(i * 7);
  Texture t = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, w, h, GL_NEAREST, "roundtrip");
  ASSERT_TRUE(t);
  t.upload(GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  std::vector<std::uint8_t> back(std::size_t(w * h * 3));
  t.download(GL_RGB, GL_UNSIGNED_BYTE, back.data(), back.size());
  EXPECT_EQ(back, pixels) << "row 0 uploads to texture row 0 and reads back there";

  const GLuint id = t.id();
  Texture moved(std::move(t));
  EXPECT_EQ(moved.id(), id);
  EXPECT_FALSE(t) << "a moved-from texture owns nothing";  // NOLINT(bugprone-use-after-move)
  Texture other = Texture::create(GL_TEXTURE_2D, GL_R32F, 2, 2, GL_NEAREST, "other");
  const GLuint other_id = other.id();
  other = std::move(moved);  // swaps: `moved` now owns (and will delete) the old one
  EXPECT_EQ(other.id(), id);
  EXPECT_EQ(moved.id(), other_id);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(other.width(), w);
}

TEST(GlObjects, FramebufferCompleteness) {
  STEREO_REQUIRE_GL45();
  Texture colour = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, 7, 5, GL_NEAREST, "colour");
  Texture depth = Texture::create(GL_TEXTURE_2D, GL_DEPTH_COMPONENT24, 7, 5, GL_NEAREST, "depth");
  Framebuffer fbo = Framebuffer::create("complete fbo");
  fbo.attach_colour(0, colour);
  fbo.attach_depth(depth);
  fbo.set_draw_buffers(1);
  EXPECT_NO_THROW(fbo.check_complete());

  Framebuffer empty = Framebuffer::create("empty fbo");
  try {
    empty.check_complete();
    FAIL() << "an FBO without attachments must not be complete";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("empty fbo"), std::string::npos) << e.what();
  }
}

TEST(GlObjects, ShaderCompileErrorCarriesLogAndFileName) {
  STEREO_REQUIRE_GL45();
  const std::string broken = "#version 450 core\nout vec4 o;\nvoid main() { o = undefined_symbol; }\n";
  try {
    Shader::compile(GL_FRAGMENT_SHADER, broken, "broken.frag");
    FAIL() << "compiling a broken shader must throw";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("broken.frag"), std::string::npos) << message;
    EXPECT_NE(message.find("undefined_symbol"), std::string::npos) << "info log expected: " << message;
  }
  // An embedded pass without its injected constants fails with its own file name.
  try {
    Shader::from_file(GL_FRAGMENT_SHADER, "salap_select.frag", {});
    FAIL() << "salap_select.frag needs its #defines";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("salap_select.frag"), std::string::npos) << e.what();
  }
}

TEST(GlObjects, GlCheckThrowsWithExpression) {
  STEREO_REQUIRE_GL45();
  try {
    GL_CHECK(glBindTexture(0x1234, 0));
    FAIL() << "GL_CHECK must throw on GL_INVALID_ENUM";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("glBindTexture(0x1234, 0)"), std::string::npos) << message;
    EXPECT_NE(message.find("GL_INVALID_ENUM"), std::string::npos) << message;
  }
  GL_CHECK(glFinish());  // the error flag was drained
}

TEST(GlProgram, DefinesGoRightAfterVersion) {
  const std::string out = inject_defines("#version 450 core\nvoid main() {}\n", {{"W", "16"}, {"TAU", "2.0e+01"}});
  EXPECT_EQ(out, "#version 450 core\n#define W 16\n#define TAU 2.0e+01\n#line 2\nvoid main() {}\n");
  EXPECT_EQ(shader_source("salap_tad.frag").substr(0, 17), "#version 450 core");
  EXPECT_THROW(shader_source("no_such.frag"), Error);
}

TEST(GlRegistry, SalapGlEntry) {
  Registry registry;
  register_salap_gl(registry);
  const BackendEntry& entry = registry.find("salap", "gl");
  EXPECT_FALSE(entry.summary.empty());
  const auto reason = entry.unavailable();
  if (reason) {
    EXPECT_EQ(reason->rfind("no OpenGL 4.5 context: ", 0), 0u) << *reason;
    GTEST_SKIP() << *reason;
  }
  auto matcher = entry.create({{"gl_format", "rgba16f"}});
  EXPECT_EQ(matcher->params().at("gl_format"), "rgba16f");
  EXPECT_EQ(matcher->params().at("window"), 33);
  EXPECT_FALSE(matcher->device().empty());
  EXPECT_THROW(entry.create({{"gl_format", "rgb565"}}), Error);
  EXPECT_THROW(entry.create({{"window", "31"}}), Error) << "W = 15 is odd";
}

}  // namespace
}  // namespace stereo::gl
