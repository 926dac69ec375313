#include "methods/salap/gl/salap_gl.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "gl/check.h"
#include "gl/context.h"
#include "gl/objects.h"
#include "gl/program.h"
#include "methods/salap/gl/salap_passes.h"
#include "methods/salap/register.h"
#include "core/validate.h"
#include "core/registry.h"

namespace stereo::gl {
namespace {

constexpr const char* COMPONENT = "salap/gl";
// Lu et al. Sec. 3: the rasteriser's eight texture-coordinate interpolators.
constexpr int MAX_TAP_VARYINGS = 8;

Defines tap_defines(const TapLayout& t, const char* axis, bool store_unorm8) {
  const int side = int(t.offsets.size());
  return {{"AXIS", axis},
          {"STORE_UNORM8", store_unorm8 ? "1" : "0"},
          {"SIDE_TAPS", std::to_string(side)},
          {"TAP_VARYINGS", std::to_string(std::min(side, MAX_TAP_VARYINGS))},
          {"TAP_OFFSETS", glsl_float_array(t.offsets)},
          {"TAP_WEIGHTS", glsl_float_array(t.weights)},
          {"CENTRE_WEIGHT", glsl_float(t.centre_weight)}};
}

}  // namespace

struct SalapGlMatcher::Impl {
  SalapParams params;
  SalapGlOptions options;
  std::shared_ptr<Context> context;
  TapLayout taps;

  std::map<int, FullscreenPass> tad;  // by COST_MODE (0 rgb_mean, 1 luma, 2 grey)
  FullscreenPass horizontal, vertical, select;
  FullscreenPass ceiling;

  // Targets, allocated once per size and reused across groups and calls.
  int width = 0, height = 0;
  int d_min = 0;  // the range's smallest disparity: the passes work on level indices from 0
  Texture left, right, cost, c_left, c_right, c[4], disparity, depth;
  Framebuffer tad_fbo, horizontal_fbo, vertical_fbo, select_fbo;

  Impl(const SalapParams& p, const SalapGlOptions& o) : params(p), options(o), context(shared_context()) {
    transfer.expand_rgb_on_host(options.upload == "rgba");
    taps = tap_layout(params, options.taps == "bilinear");
    horizontal = FullscreenPass("salap horizontal",
                                Program::from_files("salap_taps.vert", "salap_horizontal.frag",
                                                    tap_defines(taps, "vec2(1.0, 0.0)", options.format == "rgba8"), "salap horizontal"));
    vertical = FullscreenPass("salap vertical",
                              Program::from_files("salap_taps.vert", "salap_vertical.frag",
                                                  tap_defines(taps, "vec2(0.0, 1.0)", options.format == "rgba8"), "salap vertical"));
    const double reach = 1.0 + std::max(params.alpha, params.beta);
    const Defines select_defines = {{"NINE_WINDOWS", params.windows == "9" ? "1" : "0"},
                                    {"ALPHA", glsl_float(params.alpha)},
                                    {"BETA", glsl_float(params.beta)},
                                    {"DEPTH_SCALE", glsl_float(1.0 / reach)},
                                    {"DEPTH_MAX", glsl_float(1.0 - 1.0 / double(1 << 20))}};
    select = FullscreenPass("salap select",
                            Program::from_files("fullscreen.vert", "salap_select.frag", select_defines, "salap select"));
  }

  FullscreenPass& tad_pass(int channels) {
    const int mode = channels == 1 ? 2 : (params.cost == "luma" ? 1 : 0);
    auto it = tad.find(mode);
    if (it == tad.end()) {
      const Defines defines = {{"COST_MODE", std::to_string(mode)},
                               {"TAU", glsl_float(params.tau)},
                               {"STORE_UNORM8", options.format == "rgba8" ? "1" : "0"}};
      it = tad.emplace(mode, FullscreenPass("salap tad", Program::from_files("salap_tad.vert", "salap_tad.frag",
                                                                                  defines, "salap tad")))
               .first;
    }
    return it->second;
  }

  void allocate(int w, int h) {
    if (w == width && h == height) return;
    width = height = 0;  // stays unallocated if anything below throws
    const GLenum rect = GL_TEXTURE_RECTANGLE;
    const GLenum fmt = intermediate_format(options.format);
    const GLenum filter = options.taps == "bilinear" ? GL_LINEAR : GL_NEAREST;
    left = Texture::create(rect, GL_RGBA8, w, h, GL_NEAREST, "salap left");
    right = Texture::create(rect, GL_RGBA8, w, h, GL_NEAREST, "salap right");
    cost = Texture::create(rect, fmt, w, h, filter, "salap tad");
    c_left = Texture::create(rect, fmt, w, h, filter, "salap C_L");
    c_right = Texture::create(rect, fmt, w, h, filter, "salap C_R");
    for (int i = 0; i < 4; ++i) c[i] = Texture::create(rect, fmt, w, h, GL_NEAREST, "salap C" + std::to_string(i));
    disparity = Texture::create(GL_TEXTURE_2D, GL_R32F, w, h, GL_NEAREST, "salap disparity");
    depth = Texture::create(GL_TEXTURE_2D, options.depth == "depth32f" ? GL_DEPTH_COMPONENT32F : GL_DEPTH_COMPONENT24,
                            w, h, GL_NEAREST, "salap depth");
    tad_fbo = Framebuffer::create("salap tad fbo");
    tad_fbo.attach_colour(0, cost);
    tad_fbo.set_draw_buffers(1);
    horizontal_fbo = Framebuffer::create("salap horizontal fbo");
    horizontal_fbo.attach_colour(0, c_left);
    horizontal_fbo.attach_colour(1, c_right);
    horizontal_fbo.set_draw_buffers(2);
    vertical_fbo = Framebuffer::create("salap vertical fbo");
    for (int i = 0; i < 4; ++i) vertical_fbo.attach_colour(i, c[i]);
    vertical_fbo.set_draw_buffers(4);
    select_fbo = Framebuffer::create("salap select fbo");
    select_fbo.attach_colour(0, disparity);
    select_fbo.attach_depth(depth);
    select_fbo.set_draw_buffers(1);
    width = w;
    height = h;
  }

  void upload(const ImageU8& l, const ImageU8& r) {
    transfer.upload(left, l, 0, COMPONENT);
    transfer.upload(right, r, 1, COMPONENT);
  }
  void upload(const ImageU8& l, const ImageU8& r, int half) {
    transfer.upload(left, l, 0, COMPONENT, half);
    transfer.upload(right, r, 1, COMPONENT, half);
    transfer.fence_upload(half);
  }
  PixelTransfer transfer;

  void clear_selection() {
    const GLfloat one = 1.0f, zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    GL_CHECK(glDepthMask(GL_TRUE));
    GL_CHECK(glClearNamedFramebufferfv(select_fbo.id(), GL_DEPTH, 0, &one));
    GL_CHECK(glClearNamedFramebufferfv(select_fbo.id(), GL_COLOR, 0, zero));
  }

  // The four passes of the group d0..d0+3.
  void run_group(int d0, int levels, int channels, PassTimer* timer) {
    const glm::vec2 size{float(width), float(height)};
    auto timed = [&](const char* kind, auto&& body) {
      if (timer) timer->begin(kind);
      body();
      if (timer) timer->end();
    };
    GL_CHECK(glDisable(GL_DEPTH_TEST));
    GL_CHECK(glDisable(GL_BLEND));
    timed("tad", [&] {
      tad_pass(channels).texture("u_left", 0, left).texture("u_right", 1, right).set("u_size", size).set("u_d0", d0)
          .set("u_dmin", d_min).draw(tad_fbo, width, height);
    });
    timed("horizontal", [&] {
      horizontal.texture("u_cost", 0, cost).set("u_size", size).draw(horizontal_fbo, width, height);
    });
    timed("vertical", [&] {
      vertical.texture("u_left", 0, c_left).texture("u_right", 1, c_right).set("u_size", size)
          .draw(vertical_fbo, width, height);
    });
    timed("select", [&] {
      GL_CHECK(glEnable(GL_DEPTH_TEST));
      GL_CHECK(glDepthFunc(GL_LESS));
      GL_CHECK(glDepthMask(GL_TRUE));
      select.texture("u_c0", 0, c[0]).texture("u_c1", 1, c[1]).texture("u_c2", 2, c[2]).texture("u_c3", 3, c[3])
          .set("u_d0", d0).set("u_levels", levels).draw(select_fbo, width, height);
      GL_CHECK(glDisable(GL_DEPTH_TEST));
    });
  }

  ImageF read_rgba(const Texture& t) { return transfer.download(t, GL_RGBA, 4); }
  ImageF read_disparity() { return with_min_disparity(transfer.download(disparity, GL_RED, 1), d_min); }
  // Level indices; stream_salap adds d_min.
  void start_read_disparity(int half) { transfer.start_download(disparity, GL_RED, 1, half); }
  ImageF finish_read_disparity(int half) { return transfer.finish_download(half); }

  int fetches_per_fragment() const { return fetches_per_pixel(taps); }
};

SalapGlMatcher::SalapGlMatcher(const Overrides& overrides) {
  SalapParams params;
  SalapGlOptions options;
  json_ = bind_params(COMPONENT, overrides, params, options);
  params.validate(COMPONENT);
  impl_ = std::make_unique<Impl>(params, options);
}

SalapGlMatcher::~SalapGlMatcher() {
  // GL objects die with the context current. On another thread it cannot be made current
  // (Context::make_current), and a destructor must not throw: the objects' deletes then have
  // no context and do nothing, so their memory stays with the context until the process ends.
  if (impl_ && impl_->context->owned_by_this_thread()) impl_->context->make_current();
}

std::string SalapGlMatcher::component() const { return COMPONENT; }

std::string SalapGlMatcher::device() const { return impl_->context->renderer(); }

nlohmann::json SalapGlMatcher::device_info() const { return impl_->context->device_info(); }

int SalapGlMatcher::fetches_per_fragment() const { return impl_->fetches_per_fragment(); }

StereoResult SalapGlMatcher::match(const ImageU8& left, const ImageU8& right, DisparityRange range) {
  return run_salap(*impl_, COMPONENT, left, right, range);
}

void SalapGlMatcher::match_stream(DisparityRange range, const FrameSource& next, const FrameSink& done) {
  stream_salap(*impl_, COMPONENT, range, next, done);
}

SalapGroupTextures SalapGlMatcher::debug_group(const ImageU8& left, const ImageU8& right, int d0, int levels) {
  return run_group_for_debug(*impl_, COMPONENT, left, right, d0, levels);
}

std::optional<FetchStats> SalapGlMatcher::fetch_stats(int width, int height, int levels) {
  require(width > 0 && height > 0 && levels > 0, std::string(COMPONENT) + ": fetch_stats needs a positive size");
  Impl& m = *impl_;
  m.context->make_current();
  if (!m.ceiling.program())
    m.ceiling = FullscreenPass("fetch ceiling",
                               Program::from_files("fetch_ceiling.vert", "fetch_ceiling.frag", {}, "fetch ceiling"));
  const Texture source = ceiling_source(width, height);
  const Texture target = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, width, height, GL_NEAREST, "fetch ceiling target");
  Framebuffer fbo = Framebuffer::create("fetch ceiling fbo");
  fbo.attach_colour(0, target);
  fbo.set_draw_buffers(1);
  GL_CHECK(glDisable(GL_DEPTH_TEST));
  m.ceiling.texture("u_source", 0, source).set("u_size", glm::vec2(float(width), float(height)));
  return measure_fetch_stats(*m.context, width, height, levels, m.fetches_per_fragment(),
                             [&] { m.ceiling.draw(fbo, width, height); },
                             "9-tap bilinear RGBA8 fragment pass, taps from varyings, RGBA8 texture -> RGBA8 target");
}

}  // namespace stereo::gl

namespace stereo {

void register_salap_gl(Registry& registry) {
  BackendEntry entry;
  entry.method = "salap";
  entry.backend = "gl";
  entry.summary = "SA-LAP as GLSL 4.50 fragment passes: 4 disparities per RGBA texel, bilinear taps, depth-test WTA";
  entry.unavailable = [] { return gl::context_unavailable(); };
  entry.create = [](const Overrides& overrides) -> std::unique_ptr<Matcher> {
    return std::make_unique<gl::SalapGlMatcher>(overrides);
  };
  registry.add(std::move(entry));
}

}  // namespace stereo
