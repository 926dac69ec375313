// GL context and object basics: the context probe, RAII objects, FBO completeness, shader
// errors with their info log, GL_CHECK and define injection.
// Every test needs an OpenGL 4.5 context and skips with the probe's reason without one.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "gl/check.h"
#include "gl/context.h"
#include "gl/objects.h"
#include "gl/program.h"
#include "gl/pixel_transfer.h"
#include "gl/state.h"
#include "core/error.h"
#include "core/matcher.h"
#include "tests/test_gl_util.h"

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

// Every object type moves by swapping all of its state and never copies.
template <class T>
constexpr bool move_only = std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T> &&
                           !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T>;
static_assert(move_only<Texture> && move_only<Framebuffer> && move_only<VertexArray> && move_only<Buffer> &&
              move_only<Query> && move_only<Shader> && move_only<Program>);
static_assert(detail::calls_get_error("glGetError()") && !detail::calls_get_error("glFinish()"),
              "GL_CHECK refuses glGetError at compile time");

GLint texture_level_parameter(GLuint id, GLenum name) {
  GLint value = 0;
  GL_CHECK(glGetTextureLevelParameteriv(id, 0, name, &value));
  return value;
}

TEST(GlObjects, MoveAssignSwapsSizeAndFormatWithTheName) {
  STEREO_REQUIRE_GL45();
  Texture a = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, 7, 5, GL_NEAREST, "a 7x5 rgba8");
  Texture b = Texture::create(GL_TEXTURE_2D, GL_R32F, 3, 2, GL_NEAREST, "b 3x2 r32f");
  const GLuint a_id = a.id(), b_id = b.id();
  {
    Texture moved_from = std::move(b);
    EXPECT_FALSE(b) << "move construction leaves the source empty";  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(b.width(), 0);                                           // NOLINT(bugprone-use-after-move)
    moved_from = std::move(a);
    // `moved_from` now owns a's name and every property of it; `a` owns b's old texture.
    EXPECT_EQ(moved_from.id(), a_id);
    EXPECT_EQ(moved_from.width(), 7);
    EXPECT_EQ(moved_from.height(), 5);
    EXPECT_EQ(moved_from.internal_format(), GLenum(GL_RGBA8));
    EXPECT_EQ(moved_from.target(), GLenum(GL_TEXTURE_RECTANGLE));
    EXPECT_EQ(a.id(), b_id);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(a.width(), 3);
    EXPECT_EQ(a.height(), 2);
    EXPECT_EQ(a.internal_format(), GLenum(GL_R32F));
    EXPECT_EQ(a.target(), GLenum(GL_TEXTURE_2D));
    // The properties describe the GL object each now owns, as the driver sees it.
    for (const Texture* t : {&a, &moved_from}) {
      EXPECT_EQ(texture_level_parameter(t->id(), GL_TEXTURE_WIDTH), t->width());
      EXPECT_EQ(texture_level_parameter(t->id(), GL_TEXTURE_HEIGHT), t->height());
      EXPECT_EQ(GLenum(texture_level_parameter(t->id(), GL_TEXTURE_INTERNAL_FORMAT)), t->internal_format());
    }
  }
  // `moved_from` released the name it held at the end (a's), and only that one.
  EXPECT_FALSE(glIsTexture(a_id)) << "the moved-from object must delete the name it was given";
  EXPECT_TRUE(glIsTexture(b_id)) << "b's old texture lives on in `a`";
  EXPECT_EQ(a.id(), b_id);
  check_gl_error("texture move test");

  Buffer small = Buffer::create(16, nullptr, 0, "16 bytes");
  Buffer large = Buffer::create(4096, nullptr, 0, "4096 bytes");
  const GLuint small_id = small.id();
  large = std::move(small);
  EXPECT_EQ(large.id(), small_id);
  EXPECT_EQ(large.size(), 16u);
  EXPECT_EQ(small.size(), 4096u);  // NOLINT(bugprone-use-after-move)
  GLint64 real = 0;
  GL_CHECK(glGetNamedBufferParameteri64v(small.id(), GL_BUFFER_SIZE, &real));
  EXPECT_EQ(real, 4096);
}

TEST(GlObjects, ByteCountsPastGLsizeiAreRefusedBeforeGl) {
  EXPECT_EQ(checked_sizei(std::size_t(std::numeric_limits<GLsizei>::max()), "x"), std::numeric_limits<GLsizei>::max());
  EXPECT_EQ(readback_bytes(7, 5, 4), std::size_t(7 * 5 * 4 * 4));
  // 23171 x 23171 RGBA floats: 8.6 GB, far past GLsizei; refused by arithmetic alone.
  try {
    readback_bytes(23171, 23171, 4);
    FAIL() << "a read-back past GLsizei must be refused";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("23171x23171x4"), std::string::npos) << message;
    EXPECT_NE(message.find("GLsizei"), std::string::npos) << message;
  }
  STEREO_REQUIRE_GL45();
  // The texture path refuses before GL sees the size. 2^32 + 16 bytes would wrap to a
  // GLsizei of 16, exactly one RGBA32F texel, and the read-back would "succeed".
  Texture t = Texture::create(GL_TEXTURE_2D, GL_RGBA32F, 1, 1, GL_NEAREST, "one texel");
  float texel[4] = {};
  const std::size_t wraps_to_16 = (std::size_t(1) << 32) + sizeof texel;
  try {
    t.download(GL_RGBA, GL_FLOAT, texel, wraps_to_16);
    FAIL() << "a byte count past GLsizei must be refused, not wrapped";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("GLsizei"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_gl_error("after the refused read-back")) << "nothing reached GL";
}

TEST(GlCheck, ReportsThePendingErrorItself) {
  STEREO_REQUIRE_GL45();
  glBindTexture(0x1234, 0);  // deliberately unchecked: GL_INVALID_ENUM stays pending
  try {
    check_gl_error("the unchecked bind");
    FAIL() << "check_gl_error must report the pending GL_INVALID_ENUM";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("the unchecked bind"), std::string::npos) << message;
    EXPECT_NE(message.find("GL_INVALID_ENUM"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(check_gl_error("the next check")) << "each error is reported once";
}

TEST(GlProgram, UnknownUniformIsAnErrorNamingProgramAndUniform) {
  STEREO_REQUIRE_GL45();
  const std::string vs = "#version 450 core\nvoid main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n";
  const std::string fs =
      "#version 450 core\nuniform float u_gain;\nuniform float u_unused;\nout vec4 o;\n"
      "void main() { o = vec4(u_gain); }\n";
  const Shader v = Shader::compile(GL_VERTEX_SHADER, vs, "gain.vert");
  const Shader f = Shader::compile(GL_FRAGMENT_SHADER, fs, "gain.frag");
  Program program = Program::link({&v, &f}, "gain program");
  program.set("u_gain", 2.5f);
  float value = 0.0f;
  GL_CHECK(glGetUniformfv(program.id(), program.location("u_gain"), &value));
  EXPECT_EQ(value, 2.5f);
  for (const char* name : {"u_gian", "u_unused"}) {  // misspelt; declared but never read
    try {
      program.set(name, 1.0f);
      FAIL() << "setting '" << name << "' must throw";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("gain program"), std::string::npos) << message;
      EXPECT_NE(message.find(name), std::string::npos) << message;
    }
  }
  EXPECT_NO_THROW(program.set_optional("u_unused", 1.0f)) << "the explicit variant tolerates a dropped uniform";
  EXPECT_EQ(program.optional_location("u_unused"), -1);
}

TEST(GlState, ContractCheckNamesLeftoverState) {
  STEREO_REQUIRE_GL45();
  EXPECT_NO_THROW(check_state_at_rest("a clean context"));
  GL_CHECK(glEnable(GL_BLEND));
  try {
    check_state_at_rest("a pass that left blending on");
    FAIL() << "GL_BLEND left enabled breaks the contract";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("GL_BLEND enabled"), std::string::npos) << e.what();
  }
  GL_CHECK(glDisable(GL_BLEND));
  Buffer pbo = Buffer::create(64, nullptr, 0, "stray pbo");
  GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo.id()));
  EXPECT_THROW(check_state_at_rest("a transfer that left its PBO bound"), Error);
  GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
  EXPECT_NO_THROW(check_state_at_rest("restored"));
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
    Shader::from_file(GL_COMPUTE_SHADER, "fetch_ceiling.comp", {});
    FAIL() << "fetch_ceiling.comp needs its #defines";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fetch_ceiling.comp"), std::string::npos) << e.what();
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
  EXPECT_EQ(shader_source("fetch_ceiling.frag").substr(0, 17), "#version 450 core");
  EXPECT_THROW(shader_source("no_such.frag"), Error);
}

}  // namespace
}  // namespace stereo::gl

namespace stereo::gl {
namespace {

// PixelTransfer expands RGB to RGBA in bands on several threads from 2^18 pixels on, and
// double-buffers uploads and read-backs for sequences: a 701x409 RGB image (odd sizes, above
// the threshold) must come back texel for texel through either upload half, and the
// asynchronous read-back must equal the synchronous one.
TEST(GlPixelTransfer, BandedExpansionAndBothHalvesRoundTrip) {
  STEREO_REQUIRE_GL45();
  auto context = shared_context();
  context->make_current();
  constexpr int W = 701, H = 409;
  ImageU8 rgb(W, H, 3);
  for (std::size_t i = 0; i < rgb.data.size(); ++i) rgb.data[i] = static_cast<std::uint8_t>((i * 37u + i / 5u) & 0xFFu);
  Texture texture = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, W, H, GL_NEAREST, "transfer test");
  PixelTransfer transfer;
  for (int half = 0; half < 2; ++half) {
    transfer.upload(texture, rgb, 0, "test", half);
    transfer.fence_upload(half);
    const ImageF sync = transfer.download(texture, GL_RGBA, 4);
    transfer.start_download(texture, GL_RGBA, 4, half);
    const ImageF async = transfer.finish_download(half);
    ASSERT_EQ(sync.width, W);
    ASSERT_EQ(async.height, H);
    EXPECT_EQ(sync.data, async.data) << "half " << half;
    long wrong = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        // unorm8 -> float is c / 255 up to the driver's rounding: compare the byte it encodes.
        for (int c = 0; c < 3; ++c)
          wrong += std::lround(sync.at(x, y, c) * 255.0f) != rgb.at(x, y, c) ? 1 : 0;
        wrong += std::lround(sync.at(x, y, 3) * 255.0f) != 255 ? 1 : 0;
      }
    EXPECT_EQ(wrong, 0) << "half " << half << ": texels differ from the RGB image";
  }
  check_state_at_rest("GlPixelTransfer test");
}

}  // namespace
}  // namespace stereo::gl
