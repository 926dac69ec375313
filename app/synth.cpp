#include "app/synth.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

namespace stereo {
namespace {

// ---- random numbers -------------------------------------------------------------------
// std::mt19937's output sequence is fixed by the standard; the standard distributions are
// not (libstdc++ and libc++ differ), so values are derived from the raw 32-bit draws here
// and a seed gives the same scene with every standard library.
class Rng {
 public:
  explicit Rng(std::uint32_t seed) : gen_(seed) {}
  double uniform() { return static_cast<double>(gen_() >> 8) * (1.0 / 16777216.0); }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  int integer(int lo, int hi) {  // inclusive; the modulo bias is irrelevant for scene layout
    return lo + static_cast<int>(gen_() % static_cast<std::uint32_t>(hi - lo + 1));
  }

 private:
  std::mt19937 gen_;
};

// ---- textures -------------------------------------------------------------------------
// Value noise: random RGB values on a square lattice, blended with a smoothstep weight. The
// lattice spacing bounds the finest detail (band-limited: every feature spans several
// pixels, so a pixel's neighbourhood identifies it), the lattice values are independent draws
// (nothing repeats), and the texture is a continuous function of the surface point, so the
// right view can sample it at the non-integer positions a slanted plane maps to.
class NoiseOctave {
 public:
  NoiseOctave(Rng& rng, double spacing, double x_min, double x_max, double y_min, double y_max)
      : spacing_(spacing) {
    x0_ = static_cast<int>(std::floor(x_min / spacing)) - 1;
    y0_ = static_cast<int>(std::floor(y_min / spacing)) - 1;
    nx_ = static_cast<int>(std::ceil(x_max / spacing)) + 2 - x0_;
    ny_ = static_cast<int>(std::ceil(y_max / spacing)) + 2 - y0_;
    values_.resize(static_cast<std::size_t>(nx_) * static_cast<std::size_t>(ny_) * 3);
    for (float& v : values_) v = static_cast<float>(rng.uniform());
  }

  [[nodiscard]] double sample(double x, double y, int c) const {
    const double gx = x / spacing_;
    const double gy = y / spacing_;
    const double fx0 = std::floor(gx);
    const double fy0 = std::floor(gy);
    const double tx = smooth(gx - fx0);
    const double ty = smooth(gy - fy0);
    const int ix = static_cast<int>(fx0) - x0_;
    const int iy = static_cast<int>(fy0) - y0_;
    const double v00 = value(ix, iy, c), v10 = value(ix + 1, iy, c);
    const double v01 = value(ix, iy + 1, c), v11 = value(ix + 1, iy + 1, c);
    return (1 - ty) * ((1 - tx) * v00 + tx * v10) + ty * ((1 - tx) * v01 + tx * v11);
  }

 private:
  static double smooth(double t) { return t * t * (3.0 - 2.0 * t); }
  [[nodiscard]] double value(int ix, int iy, int c) const {
    ix = std::clamp(ix, 0, nx_ - 1);
    iy = std::clamp(iy, 0, ny_ - 1);
    return values_[(static_cast<std::size_t>(iy) * static_cast<std::size_t>(nx_) + static_cast<std::size_t>(ix)) * 3 +
                   static_cast<std::size_t>(c)];
  }

  double spacing_;
  int x0_ = 0, y0_ = 0, nx_ = 0, ny_ = 0;
  std::vector<float> values_;
};

class Texture {
 public:
  Texture(Rng& rng, double x_min, double x_max, double y_min, double y_max) {
    for (double& b : base_) b = rng.uniform(0.25, 0.75);
    // Coarse blobs for a distinct look per surface, finer detail for precise matching; the
    // finest lattice (3 px) still leaves every feature a few pixels wide.
    const std::array<double, 3> spacing = {rng.uniform(12.0, 20.0), rng.uniform(5.0, 8.0), 3.0};
    for (double s : spacing) octaves_.emplace_back(rng, s, x_min, x_max, y_min, y_max);
  }

  [[nodiscard]] std::uint8_t sample(double x, double y, int c) const {
    static constexpr std::array<double, 3> AMPLITUDE = {0.45, 0.35, 0.25};
    double v = base_[static_cast<std::size_t>(c)];
    for (std::size_t k = 0; k < octaves_.size(); ++k) v += AMPLITUDE[k] * (octaves_[k].sample(x, y, c) - 0.5) * 2.0;
    return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
  }

 private:
  std::array<double, 3> base_{};
  std::vector<NoiseOctave> octaves_;
};

// ---- surfaces -------------------------------------------------------------------------
// A surface is a region of the left view (the whole plane, a rectangle or an ellipse) with a
// disparity plane d(x, y) = a + bx * x + by * y over it, in left-view coordinates.
struct Surface {
  enum class Shape { everywhere, rectangle, ellipse };
  Shape shape = Shape::everywhere;
  double cx = 0, cy = 0, rx = 0, ry = 0;
  double a = 0, bx = 0, by = 0;
  Texture texture;

  [[nodiscard]] bool contains(double x, double y) const {
    switch (shape) {
      case Shape::everywhere:
        return true;
      case Shape::rectangle:
        return std::abs(x - cx) <= rx && std::abs(y - cy) <= ry;
      case Shape::ellipse: {
        const double u = (x - cx) / rx, v = (y - cy) / ry;
        return u * u + v * v <= 1.0;
      }
    }
    return false;
  }
  [[nodiscard]] double disparity(double x, double y) const { return a + bx * x + by * y; }
  // The left-view x of the surface point that the right view sees at x_r:
  // x_r = x_l - (a + bx x_l + by y)  =>  x_l = (x_r + a + by y) / (1 - bx); bx < 1 always.
  [[nodiscard]] double left_x_from_right(double xr, double y) const { return (xr + a + by * y) / (1.0 - bx); }
};

struct Hit {
  int surface = -1;
  double disparity = -1.0;
  double xl = 0.0;
};

// Front-most surface at left pixel (x, y). Ties keep the first surface, here and in the right
// view, so equal-disparity overlaps resolve the same way in both.
Hit front_in_left(const std::vector<Surface>& surfaces, double x, double y) {
  Hit hit;
  for (std::size_t s = 0; s < surfaces.size(); ++s) {
    if (!surfaces[s].contains(x, y)) continue;
    const double d = surfaces[s].disparity(x, y);
    if (d > hit.disparity) hit = {static_cast<int>(s), d, x};
  }
  return hit;
}

// Front-most surface seen at right-view position (xr, y) (xr need not be an integer).
Hit front_in_right(const std::vector<Surface>& surfaces, double xr, double y) {
  Hit hit;
  for (std::size_t s = 0; s < surfaces.size(); ++s) {
    const double xl = surfaces[s].left_x_from_right(xr, y);
    if (!surfaces[s].contains(xl, y)) continue;
    const double d = xl - xr;
    if (d > hit.disparity) hit = {static_cast<int>(s), d, xl};
  }
  return hit;
}

Surface random_patch(Rng& rng, const SynthOptions& o, double size, double disparity, const Texture& texture) {
  Surface s{.shape = rng.uniform() < 0.5 ? Surface::Shape::rectangle : Surface::Shape::ellipse,
            .cx = rng.uniform(0.12, 0.88) * o.width,
            .cy = rng.uniform(0.12, 0.88) * o.height,
            .rx = rng.uniform(0.5, 1.0) * size * o.width,
            .ry = rng.uniform(0.5, 1.0) * size * o.height,
            .a = disparity,
            .bx = 0,
            .by = 0,
            .texture = texture};
  return s;
}

std::vector<Surface> build_surfaces(const SynthOptions& o, Rng& rng) {
  const int top = o.levels - 1;
  // Texture domain: left x from every surface point either view can show.
  const double x_min = -8.0, x_max = o.width + 2.0 * o.levels + 8.0;
  const double y_min = -8.0, y_max = o.height + 8.0;
  auto texture = [&] { return Texture(rng, x_min, x_max, y_min, y_max); };

  std::vector<Surface> surfaces;
  // The background sits at a small non-zero disparity (0 only when levels = 2), so a wrong
  // disparity scale shows on every pixel, not just on the planes in front.
  const int d_background = top == 1 ? 0 : rng.integer(1, std::max(1, top / 8));
  surfaces.push_back(Surface{.a = static_cast<double>(d_background), .texture = texture()});

  if (o.layout == SynthLayout::slanted) {
    // A large rectangle whose disparity rises left to right (and a little top to bottom),
    // always in front of the background: d from lo to hi over its extent.
    const double span = top - d_background;
    const double lo = d_background + 0.2 * span, hi = d_background + 0.65 * span;
    Surface slant{.shape = Surface::Shape::rectangle,
                  .cx = 0.5 * o.width,
                  .cy = 0.5 * o.height,
                  .rx = 0.36 * o.width,
                  .ry = 0.38 * o.height,
                  .texture = texture()};
    slant.bx = 0.75 * (hi - lo) / (2.0 * slant.rx);
    slant.by = 0.25 * (hi - lo) / (2.0 * slant.ry);
    slant.a = lo - slant.bx * (slant.cx - slant.rx) - slant.by * (slant.cy - slant.ry);
    surfaces.push_back(std::move(slant));
    for (int i = 0; i < 3; ++i) {
      const int d = rng.integer(d_background + 1, top);
      surfaces.push_back(random_patch(rng, o, 0.14, d, texture()));
    }
  } else {
    for (int i = 0; i < 5; ++i) {
      const int d = rng.integer(d_background + 1, top);
      surfaces.push_back(random_patch(rng, o, 0.2, d, texture()));
    }
  }
  return surfaces;
}

}  // namespace

// ---- synthetic scenes ----------------------------------------------------------------

const char* to_string(SynthLayout layout) {
  switch (layout) {
    case SynthLayout::planes:
      return "planes";
    case SynthLayout::slanted:
      return "slanted";
  }
  return "?";
}

SynthLayout parse_synth_layout(const std::string& name) {
  if (name == "planes") return SynthLayout::planes;
  if (name == "slanted") return SynthLayout::slanted;
  throw Error("synth: unknown layout '" + name + "' (expected planes or slanted)");
}

Scene make_synthetic_scene(const SynthOptions& o) {
  require(o.width >= 16 && o.height >= 16, "synth: image size " + std::to_string(o.width) + "x" +
                                               std::to_string(o.height) + " is below the minimum 16x16");
  require(o.levels >= 2 && o.levels < o.width, "synth: disparity levels " + std::to_string(o.levels) +
                                                   " outside [2, width-1] for width " + std::to_string(o.width));
  Rng rng(o.seed);
  const std::vector<Surface> surfaces = build_surfaces(o, rng);
  const int w = o.width, h = o.height;

  Scene scene;
  scene.name = std::string("synth-") + to_string(o.layout) + "-s" + std::to_string(o.seed);
  scene.kind = SceneKind::plain;
  scene.levels = o.levels;
  scene.default_threshold = 1.0;
  scene.left = ImageU8(w, h, 3);
  scene.right = ImageU8(w, h, 3);
  scene.gt = ImageF(w, h, 1);
  scene.mask_all = ImageU8(w, h, 1, 255);
  scene.mask_nonocc = ImageU8(w, h, 1, 0);
  scene.mask_disc = ImageU8(w, h, 1, 0);
  Image<int> surface_id(w, h, 1, -1);

  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const Hit left = front_in_left(surfaces, x, y);
      surface_id.at(x, y) = left.surface;
      scene.gt.at(x, y) = static_cast<float>(left.disparity);
      const Texture& tex = surfaces[static_cast<std::size_t>(left.surface)].texture;
      for (int c = 0; c < 3; ++c) scene.left.at(x, y, c) = tex.sample(x, y, c);

      // Visible in the right view when the match lies inside it and this surface is the
      // front-most one there (a tie at equal disparity is the same surface point).
      const double xr = x - left.disparity;
      bool visible = xr >= 0.0 && xr <= w - 1.0;
      if (visible) visible = front_in_right(surfaces, xr, y).disparity <= left.disparity + 1e-9;
      scene.mask_nonocc.at(x, y) = visible ? 255 : 0;

      const Hit right = front_in_right(surfaces, x, y);
      const Texture& rtex = surfaces[static_cast<std::size_t>(right.surface)].texture;
      for (int c = 0; c < 3; ++c) scene.right.at(x, y, c) = rtex.sample(right.xl, y, c);
    }
  }

  // Discontinuities: a 4-neighbour on another surface; the set is widened by 2 px and kept
  // to non-occluded pixels, as the Middlebury v2 disc masks are.
  constexpr int DISC_RADIUS = 2;
  ImageU8 edge(w, h, 1, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int id = surface_id.at(x, y);
      if ((x + 1 < w && surface_id.at(x + 1, y) != id) || (y + 1 < h && surface_id.at(x, y + 1) != id)) {
        edge.at(x, y) = 1;
        if (x + 1 < w && surface_id.at(x + 1, y) != id) edge.at(x + 1, y) = 1;
        if (y + 1 < h && surface_id.at(x, y + 1) != id) edge.at(x, y + 1) = 1;
      }
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (scene.mask_nonocc.at(x, y) != 255) continue;
      bool near = false;
      for (int dy = -DISC_RADIUS; dy <= DISC_RADIUS && !near; ++dy)
        for (int dx = -DISC_RADIUS; dx <= DISC_RADIUS && !near; ++dx) {
          const int xx = x + dx, yy = y + dy;
          near = xx >= 0 && xx < w && yy >= 0 && yy < h && edge.at(xx, yy) != 0;
        }
      if (near) scene.mask_disc.at(x, y) = 255;
    }
  return scene;
}

}  // namespace stereo
