#include "methods/salap/gl/salap_gl.h"

#include <algorithm>

#include "core/registry.h"
#include "gl/check.h"
#include "methods/salap/register.h"
#include "methods/salap/stage_names.h"

namespace stereo::gl {
namespace {

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

SalapFragmentPasses::SalapFragmentPasses(const SalapParams& params, const SalapGlOptions& options)
    : SalapPassesBase(params, options) {
  horizontal_ = FullscreenPass("salap horizontal",
                               Program::from_files("salap_taps.vert", "salap_horizontal.frag",
                                                   tap_defines(taps_, "vec2(1.0, 0.0)", store_unorm8()),
                                                   "salap horizontal"));
  vertical_ = FullscreenPass("salap vertical",
                             Program::from_files("salap_taps.vert", "salap_vertical.frag",
                                                 tap_defines(taps_, "vec2(0.0, 1.0)", store_unorm8()), "salap vertical"));
  const double reach = 1.0 + std::max(params_.alpha, params_.beta);
  const Defines select_defines = {{"NINE_WINDOWS", params_.windows == "9" ? "1" : "0"},
                                  {"ALPHA", glsl_float(params_.alpha)},
                                  {"BETA", glsl_float(params_.beta)},
                                  {"DEPTH_SCALE", glsl_float(1.0 / reach)},
                                  {"DEPTH_MAX", glsl_float(1.0 - 1.0 / double(1 << 20))}};
  select_ = FullscreenPass("salap select",
                           Program::from_files("fullscreen.vert", "salap_select.frag", select_defines, "salap select"));
}

void SalapFragmentPasses::allocate(int width, int height) {
  targets.allocate(options_.intermediates, width, height);
  winner_ = Texture::create(GL_TEXTURE_2D, GL_R32F, width, height, GL_NEAREST, "salap disparity");
  depth_ = Texture::create(GL_TEXTURE_2D, options_.depth == "depth32f" ? GL_DEPTH_COMPONENT32F : GL_DEPTH_COMPONENT24,
                           width, height, GL_NEAREST, "salap depth");
  tad_fbo_ = Framebuffer::create("salap tad fbo");
  tad_fbo_.attach_colour(0, targets.cost);
  tad_fbo_.set_draw_buffers(1);
  horizontal_fbo_ = Framebuffer::create("salap horizontal fbo");
  horizontal_fbo_.attach_colour(0, targets.c_left);
  horizontal_fbo_.attach_colour(1, targets.c_right);
  horizontal_fbo_.set_draw_buffers(2);
  vertical_fbo_ = Framebuffer::create("salap vertical fbo");
  for (int i = 0; i < 4; ++i) vertical_fbo_.attach_colour(i, targets.c[i]);
  vertical_fbo_.set_draw_buffers(4);
  select_fbo_ = Framebuffer::create("salap select fbo");
  select_fbo_.attach_colour(0, winner_);
  select_fbo_.attach_depth(depth_);
  select_fbo_.set_draw_buffers(1);
}

void SalapFragmentPasses::clear_selection() {
  const GLfloat one = 1.0f, zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  GL_CHECK(glDepthMask(GL_TRUE));
  GL_CHECK(glClearNamedFramebufferfv(select_fbo_.id(), GL_DEPTH, 0, &one));
  GL_CHECK(glClearNamedFramebufferfv(select_fbo_.id(), GL_COLOR, 0, zero));
}

void SalapFragmentPasses::run_group(const GlFrame& frame, int d0, PassTimer* timer) {
  const int width = frame.width, height = frame.height;
  const glm::vec2 size{float(width), float(height)};
  GL_CHECK(glDisable(GL_DEPTH_TEST));
  GL_CHECK(glDisable(GL_BLEND));
  timed(timer, "tad", [&] {
    tad_pass(frame.channels, [&](int mode) {
      const Defines defines = {{"COST_MODE", std::to_string(mode)},
                               {"TAU", glsl_float(params_.tau)},
                               {"STORE_UNORM8", store_unorm8() ? "1" : "0"}};
      return FullscreenPass("salap tad", Program::from_files("salap_tad.vert", "salap_tad.frag", defines, "salap tad"));
    }).texture("u_left", 0, frame.left).texture("u_right", 1, frame.right).set("u_size", size)
        .set("u_d0", d0).set("u_dmin", frame.range.min).draw(tad_fbo_, width, height);
  });
  timed(timer, "horizontal", [&] {
    horizontal_.texture("u_cost", 0, targets.cost).set("u_size", size).draw(horizontal_fbo_, width, height);
  });
  timed(timer, "vertical", [&] {
    vertical_.texture("u_left", 0, targets.c_left).texture("u_right", 1, targets.c_right).set("u_size", size)
        .draw(vertical_fbo_, width, height);
  });
  timed(timer, "select", [&] {
    GL_CHECK(glEnable(GL_DEPTH_TEST));
    GL_CHECK(glDepthFunc(GL_LESS));
    GL_CHECK(glDepthMask(GL_TRUE));
    select_.texture("u_c0", 0, targets.c[0]).texture("u_c1", 1, targets.c[1]).texture("u_c2", 2, targets.c[2])
        .texture("u_c3", 3, targets.c[3]).set("u_d0", d0).set("u_levels", frame.range.count)
        .draw(select_fbo_, width, height);
    GL_CHECK(glDisable(GL_DEPTH_TEST));
  });
}

std::vector<InspectTarget> SalapFragmentPasses::inspect_targets() const {
  std::vector<InspectTarget> out = intermediate_targets(targets, "render target");
  out.push_back({salap::SELECT_STAGE.name, salap::SELECT_STAGE.what, &winner_, GL_RED, 1, false, "render target"});
  out.push_back({"select.depth", "the depth test's running minimum: the winner's Cmin x DEPTH_SCALE (1 where nothing won)",
                 &depth_, GL_DEPTH_COMPONENT, 1, false, "depth attachment"});
  return out;
}

FetchStats SalapFragmentPasses::fetch_stats(const Context& context, int width, int height, int levels) {
  if (!ceiling_.program())
    ceiling_ = FullscreenPass("fetch ceiling",
                              Program::from_files("fetch_ceiling.vert", "fetch_ceiling.frag", {}, "fetch ceiling"));
  const Texture source = ceiling_source(width, height);
  const Texture target = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, width, height, GL_NEAREST, "fetch ceiling target");
  Framebuffer fbo = Framebuffer::create("fetch ceiling fbo");
  fbo.attach_colour(0, target);
  fbo.set_draw_buffers(1);
  GL_CHECK(glDisable(GL_DEPTH_TEST));
  ceiling_.texture("u_source", 0, source).set("u_size", glm::vec2(float(width), float(height)));
  return measure_fetch_stats(context, width, height, levels, fetches_per_pixel(),
                             [&] { ceiling_.draw(fbo, width, height); },
                             "9-tap bilinear RGBA8 fragment pass, taps from varyings, RGBA8 texture -> RGBA8 target");
}

}  // namespace stereo::gl

namespace stereo {

void register_salap_gl(Registry& registry) {
  registry.add(gl::backend_entry<gl::SalapGlMatcher>(
      "SA-LAP as GLSL 4.50 fragment passes: 4 disparities per RGBA texel, bilinear taps, depth-test WTA"));
}

}  // namespace stereo
