#include "host/synth.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "host/image_io.h"

namespace stereo {
namespace {

constexpr float INF = std::numeric_limits<float>::infinity();

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

// ---- small helpers ----------------------------------------------------------------------

std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string() + ": no such file or not readable");
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error("cannot read " + path.string() + ": read failed");
  return bytes;
}

std::uint64_t read_le(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

double sample_row_linear(const ImageU8& img, double x, int y, int c) {
  const int x0 = static_cast<int>(std::floor(x));
  const double t = x - x0;
  const int x1 = std::min(x0 + 1, img.width - 1);
  return (1.0 - t) * img.at(x0, y, c) + t * img.at(x1, y, c);
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

// ---- the MiddEval3 layout ------------------------------------------------------------

ImageU8 nonocc_mask_from_gt(const ImageF& gt, float tolerance) {
  require(gt.channels == 1, "nonocc_mask_from_gt: expected a one-channel disparity map");
  ImageU8 mask(gt.width, gt.height, 1, 0);
  for (int y = 0; y < gt.height; ++y) {
    // Right to left: `nearest` is the leftmost right-view position reached by any pixel to the
    // right of x; landing clearly beyond it means a nearer surface covers this pixel there.
    double nearest = std::numeric_limits<double>::infinity();
    for (int x = gt.width - 1; x >= 0; --x) {
      const float d = gt.at(x, y);
      if (!std::isfinite(d)) continue;
      const double xr = x - static_cast<double>(d);
      const bool inside = xr >= 0.0 && xr <= gt.width - 1.0;
      if (inside && xr <= nearest + tolerance) mask.at(x, y) = 255;
      nearest = std::min(nearest, xr);
    }
  }
  return mask;
}

std::pair<ImageU8, ImageU8> bench_pair(int width, int height) {
  require(width > 8 && height > 0, "bench: size must be at least 9x1, got " + std::to_string(width) + "x" +
                                       std::to_string(height));
  std::mt19937 rng(20070917u);
  std::uniform_int_distribution<int> u(0, 255);
  ImageU8 left(width, height, 3), right(width, height, 3);
  for (auto& v : left.data) v = static_cast<std::uint8_t>(u(rng));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) right.at(x, y, c) = left.at(std::min(width - 1, x + 8), y, c);
  return {left, right};
}

void write_scene(const Scene& scene, const std::filesystem::path& dir) {
  require(!scene.left.empty() && scene.left.same_size(scene.right.width, scene.right.height),
          "write_scene: " + scene.name + ": the two views are missing or differ in size");
  const int w = scene.left.width, h = scene.left.height;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("write_scene: cannot create " + dir.string() + ": " + ec.message());

  write_png(dir / "im0.png", to_rgb(scene.left));
  write_png(dir / "im1.png", to_rgb(scene.right));

  double vmin = 0, vmax = 0;
  bool integral = true;
  if (scene.has_ground_truth()) {
    require(scene.gt.same_size(w, h) && scene.gt.channels == 1,
            "write_scene: " + scene.name + ": ground truth is not a one-channel map of the image size");
    auto check_mask = [&](const ImageU8& m, const char* what) {
      require(m.empty() || (m.same_size(w, h) && m.channels == 1),
              std::string("write_scene: ") + scene.name + ": " + what + " mask does not match the image size");
    };
    check_mask(scene.mask_all, "all");
    check_mask(scene.mask_nonocc, "nonocc");
    const ImageU8 derived = scene.mask_nonocc.empty() ? nonocc_mask_from_gt(scene.gt) : ImageU8();
    const ImageU8& nonocc = scene.mask_nonocc.empty() ? derived : scene.mask_nonocc;

    ImageF disp(w, h, 1, INF);
    ImageU8 mask(w, h, 1, 0);
    vmin = std::numeric_limits<double>::infinity();
    vmax = -vmin;
    for (std::size_t i = 0; i < disp.data.size(); ++i) {
      const float d = scene.gt.data[i];
      const bool all = std::isfinite(d) && (scene.mask_all.empty() || scene.mask_all.data[i] == 255);
      if (!all) continue;
      disp.data[i] = d;
      mask.data[i] = nonocc.data[i] == 255 ? 255 : 128;
      vmin = std::min(vmin, static_cast<double>(d));
      vmax = std::max(vmax, static_cast<double>(d));
      integral = integral && d == std::floor(d);
    }
    if (!std::isfinite(vmin)) vmin = vmax = 0;
    write_pfm(dir / "disp0GT.pfm", disp);
    write_png(dir / "mask0nocc.png", mask);
  }

  // MiddEval3's calib.txt. The pair has no metric calibration: the intrinsics are placeholders
  // (focal length = image width, principal point at the centre, doffs 0, baseline 1) so
  // readers that expect the lines find them; only width, height, ndisp and vmin/vmax matter.
  std::ostringstream calib;
  const double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1);
  calib << "cam0=[" << w << " 0 " << cx << "; 0 " << w << " " << cy << "; 0 0 1]\n"
        << "cam1=[" << w << " 0 " << cx << "; 0 " << w << " " << cy << "; 0 0 1]\n"
        << "doffs=0\n"
        << "baseline=1\n"
        << "width=" << w << "\n"
        << "height=" << h << "\n"
        << "ndisp=" << scene.levels << "\n"
        << "isint=" << (integral ? 1 : 0) << "\n"
        << "vmin=" << static_cast<long>(std::floor(vmin)) << "\n"
        << "vmax=" << static_cast<long>(std::ceil(vmax)) << "\n"
        << "dyavg=0\n"
        << "dymax=0\n";
  const std::filesystem::path calib_path = dir / "calib.txt";
  write_atomically(calib_path, [&](const std::filesystem::path& tmp) {
    std::ofstream out(tmp);
    out << calib.str();
    out.close();
    if (!out) throw Error("cannot write " + calib_path.string() + ": write failed");
  });
}

// ---- photometric check ---------------------------------------------------------------

namespace {

// warp_error's precondition: ground truth, and both views and it of one size.
void require_warpable(const Scene& scene) {
  require(scene.has_ground_truth(), "warp_error: scene " + scene.name + " has no ground truth");
  const ImageU8& l = scene.left;
  const ImageU8& r = scene.right;
  require(l.same_size(r.width, r.height) && l.channels == r.channels && scene.gt.same_size(l.width, l.height),
          "warp_error: scene " + scene.name + ": views and ground truth differ in size or channels");
}

// The mean absolute difference over the channels between pixel (x, y) of `view` and `other`
// sampled at (x_other, y), linear along the row.
double pixel_warp_error(const ImageU8& view, int x, int y, const ImageU8& other, double x_other) {
  double e = 0.0;
  for (int c = 0; c < view.channels; ++c) e += std::abs(view.at(x, y, c) - sample_row_linear(other, x_other, y, c));
  return e / view.channels;
}

}  // namespace

double warp_error(const Scene& scene, double gt_factor, double gt_offset) {
  require_warpable(scene);
  const ImageU8& l = scene.left;
  const ImageU8& r = scene.right;
  const bool masked = !scene.mask_nonocc.empty();
  double sum = 0.0;
  std::size_t count = 0;
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x) {
      const float g = scene.gt.at(x, y);
      if (!std::isfinite(g) || (masked && scene.mask_nonocc.at(x, y) != 255)) continue;
      const double xr = x - (gt_factor * g + gt_offset);
      if (!(xr >= 0.0 && xr <= l.width - 1.0)) continue;
      sum += pixel_warp_error(l, x, y, r, xr);
      ++count;
    }
  return count ? sum / static_cast<double>(count) : std::numeric_limits<double>::infinity();
}

double warp_error_right_view(const Scene& scene, double gt_factor) {
  require_warpable(scene);
  const ImageU8& l = scene.left;
  const ImageU8& r = scene.right;
  double sum = 0.0;
  std::size_t count = 0;
  for (int y = 0; y < r.height; ++y)
    for (int x = 0; x < r.width; ++x) {
      const float g = scene.gt.at(x, y);
      if (!std::isfinite(g)) continue;
      const double xl = x + gt_factor * g;
      if (!(xl >= 0.0 && xl <= l.width - 1.0)) continue;
      sum += pixel_warp_error(r, x, y, l, xl);
      ++count;
    }
  return count ? sum / static_cast<double>(count) : std::numeric_limits<double>::infinity();
}

// ---- NumPy arrays ----------------------------------------------------------------------
// .npy format (numpy.lib.format): the magic "\x93NUMPY", a major and minor version byte, the
// header length (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), then a
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (H, W), } padded
// with spaces and a newline, then the raw array.

ImageF parse_npy(const std::vector<std::uint8_t>& bytes, const std::string& what) {
  static constexpr std::uint8_t MAGIC[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  const std::string where = "npy: " + what + ": ";
  require(bytes.size() >= 10 && std::memcmp(bytes.data(), MAGIC, 6) == 0, where + "not a .npy file (bad magic)");
  const int major = bytes[6];
  require(major >= 1 && major <= 3, where + "unsupported format version " + std::to_string(major));
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  require(bytes.size() >= 8 + len_bytes, where + "truncated header");
  const std::size_t header_len = read_le(bytes.data() + 8, static_cast<int>(len_bytes));
  const std::size_t data_offset = 8 + len_bytes + header_len;
  require(data_offset <= bytes.size(), where + "truncated header");
  const std::string header(bytes.begin() + static_cast<std::ptrdiff_t>(8 + len_bytes),
                           bytes.begin() + static_cast<std::ptrdiff_t>(data_offset));

  auto value_after = [&](const std::string& key) {
    const std::size_t k = header.find("'" + key + "'");
    require(k != std::string::npos, where + "header has no '" + key + "': " + header);
    const std::size_t colon = header.find(':', k);
    require(colon != std::string::npos, where + "malformed header: " + header);
    std::size_t v = colon + 1;
    while (v < header.size() && header[v] == ' ') ++v;
    return v;
  };

  std::size_t v = value_after("descr");
  require(v < header.size() && (header[v] == '\'' || header[v] == '"'), where + "descr is not a string: " + header);
  const std::size_t end = header.find(header[v], v + 1);
  require(end != std::string::npos, where + "malformed descr: " + header);
  const std::string descr = header.substr(v + 1, end - v - 1);

  v = value_after("fortran_order");
  const bool fortran = header.compare(v, 4, "True") == 0;
  require(fortran || header.compare(v, 5, "False") == 0, where + "malformed fortran_order: " + header);

  v = value_after("shape");
  require(v < header.size() && header[v] == '(', where + "malformed shape: " + header);
  const std::size_t close = header.find(')', v);
  require(close != std::string::npos, where + "malformed shape: " + header);
  std::vector<std::size_t> shape;
  {
    std::string inner = header.substr(v + 1, close - v - 1);
    std::replace(inner.begin(), inner.end(), ',', ' ');
    std::istringstream in(inner);
    long long n = 0;
    while (in >> n) {
      require(n >= 0, where + "negative dimension in shape: " + header);
      shape.push_back(static_cast<std::size_t>(n));
    }
    require(in.eof(), where + "malformed shape: " + header);
  }
  require(shape.size() == 2 || shape.size() == 3,
          where + "expected a 2-D (H, W) or 3-D (H, W, C) array, got " + std::to_string(shape.size()) + " dimensions");
  const std::size_t hh = shape[0], ww = shape[1], cc = shape.size() == 3 ? shape[2] : 1;
  require(hh > 0 && ww > 0 && cc > 0 && hh < (1u << 20) && ww < (1u << 20) && cc <= 16,
          where + "unsupported shape " + header.substr(v, close - v + 1));

  require(descr.size() >= 3, where + "unsupported dtype '" + descr + "'");
  const char order = descr[0];
  const char kind = descr[1];
  const int size = std::atoi(descr.c_str() + 2);
  require(order == '<' || order == '|' || order == '=' || (order == '>' && size == 1),
          where + "big-endian dtype '" + descr + "' is not supported");
  const bool supported = (kind == 'f' && (size == 4 || size == 8)) || (kind == 'u' && (size == 1 || size == 2)) ||
                         (kind == 'i' && (size == 1 || size == 2 || size == 4)) || (kind == 'b' && size == 1);
  require(supported, where + "unsupported dtype '" + descr + "' (expected <f4, <f8, |u1, <u2, |i1, <i2 or <i4)");

  const std::size_t count = hh * ww * cc;
  require(bytes.size() - data_offset >= count * static_cast<std::size_t>(size),
          where + "truncated data: " + std::to_string(bytes.size() - data_offset) + " bytes for " +
              std::to_string(count) + " values of '" + descr + "'");

  ImageF img(static_cast<int>(ww), static_cast<int>(hh), static_cast<int>(cc));
  const std::uint8_t* data = bytes.data() + data_offset;
  for (std::size_t y = 0; y < hh; ++y)
    for (std::size_t x = 0; x < ww; ++x)
      for (std::size_t c = 0; c < cc; ++c) {
        const std::size_t src = fortran ? y + x * hh + c * hh * ww : (y * ww + x) * cc + c;
        const std::uint64_t raw = read_le(data + src * static_cast<std::size_t>(size), size);
        double value = 0.0;
        if (kind == 'f')
          value = size == 4 ? std::bit_cast<float>(static_cast<std::uint32_t>(raw)) : std::bit_cast<double>(raw);
        else if (kind == 'i')
          value = size == 1   ? static_cast<std::int8_t>(raw)
                  : size == 2 ? static_cast<std::int16_t>(raw)
                              : static_cast<std::int32_t>(raw);
        else
          value = static_cast<double>(raw);
        img.at(static_cast<int>(x), static_cast<int>(y), static_cast<int>(c)) = static_cast<float>(value);
      }
  return img;
}

ImageF read_npy(const std::filesystem::path& path) { return parse_npy(read_file(path), path.string()); }

// .npz is a zip archive (PKWARE APPNOTE) of .npy members. The central directory at the end
// gives each member's sizes and where its local header starts; NumPy writes members with
// zip64 extra fields, so the 64-bit records are followed where the 32-bit fields say 0xFFFFFFFF.
ImageF read_npz(const std::filesystem::path& path, const std::string& member) {
  const std::vector<std::uint8_t> zip = read_file(path);
  const std::string where = "npz: " + path.string() + ": ";
  auto need = [&](std::uint64_t offset, std::uint64_t length) {
    require(offset <= zip.size() && length <= zip.size() - offset, where + "truncated or corrupt zip archive");
  };
  auto u16 = [&](std::uint64_t at) { need(at, 2); return read_le(zip.data() + at, 2); };
  auto u32 = [&](std::uint64_t at) { need(at, 4); return read_le(zip.data() + at, 4); };
  auto u64 = [&](std::uint64_t at) { need(at, 8); return read_le(zip.data() + at, 8); };

  // End of central directory: 22 bytes plus a comment of at most 65535 bytes.
  require(zip.size() >= 22, where + "not a zip archive (too short)");
  std::uint64_t eocd = zip.size() - 22;
  const std::uint64_t stop = zip.size() >= 22 + 65535 ? zip.size() - 22 - 65535 : 0;
  while (u32(eocd) != 0x06054b50) {
    require(eocd > stop, where + "not a zip archive (no end-of-central-directory record)");
    --eocd;
  }
  std::uint64_t entries = u16(eocd + 10);
  std::uint64_t cd_offset = u32(eocd + 16);
  if (entries == 0xFFFF || cd_offset == 0xFFFFFFFF) {
    require(eocd >= 20 && u32(eocd - 20) == 0x07064b50, where + "zip64 archive without zip64 locator");
    const std::uint64_t z64 = u64(eocd - 20 + 8);
    require(u32(z64) == 0x06064b50, where + "corrupt zip64 end-of-central-directory record");
    entries = u64(z64 + 32);
    cd_offset = u64(z64 + 48);
  }

  std::vector<std::string> names;
  std::uint64_t at = cd_offset;
  for (std::uint64_t i = 0; i < entries; ++i) {
    require(u32(at) == 0x02014b50, where + "corrupt central directory");
    const std::uint64_t flags = u16(at + 8), method = u16(at + 10), crc = u32(at + 16);
    std::uint64_t packed = u32(at + 20), size = u32(at + 24), local = u32(at + 42);
    const std::uint64_t name_len = u16(at + 28), extra_len = u16(at + 30), comment_len = u16(at + 32);
    need(at + 46, name_len + extra_len);
    const std::string name(reinterpret_cast<const char*>(zip.data() + at + 46), name_len);
    // zip64 extended information: the 64-bit values present are, in this order, those whose
    // 32-bit fields are 0xFFFFFFFF.
    for (std::uint64_t e = at + 46 + name_len; e + 4 <= at + 46 + name_len + extra_len;) {
      const std::uint64_t id = u16(e), len = u16(e + 2);
      if (id == 0x0001) {
        std::uint64_t f = e + 4;
        if (size == 0xFFFFFFFF) size = u64(f), f += 8;
        if (packed == 0xFFFFFFFF) packed = u64(f), f += 8;
        if (local == 0xFFFFFFFF) local = u64(f), f += 8;
      }
      e += 4 + len;
    }
    at += 46 + name_len + extra_len + comment_len;
    names.push_back(name);
    const bool wanted = member.empty() || name == member || name == member + ".npy";
    if (!wanted) continue;

    require((flags & 1u) == 0, where + name + " is encrypted");
    require(method == 0 || method == 8, where + name + " uses compression method " + std::to_string(method) +
                                            " (only stored and deflated members are supported)");
    require(u32(local) == 0x04034b50, where + "corrupt local header of " + name);
    const std::uint64_t data_at = local + 30 + u16(local + 26) + u16(local + 28);
    need(data_at, packed);
    require(size < (1ull << 32) && packed < (1ull << 32), where + name + " is too large");

    std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
    if (method == 0) {
      require(packed == size, where + "stored member " + name + " has inconsistent sizes");
      std::memcpy(out.data(), zip.data() + data_at, out.size());
    } else {
      z_stream z{};
      require(inflateInit2(&z, -MAX_WBITS) == Z_OK, where + "zlib inflateInit2 failed");
      z.next_in = const_cast<Bytef*>(zip.data() + data_at);  // zlib's API is not const-correct
      z.avail_in = static_cast<uInt>(packed);
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(out.size());
      const int rc = inflate(&z, Z_FINISH);
      const std::uint64_t produced = z.total_out;
      const std::string message = z.msg ? z.msg : "";
      inflateEnd(&z);
      require(rc == Z_STREAM_END && produced == size,
              where + "cannot inflate " + name + " (zlib code " + std::to_string(rc) +
                  (message.empty() ? "" : ": " + message) + ")");
    }
    const std::uint64_t actual_crc = crc32(crc32(0L, Z_NULL, 0), out.data(), static_cast<uInt>(out.size()));
    require(actual_crc == crc, where + "CRC mismatch in " + name);
    return parse_npy(out, path.string() + ":" + name);
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw Error(where + (member.empty() ? "archive has no members" : "no member '" + member + "' (members: " + list + ")"));
}

}  // namespace stereo
