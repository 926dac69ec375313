#include "methods/salap/gl/salap_passes.h"

#include <cmath>
#include <cstdint>
#include <random>

#include "gl/program.h"
#include "methods/salap/stage_names.h"

namespace stereo::gl {

GLenum intermediate_format(const std::string& format) {
  if (format == "rgba16f") return GL_RGBA16F;
  if (format == "rgba32f") return GL_RGBA32F;
  return GL_RGBA8;
}

void SalapIntermediates::allocate(const SalapIntermediateOptions& options, int width, int height) {
  const GLenum rect = GL_TEXTURE_RECTANGLE;
  const GLenum fmt = intermediate_format(options.format);
  const GLenum filter = options.taps == "bilinear" ? GL_LINEAR : GL_NEAREST;
  cost = Texture::create(rect, fmt, width, height, filter, "salap tad");
  c_left = Texture::create(rect, fmt, width, height, filter, "salap C_L");
  c_right = Texture::create(rect, fmt, width, height, filter, "salap C_R");
  for (int i = 0; i < 4; ++i)
    c[i] = Texture::create(rect, fmt, width, height, GL_NEAREST, "salap C" + std::to_string(i));
}

std::vector<InspectTarget> intermediate_targets(const SalapIntermediates& t, const char* held_as) {
  std::vector<InspectTarget> out;
  out.push_back({salap::TAD_STAGE.name, salap::TAD_STAGE.what, &t.cost, GL_RGBA, 4, true, held_as});
  out.push_back({salap::HORIZONTAL_STAGES[0].name, salap::HORIZONTAL_STAGES[0].what, &t.c_left, GL_RGBA, 4, true, held_as});
  out.push_back({salap::HORIZONTAL_STAGES[1].name, salap::HORIZONTAL_STAGES[1].what, &t.c_right, GL_RGBA, 4, true, held_as});
  for (int i = 0; i < 4; ++i)
    out.push_back({salap::VERTICAL_STAGES[i].name, salap::VERTICAL_STAGES[i].what, &t.c[i], GL_RGBA, 4, true, held_as});
  return out;
}

TapLayout tap_layout(const SalapParams& p, bool bilinear) {
  const int reach = p.radius();
  std::vector<double> w(std::size_t(reach) + 1);
  double f1 = 0.0;
  for (int k = 0; k <= reach; ++k) f1 += (w[std::size_t(k)] = std::exp(-double(k) / double(p.gamma)));
  TapLayout t;
  t.centre_weight = w[0] / f1;
  if (bilinear) {
    for (int i = 1; i < reach; i += 2) {  // pair (i, i+1) as one GL_LINEAR fetch
      const double a = w[std::size_t(i)], b = w[std::size_t(i) + 1];
      t.offsets.push_back(double(i) + b / (a + b));
      t.weights.push_back((a + b) / f1);
    }
  } else {
    for (int k = 1; k <= reach; ++k) {
      t.offsets.push_back(double(k));
      t.weights.push_back(w[std::size_t(k)] / f1);
    }
  }
  return t;
}

int fetches_per_pixel(const TapLayout& taps) {
  const int s = int(taps.offsets.size());
  return (1 + 4) + (1 + 2 * s) + 2 * (1 + 2 * s) + 4;
}

Texture ceiling_source(int width, int height) {
  Texture source = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, width, height, GL_LINEAR, "fetch ceiling source");
  std::vector<std::uint8_t> noise(std::size_t(width) * std::size_t(height) * 4);
  std::mt19937 rng(7);
  for (auto& v : noise) v = std::uint8_t(rng() & 0xff);
  source.upload(GL_RGBA, GL_UNSIGNED_BYTE, noise.data());
  return source;
}

FetchStats measure_fetch_stats(const Context& context, int width, int height, int levels, int fetches_per_pixel,
                               const std::function<void()>& issue, const std::string& ceiling_pass) {
  const int groups = (levels + 3) / 4;
  FetchStats stats;
  stats.fetches_per_run = double(groups) * double(width) * double(height) * double(fetches_per_pixel);
  const bool queries = context.use_timer_queries();
  const int batch = 4 * groups;
  const BatchTime t = time_batched(queries, batch, issue);
  stats.ceiling_gtexel_s = 9.0 * double(width) * double(height) / (t.ms_per_call * 1e-3) / 1e9;
  stats.ceiling_pass = ceiling_pass + ", " + std::to_string(width) + "x" + std::to_string(height) + ", median of " +
                       std::to_string(t.samples) + " batches of " + std::to_string(batch) + " (" + context.renderer() +
                       ", " + (queries ? "GL timer queries" : "host clock + glFinish") + ")";
  return stats;
}

}  // namespace stereo::gl
