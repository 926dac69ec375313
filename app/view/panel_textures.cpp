// The window's textures and the ramp pass.

#include "app/view/panel_textures.h"

#include <GL/glew.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "app/measure.h"
#include "app/view/view_shaders.h"  // generated: RAMP_FRAG, the text of app/view/shaders/ramp.frag
#include "gl/check.h"

namespace stereo::view {

namespace {

gl::FullscreenPass make_ramp_pass() {
  const gl::Shader vert = gl::Shader::compile(GL_VERTEX_SHADER, gl::shader_source("fullscreen.vert"), "fullscreen.vert");
  const gl::Shader frag = gl::Shader::compile(GL_FRAGMENT_SHADER, RAMP_FRAG, "app/view/shaders/ramp.frag");
  return gl::FullscreenPass("view.ramp", gl::Program::link({&vert, &frag}, "view.ramp"));
}

// A texture of `format` and this size, made anew only when the size changes.
void ensure(gl::Texture& t, GLenum format, int width, int height, const std::string& label) {
  if (!t || t.width() != width || t.height() != height)
    t = gl::Texture::create(GL_TEXTURE_2D, format, width, height, GL_NEAREST, label);
}

}  // namespace

gl::Texture rgba_texture(const ImageU8& image, const std::string& label) {
  gl::Texture t = gl::Texture::create(GL_TEXTURE_2D, GL_RGBA8, image.width, image.height, GL_NEAREST, label);
  t.upload(image.channels == 1 ? GL_RED : GL_RGB, GL_UNSIGNED_BYTE, image.data.data());
  if (image.channels == 1) {
    const GLint grey[4] = {GL_RED, GL_RED, GL_RED, GL_ONE};
    GL_CHECK(glTextureParameteriv(t.id(), GL_TEXTURE_SWIZZLE_RGBA, grey));
  }
  return t;
}

PanelTextures::PanelTextures(const WindowContext& context)
    : context_(context), ramp_(make_ramp_pass()), target_(gl::Framebuffer::create("view.ramp target")) {}

void PanelTextures::update(const ViewerState& state, const gl::Texture* device_map, const gl::Texture* device_error,
                           bool views) {
  const ViewResult* r = state.result();
  if (r == nullptr) return;
  const Scene& scene = state.input().current();
  if (views && r->views_serial != views_serial_) {
    left_ = rgba_texture(scene.left, "view.left");
    right_ = rgba_texture(scene.right, "view.right");
    views_serial_ = r->views_serial;
  }
  if (r->serial == serial_) return;
  serial_ = r->serial;
  if (r->on_device) {
    require(device_map != nullptr, "view: the map is on the device but the window has no interop texture");
    map_ = device_map;
  } else {
    ensure(host_map_, GL_R32F, r->width, r->height, "view.disparity");
    host_map_.upload(GL_RED, GL_FLOAT, r->disparity->data.data());
    map_ = &host_map_;
  }
  colour(*map_, r->range);
  error_shown_ = nullptr;
  if (r->error_map) {
    error_ = rgba_texture(*r->error_map, "view.error");
    error_shown_ = &error_;
  } else {
    error_ = {};
    if (r->error_on_device) {
      require(device_error != nullptr, "view: the error picture is on the device but the window has none");
      error_shown_ = device_error;
    }
  }
  ImageF levels(r->range.count, 1, 1);
  for (int k = 0; k < r->range.count; ++k) levels.data[std::size_t(k)] = float(r->range.min + k);
  scale_bar_ = rgba_texture(cli::colorize_range(levels, r->range), "view.scale bar");
}

void PanelTextures::colour(const gl::Texture& map, DisparityRange range) {
  ensure(coloured_, GL_RGBA8, map.width(), map.height(), "view.disparity colours");
  target_.attach_colour(0, coloured_);
  // colorize_range's scale, computed as the host computes it (float), so both round alike.
  const float max_disparity = float(range.count - 1);
  const float scale = max_disparity > 0.0f ? 1.0f / max_disparity : 1.0f;
  ramp_.set("u_min", float(range.min)).set("u_scale", scale);
  map.bind(0);
  GL_CHECK(glDisable(GL_BLEND));
  GL_CHECK(glDisable(GL_SCISSOR_TEST));
  ramp_.draw(target_, map.width(), map.height());
  GL_CHECK(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0));
}

std::optional<float> PanelTextures::disparity_at(const ViewResult& r, int x, int y) const {
  if (map_ == nullptr || x < 0 || y < 0 || x >= r.width || y >= r.height) return std::nullopt;
  if (r.disparity) return r.disparity->at(x, y);
  float d = 0.0f;  // one texel of the device map: a GL read, not a copy of the map
  GL_CHECK(glGetTextureSubImage(map_->id(), 0, x, y, 0, 1, 1, 1, GL_RED, GL_FLOAT, sizeof d, &d));
  return d;
}

std::pair<float, float> PanelTextures::show_pass(PassInspector& inspector, const std::string& pass, int slice,
                                                 int channel) {
  const ImageF plane = [&] {
    context_.release();
    struct Reacquire {
      const WindowContext& c;
      ~Reacquire() { c.acquire(); }
    } reacquire{context_};
    return inspector.read(pass, slice);
  }();
  const int channels = std::max(plane.channels, 1);
  const int c = std::clamp(channel, 0, channels - 1);
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (std::size_t i = std::size_t(c); i < plane.data.size(); i += std::size_t(channels))
    if (std::isfinite(plane.data[i])) {
      lo = std::min(lo, plane.data[i]);
      hi = std::max(hi, plane.data[i]);
    }
  ImageU8 grey(plane.width, plane.height, 1);
  const float span = hi > lo ? hi - lo : 1.0f;
  for (std::size_t p = 0; p < grey.data.size(); ++p) {
    const float v = plane.data[p * std::size_t(channels) + std::size_t(c)];
    grey.data[p] = std::isfinite(v) ? static_cast<std::uint8_t>(std::lround((v - lo) / span * 255.0f)) : 0;
  }
  slice_ = rgba_texture(grey, "view.pass slice");
  return {lo, hi};
}

}  // namespace stereo::view
