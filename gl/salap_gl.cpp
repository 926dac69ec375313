#include "gl/salap_gl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>

#include "gl/check.h"
#include "gl/context.h"
#include "gl/objects.h"
#include "gl/program.h"
#include "host/backends.h"
#include "host/dataset.h"

namespace stereo::gl {
namespace {

constexpr const char* COMPONENT = "salap/gl";
// Lu et al. Sec. 3: the rasteriser's eight texture-coordinate interpolators.
constexpr int MAX_TAP_VARYINGS = 8;

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

GLenum intermediate_format(const std::string& format) {
  if (format == "rgba16f") return GL_RGBA16F;
  if (format == "rgba32f") return GL_RGBA32F;
  return GL_RGBA8;
}

GLenum upload_format(int channels) {
  switch (channels) {
    case 1: return GL_RED;
    case 3: return GL_RGB;
    case 4: return GL_RGBA;
    default: throw Error(std::string(COMPONENT) + ": images need 1, 3 or 4 channels, got " + std::to_string(channels));
  }
}

// Tap layout of one one-sided filter (centre excluded), normalised by F1 (host/salap.h).
struct TapLayout {
  std::vector<double> offsets, weights;
  double centre_weight = 0.0;
};

TapLayout tap_layout(const SalapParams& p, bool bilinear) {
  const int w_reach = p.radius();
  std::vector<double> w(std::size_t(w_reach) + 1);
  double f1 = 0.0;
  for (int k = 0; k <= w_reach; ++k) f1 += (w[std::size_t(k)] = std::exp(-double(k) / double(p.gamma)));
  TapLayout t;
  t.centre_weight = w[0] / f1;
  if (bilinear) {
    for (int i = 1; i < w_reach; i += 2) {
      const double a = w[std::size_t(i)], b = w[std::size_t(i) + 1];
      t.offsets.push_back(double(i) + b / (a + b));
      t.weights.push_back((a + b) / f1);
    }
  } else {
    for (int k = 1; k <= w_reach; ++k) {
      t.offsets.push_back(double(k));
      t.weights.push_back(w[std::size_t(k)] / f1);
    }
  }
  return t;
}

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
  Texture left, right, cost, c_left, c_right, c[4], disparity, depth;
  Framebuffer tad_fbo, horizontal_fbo, vertical_fbo, select_fbo;

  Impl(const SalapParams& p, const SalapGlOptions& o) : params(p), options(o), context(shared_context()) {
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
    left.upload(upload_format(l.channels), GL_UNSIGNED_BYTE, l.data.data());
    right.upload(upload_format(r.channels), GL_UNSIGNED_BYTE, r.data.data());
  }

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
          .draw(tad_fbo, width, height);
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

  ImageF read(const Texture& t, int channels) const {
    ImageF out(t.width(), t.height(), channels);
    t.download(channels == 1 ? GL_RED : GL_RGBA, GL_FLOAT, out.data.data(), out.data.size() * sizeof(float));
    return out;
  }

  int fetches_per_fragment() const {
    const int s = int(taps.offsets.size());
    return (1 + 4) + (1 + 2 * s) + 2 * (1 + 2 * s) + 4;
  }
};

SalapGlMatcher::SalapGlMatcher(const Overrides& overrides) {
  SalapParams params;
  SalapGlOptions options;
  json_ = bind_params(COMPONENT, overrides, params, options);
  params.validate(COMPONENT);
  impl_ = std::make_unique<Impl>(params, options);
}

SalapGlMatcher::~SalapGlMatcher() {
  if (impl_) impl_->context->make_current();  // GL objects die with the context current
}

std::string SalapGlMatcher::device() const { return impl_->context->renderer(); }

int SalapGlMatcher::fetches_per_fragment() const { return impl_->fetches_per_fragment(); }

StereoResult SalapGlMatcher::compute(const ImageU8& left, const ImageU8& right, int levels) {
  validate_pair(left, right, levels, COMPONENT);
  require(left.channels == right.channels, std::string(COMPONENT) + ": left has " + std::to_string(left.channels) +
                                               " channels, right " + std::to_string(right.channels));
  Impl& m = *impl_;
  m.context->make_current();
  m.allocate(left.width, left.height);
  StereoResult result;

  GL_CHECK(glFinish());
  auto t0 = Clock::now();
  m.upload(left, right);
  GL_CHECK(glFinish());
  result.timing.upload_ms = ms_since(t0);

  PassTimer timer(m.context->use_timer_queries());
  m.clear_selection();
  for (int d0 = 0; d0 < levels; d0 += 4) m.run_group(d0, levels, left.channels, &timer);
  result.timing.stages = timer.results();
  for (const auto& [kind, ms] : result.timing.stages) result.timing.algorithm_ms += ms;
  result.timing.clock = timer.clock() + "; host clock around glFinish for upload and read-back";

  t0 = Clock::now();
  result.disparity = m.read(m.disparity, 1);
  result.timing.readback_ms = ms_since(t0);
  return result;
}

SalapGroupTextures SalapGlMatcher::debug_group(const ImageU8& left, const ImageU8& right, int d0, int levels) {
  validate_pair(left, right, levels, COMPONENT);
  require(d0 >= 0 && d0 < levels, std::string(COMPONENT) + ": group start " + std::to_string(d0) + " outside 0.." +
                                      std::to_string(levels - 1));
  Impl& m = *impl_;
  m.context->make_current();
  m.allocate(left.width, left.height);
  m.upload(left, right);
  m.clear_selection();
  m.run_group(d0, levels, left.channels, nullptr);
  SalapGroupTextures out;
  out.tad = m.read(m.cost, 4);
  out.c_left = m.read(m.c_left, 4);
  out.c_right = m.read(m.c_right, 4);
  out.c0 = m.read(m.c[0], 4);
  out.c1 = m.read(m.c[1], 4);
  out.c2 = m.read(m.c[2], 4);
  out.c3 = m.read(m.c[3], 4);
  out.disparity = m.read(m.disparity, 1);
  return out;
}

std::optional<FetchStats> SalapGlMatcher::fetch_stats(int width, int height, int levels) {
  require(width > 0 && height > 0 && levels > 0, std::string(COMPONENT) + ": fetch_stats needs a positive size");
  Impl& m = *impl_;
  m.context->make_current();
  FetchStats stats;
  const double groups = double((levels + 3) / 4);
  stats.fetches_per_run = groups * double(width) * double(height) * double(m.fetches_per_fragment());

  if (!m.ceiling.program()) m.ceiling = FullscreenPass("fetch ceiling", Program::from_files("fetch_ceiling.vert",
                                                                                           "fetch_ceiling.frag", {},
                                                                                           "fetch ceiling"));
  Texture source = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, width, height, GL_LINEAR, "fetch ceiling source");
  Texture target = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, width, height, GL_NEAREST, "fetch ceiling target");
  {
    std::vector<std::uint8_t> noise(std::size_t(width) * std::size_t(height) * 4);
    std::mt19937 rng(7);
    for (auto& v : noise) v = std::uint8_t(rng() & 0xff);
    source.upload(GL_RGBA, GL_UNSIGNED_BYTE, noise.data());
  }
  Framebuffer fbo = Framebuffer::create("fetch ceiling fbo");
  fbo.attach_colour(0, target);
  fbo.set_draw_buffers(1);
  GL_CHECK(glDisable(GL_DEPTH_TEST));
  m.ceiling.texture("u_source", 0, source).set("u_size", glm::vec2(float(width), float(height)));

  // As many passes back to back as one run issues (4 per group of 4 disparities), so the
  // ceiling pays the same per-pass overhead as the SA-LAP passes it is compared with.
  const bool queries = m.context->use_timer_queries();
  const int batch = 4 * int(groups);
  const BatchTime t = time_batched(queries, batch, [&] { m.ceiling.draw(fbo, width, height); });
  const double median_ms = t.ms_per_call;
  stats.ceiling_gtexel_s = 9.0 * double(width) * double(height) / (median_ms * 1e-3) / 1e9;
  stats.ceiling_pass = "9-tap bilinear RGBA8 fragment pass, taps from varyings, " + std::to_string(width) + "x" +
                       std::to_string(height) + " RGBA8 texture -> RGBA8 target, median of " +
                       std::to_string(t.samples) + " batches of " + std::to_string(batch) + " (" + m.context->renderer() + ", " +
                       (queries ? "GL timer queries" : "host clock + glFinish") + ")";
  return stats;
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
