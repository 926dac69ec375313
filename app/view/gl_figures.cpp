// `eval`'s figures of a map on the GPU (app/view/gl_figures.h).

#include "app/view/gl_figures.h"

#include <GL/glew.h>

#include <chrono>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "app/protocol.h"
#include "app/view/view_shaders.h"  // generated: FIGURES_COMP, the text of app/view/shaders/figures.comp
#include "core/error.h"
#include "gl/check.h"

namespace stereo::view {

namespace {

// figures.comp's counts per row, in its order; its flags are app/metrics.h's MaskFlag, whose
// values it spells out.
static_assert(MASK_NONOCC == 1 && MASK_ALL == 2 && MASK_DISC == 4 && MASK_PICTURE_NONOCC == 8 && MASK_AVERAGED == 16,
              "app/view/shaders/figures.comp's FLAG_* constants");
constexpr int COUNTS = 10;
enum Count { NONOCC, NONOCC_BAD, ALL, ALL_BAD, DISC, DISC_BAD, D1, D1_BAD, FINITE, AVERAGED };

bool power_of_two(float v) {
  int exponent = 0;
  return v > 0.0f && std::frexp(v, &exponent) == 0.5f;
}

// The submission rule of `scene` as figures.comp takes it: (rule, scale), app/protocol.cpp's.
std::pair<int, float> rule_of(const Scene& scene) {
  if (scene.kind == SceneKind::middlebury_v2) {
    const auto info = middlebury_v2_info(scene.name);
    require(info.has_value(), [&] { return "view: " + scene.name + " is no Middlebury v2 scene with a known scale"; });
    return {1, float(info->scale)};
  }
  if (scene.kind == SceneKind::kitti) return {2, KITTI_SCALE};
  return {0, 1.0f};
}

}  // namespace

GlFigures::GlFigures() {
  const gl::Shader shader = gl::Shader::compile(GL_COMPUTE_SHADER, FIGURES_COMP, "app/view/shaders/figures.comp");
  program_ = gl::Program::link({&shader}, "view.figures");
}

std::optional<std::string> GlFigures::unsupported(const Scene& scene) {
  if (!scene.has_ground_truth()) return "no ground truth";
  if (scene.kind == SceneKind::middlebury_v2) {
    const auto info = middlebury_v2_info(scene.name);
    if (!info) return scene.name + " has no known Middlebury v2 scale";
    if (!power_of_two(float(info->scale)))
      return "the submission scale x" + std::to_string(info->scale) + " is not a power of two";
  }
  return std::nullopt;
}

void GlFigures::upload_scene(const Scene& scene) {
  const int w = scene.gt.width, h = scene.gt.height;
  // Made anew only for another size: a sequence of scenes of one size reuses them.
  const bool resize = !gt_ || gt_.width() != w || gt_.height() != h;
  if (resize) {
    gt_ = gl::Texture::create(GL_TEXTURE_2D, GL_R32F, w, h, GL_NEAREST, "view.figures ground truth");
    flags_ = gl::Texture::create(GL_TEXTURE_2D, GL_R8UI, w, h, GL_NEAREST, "view.figures masks");
    grey_ = gl::Texture::create(GL_TEXTURE_2D, GL_R8UI, w, h, GL_NEAREST, "view.figures grey");
    error_ = gl::Texture::create(GL_TEXTURE_2D, GL_RGBA8, w, h, GL_NEAREST, "view.error (device)");
    counts_ = gl::Buffer::create(std::size_t(h) * COUNTS * sizeof(std::uint32_t), nullptr, 0, "view.figures counts");
    sums_ = gl::Buffer::create(std::size_t(h) * sizeof(double), nullptr, 0, "view.figures sums");
  }
  gt_.upload(GL_RED, GL_FLOAT, scene.gt.data.data());
  // What evaluate() and error_map() decide from the masks, once per pixel (app/metrics.cpp).
  std::vector<std::uint8_t> flags(std::size_t(w) * std::size_t(h)), grey(flags.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = std::size_t(y) * std::size_t(w) + std::size_t(x);
      flags[i] = mask_flags(scene, i);
      grey[i] = error_map_grey(scene.left, x, y);
    }
  flags_.upload(GL_RED_INTEGER, GL_UNSIGNED_BYTE, flags.data());
  grey_.upload(GL_RED_INTEGER, GL_UNSIGNED_BYTE, grey.data());
  std::tie(rule_, step_) = rule_of(scene);
  GL_CHECK(glFinish());  // the uploads' cost is the scene's, not the next pass's (last_upload_ms)
}

Metrics GlFigures::evaluate(const gl::Texture& map, const Scene& scene, double threshold, std::uint64_t scene_key) {
  if (const auto why = unsupported(scene)) throw Error("view: no figures on the GPU: " + *why);
  require(map.width() == scene.gt.width && map.height() == scene.gt.height, [&] {
    return "view: the map is " + std::to_string(map.width()) + "x" + std::to_string(map.height()) +
           ", the ground truth " + std::to_string(scene.gt.width) + "x" + std::to_string(scene.gt.height);
  });
  require(threshold >= 0.0, [&] { return "view: threshold must be >= 0, got " + std::to_string(threshold); });
  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
  upload_ms_ = 0.0;
  if (scene_key_ != scene_key || !gt_) {
    const auto start = Clock::now();
    upload_scene(scene);
    scene_key_ = scene_key;
    upload_ms_ = ms_since(start);
  }
  // The work queued before (the interop's buffer-to-texture copy of the map) finishes first, so
  // that last_pass_ms() is this pass's own: dispatch, the GPU's work, the rows' sums read back.
  GL_CHECK(glFinish());
  const auto start = Clock::now();
  const int w = map.width(), h = map.height();
  map.bind(0);
  gt_.bind(1);
  flags_.bind(2);
  grey_.bind(3);
  GL_CHECK(glBindImageTexture(0, error_.id(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8));
  GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, counts_.id()));
  GL_CHECK(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, sums_.id()));
  program_.set("u_size", glm::ivec2(w, h));
  program_.set("u_rule", rule_);
  program_.set("u_step", step_);
  program_.set("u_inv_step", 1.0f / step_);  // exact: a power of two (unsupported() checked)
  program_.set("u_kitti", scene.kind == SceneKind::kitti ? 1 : 0);
  GL_CHECK(glProgramUniform1d(program_.id(), program_.location("u_threshold"), threshold));
  GL_CHECK(glUseProgram(program_.id()));
  GL_CHECK(glDispatchCompute(GLuint(h), 1, 1));  // a work group per row
  // The buffers are read next, the picture is sampled by the panel's draw.
  GL_CHECK(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT));
  GL_CHECK(glUseProgram(0));
  std::vector<std::uint32_t> counts(std::size_t(h) * COUNTS);
  std::vector<double> sums(static_cast<std::size_t>(h));
  GL_CHECK(glGetNamedBufferSubData(counts_.id(), 0, GLsizeiptr(counts.size() * sizeof counts[0]), counts.data()));
  GL_CHECK(glGetNamedBufferSubData(sums_.id(), 0, GLsizeiptr(sums.size() * sizeof sums[0]), sums.data()));
  pass_ms_ = ms_since(start);
  MetricCounts c;  // the rows' counts added in order, as evaluate() counts them
  c.pixels = std::uint64_t(w) * std::uint64_t(h);
  for (int y = 0; y < h; ++y) {
    const std::uint32_t* row = counts.data() + std::size_t(y) * COUNTS;
    c.nonocc += row[NONOCC], c.nonocc_bad += row[NONOCC_BAD], c.all += row[ALL], c.all_bad += row[ALL_BAD];
    c.disc += row[DISC], c.disc_bad += row[DISC_BAD], c.d1 += row[D1], c.d1_bad += row[D1_BAD];
    c.finite += row[FINITE], c.averaged += row[AVERAGED];
    c.error_sum += sums[std::size_t(y)];
  }
  return metrics_of(c, scene.kind, threshold);
}

}  // namespace stereo::view
