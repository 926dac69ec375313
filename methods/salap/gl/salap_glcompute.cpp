#include "methods/salap/gl/salap_glcompute.h"

#include <limits>

#include "core/error.h"
#include "core/registry.h"
#include "gl/check.h"
#include "methods/salap/register.h"
#include "methods/salap/stage_names.h"

namespace stereo::gl {
namespace {

// "32x8" -> {32, 8}; the option's choice list guarantees the shape, the driver the limits.
LocalSize parse_local_size(const std::string& text) {
  const std::string component = SalapComputePasses::COMPONENT;
  const auto cross = text.find('x');
  require(cross != std::string::npos, component + ": gl_local_size must be XxY, got '" + text + "'");
  LocalSize s{std::stoi(text.substr(0, cross)), std::stoi(text.substr(cross + 1))};
  GLint max_x = 0, max_y = 0, max_invocations = 0;
  GL_CHECK(glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 0, &max_x));
  GL_CHECK(glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 1, &max_y));
  GL_CHECK(glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &max_invocations));
  require(s.x >= 1 && s.y >= 1 && s.x <= max_x && s.y <= max_y && s.x * s.y <= max_invocations,
          component + ": gl_local_size " + text + " exceeds the driver's limits (" + std::to_string(max_x) + " x " +
              std::to_string(max_y) + ", " + std::to_string(max_invocations) + " invocations)");
  return s;
}

void bind_image(GLuint unit, const Texture& texture, GLenum access) {
  GL_CHECK(glBindImageTexture(unit, texture.id(), 0, GL_FALSE, 0, access, texture.internal_format()));
}

}  // namespace

SalapComputePasses::SalapComputePasses(const SalapParams& params, const SalapGlComputeOptions& options)
    : SalapPassesBase(params, options), local_(parse_local_size(options.local_size)) {
  const Defines filter_defines = {{"SIDE_TAPS", std::to_string(taps_.offsets.size())},
                                  {"TAP_OFFSETS", glsl_float_array(taps_.offsets)},
                                  {"TAP_WEIGHTS", glsl_float_array(taps_.weights)},
                                  {"CENTRE_WEIGHT", glsl_float(taps_.centre_weight)},
                                  {"IMAGE_FORMAT", options_.intermediates.format},
                                  {"STORE_UNORM8", store_unorm8() ? "1" : "0"}};
  horizontal_ = ComputePass("salap_horizontal.comp", filter_defines, local_, "salap horizontal (compute)");
  vertical_ = ComputePass("salap_vertical.comp", filter_defines, local_, "salap vertical (compute)");
  const Defines select_defines = {{"NINE_WINDOWS", params_.windows == "9" ? "1" : "0"},
                                  {"ALPHA", glsl_float(params_.alpha)},
                                  {"BETA", glsl_float(params_.beta)}};
  select_ = ComputePass("salap_select.comp", select_defines, local_, "salap select (compute)");
}

void SalapComputePasses::allocate(int width, int height) {
  targets.allocate(options_.intermediates, width, height);
  best_ = Texture::create(GL_TEXTURE_2D, GL_RG32F, width, height, GL_NEAREST, "salap best (cost, disparity)");
}

// The running minimum starts at (+inf, 0): the first group's cost always replaces it. A
// clear is not a shader write, so the first select's imageLoad needs no barrier after it.
void SalapComputePasses::clear_selection() {
  const GLfloat start[2] = {std::numeric_limits<float>::infinity(), 0.0f};
  GL_CHECK(glClearTexImage(best_.id(), 0, GL_RG, GL_FLOAT, start));
}

// Each dispatch is followed by the barrier its consumer needs. Image stores are incoherent:
// without a barrier, neither texture fetches nor image loads of a later dispatch are
// guaranteed to see them.
void SalapComputePasses::run_group(const GlFrame& frame, int d0, PassTimer* timer) {
  const int width = frame.width, height = frame.height;
  timed(timer, "tad", [&] {
    frame.left.bind(0);
    frame.right.bind(1);
    bind_image(0, targets.cost, GL_WRITE_ONLY);
    tad_pass(frame.channels, [&](int mode) {
      const Defines defines = {{"COST_MODE", std::to_string(mode)},
                               {"TAU", glsl_float(params_.tau)},
                               {"IMAGE_FORMAT", options_.intermediates.format},
                               {"STORE_UNORM8", store_unorm8() ? "1" : "0"}};
      return ComputePass("salap_tad.comp", defines, local_, "salap tad (compute)");
    }).set("u_d0", d0).set("u_dmin", frame.range.min).dispatch(width, height);
    // horizontal samples TAD with texture(): TEXTURE_FETCH makes the image stores visible.
    GL_CHECK(glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT));
  });
  timed(timer, "horizontal", [&] {
    targets.cost.bind(0);
    bind_image(0, targets.c_left, GL_WRITE_ONLY);
    bind_image(1, targets.c_right, GL_WRITE_ONLY);
    horizontal_.dispatch(width, height);
    // vertical samples C_L, C_R with texture().
    GL_CHECK(glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT));
  });
  timed(timer, "vertical", [&] {
    targets.c_left.bind(0);
    targets.c_right.bind(1);
    for (int i = 0; i < 4; ++i) bind_image(GLuint(i), targets.c[i], GL_WRITE_ONLY);
    vertical_.dispatch(width, height);
    // select reads C0..C3 with texelFetch, a texture fetch.
    GL_CHECK(glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT));
  });
  timed(timer, "select", [&] {
    for (int i = 0; i < 4; ++i) targets.c[i].bind(GLuint(i));
    bind_image(0, best_, GL_READ_WRITE);
    select_.set("u_d0", d0).set("u_levels", frame.range.count).dispatch(width, height);
    // SHADER_IMAGE_ACCESS, for two reasons: the next group's select imageLoads `best`
    // (read after this group's imageStore), and the next group's tad/horizontal/vertical
    // imageStore over TAD, C_L, C_R, C0..C3, which this group sampled (write after read:
    // image stores after this barrier wait for every access issued before it). The fetch
    // barriers inside the group only order reads after writes, so this one covers the
    // write-after-read hazards of all of the next group's stores.
    GL_CHECK(glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT));
  });
}

void SalapComputePasses::make_readable() { GL_CHECK(glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT)); }

std::vector<InspectTarget> SalapComputePasses::inspect_targets() const {
  std::vector<InspectTarget> out = intermediate_targets(targets, "image");
  out.push_back({salap::SELECT_STAGE.name, salap::SELECT_STAGE.what, &best_, GL_GREEN, 1, false, "image (.y)"});
  out.push_back({"select.cost", "the running minimum's Cmin (eq. 3-4), +inf where nothing won", &best_, GL_RED, 1, false,
                 "image (.x)"});
  return out;
}

FetchStats SalapComputePasses::fetch_stats(const Context& context, int width, int height, int levels) {
  if (!ceiling_) ceiling_ = ComputePass("fetch_ceiling.comp", {}, local_, "fetch ceiling (compute)");
  const Texture source = ceiling_source(width, height);
  const Texture target = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, width, height, GL_NEAREST, "fetch ceiling target");
  source.bind(0);
  bind_image(0, target, GL_WRITE_ONLY);
  // Every SA-LAP dispatch ends in a barrier (the next one samples what it stored), so the
  // ceiling's dispatches do too: without it the driver overlaps them, which no pass of a run
  // can do (measured on an H100: 925 against 690 Gtexel/s at 1920x1080).
  return measure_fetch_stats(context, width, height, levels, fetches_per_pixel(),
                             [&] {
                               ceiling_.dispatch(width, height);
                               GL_CHECK(glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT));
                             },
                             "9-tap bilinear RGBA8 compute pass (work groups " + options_.local_size +
                                 "), RGBA8 texture -> imageStore rgba8, a barrier after each");
}

}  // namespace stereo::gl

namespace stereo {

void register_salap_glcompute(Registry& registry) {
  registry.add(gl::backend_entry<gl::SalapGlComputeMatcher>(
      "SA-LAP as GLSL 4.50 compute shaders: the gl backend's passes with imageStore, running-minimum WTA image"));
}

}  // namespace stereo
