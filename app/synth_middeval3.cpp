// The MiddEval3 folder layout (app/synth.h): a scene written as load_scene() reads it, the
// non-occlusion mask derived from a ground truth, and the timing pair.

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "app/image_io.h"
#include "app/synth.h"

namespace stereo {
namespace {

constexpr float INF = std::numeric_limits<float>::infinity();

}  // namespace

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

}  // namespace stereo
