#include "app/dataset.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "core/error.h"
#include "app/image_io.h"

namespace stereo {
namespace fs = std::filesystem;
namespace {

constexpr float kUnknown = std::numeric_limits<float>::infinity();

bool file_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

ImageU8 read_mask(const fs::path& path, int width, int height, const std::string& scene) {
  ImageU8 mask = read_image(path);
  require(mask.channels == 1, scene + ": mask " + path.string() + " is not a grey image");
  require(mask.same_size(width, height), scene + ": mask " + path.string() + " is " + std::to_string(mask.width) +
                                             "x" + std::to_string(mask.height) + ", the images are " +
                                             std::to_string(width) + "x" + std::to_string(height));
  return mask;
}

// Keeps only the pixels equal to `value` (or > 0 when value is 0) as 255.
ImageU8 select_mask(const ImageU8& raw, int value) {
  ImageU8 out(raw.width, raw.height, 1);
  for (std::size_t i = 0; i < raw.data.size(); ++i)
    out.data[i] = (value == 0 ? raw.data[i] > 0 : raw.data[i] == value) ? 255 : 0;
  return out;
}

ImageU8 mask_of_finite(const ImageF& gt) {
  ImageU8 out(gt.width, gt.height, 1);
  for (std::size_t i = 0; i < gt.data.size(); ++i) out.data[i] = std::isfinite(gt.data[i]) ? 255 : 0;
  return out;
}

void load_views(Scene& s, const fs::path& left, const fs::path& right) {
  s.left = to_rgb(read_image(left));
  s.right = to_rgb(read_image(right));
  require(s.left.same_size(s.right.width, s.right.height),
          s.name + ": left is " + std::to_string(s.left.width) + "x" + std::to_string(s.left.height) +
              " but right is " + std::to_string(s.right.width) + "x" + std::to_string(s.right.height));
}

/// A ground-truth map read from `path` must have the views' size.
void check_gt_size(const Scene& s, const ImageF& gt, const fs::path& path) {
  require(gt.same_size(s.left.width, s.left.height),
          s.name + ": ground truth " + path.string() + " is " + std::to_string(gt.width) + "x" +
              std::to_string(gt.height) + ", the images are " + std::to_string(s.left.width) + "x" +
              std::to_string(s.left.height));
}

Scene load_middlebury_v2(const fs::path& dir) {
  Scene s;
  s.name = dir.filename().string();
  s.kind = SceneKind::middlebury_v2;
  load_views(s, dir / "left.png", dir / "right.png");
  const auto info = middlebury_v2_info(s.name);
  require(info.has_value(), s.name + ": not a Middlebury v2 scene this suite knows (tsukuba, venus, teddy, cones); "
                                     "its ground-truth scale is unknown");
  s.levels = info->levels;
  s.default_threshold = 1.0;
  const fs::path gt_path = dir / "gt.png";
  if (file_exists(gt_path)) {
    const ImageU8 raw = read_image(gt_path);
    require(raw.channels == 1, s.name + ": gt.png is not a grey image");
    s.gt = ImageF(raw.width, raw.height, 1);
    for (std::size_t i = 0; i < raw.data.size(); ++i)
      s.gt.data[i] = raw.data[i] == 0 ? kUnknown : float(raw.data[i]) / float(info->scale);
    check_gt_size(s, s.gt, gt_path);
    // v2 masks: 255 = evaluated (disc.png also holds 128 for other non-occluded pixels).
    if (file_exists(dir / "nonocc.png")) s.mask_nonocc = select_mask(read_mask(dir / "nonocc.png", s.left.width, s.left.height, s.name), 255);
    if (file_exists(dir / "all.png")) s.mask_all = select_mask(read_mask(dir / "all.png", s.left.width, s.left.height, s.name), 255);
    if (file_exists(dir / "disc.png")) s.mask_disc = select_mask(read_mask(dir / "disc.png", s.left.width, s.left.height, s.name), 255);
    if (s.mask_all.empty()) s.mask_all = mask_of_finite(s.gt);
  }
  return s;
}

std::map<std::string, std::string> read_calib(const fs::path& path) {
  std::ifstream in(path);
  require(bool(in), "cannot read " + path.string());
  std::map<std::string, std::string> kv;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}

Scene load_middlebury_v3(const fs::path& dir) {
  Scene s;
  s.name = dir.filename().string();
  s.kind = SceneKind::middlebury_v3;
  s.default_threshold = 2.0;
  load_views(s, dir / "im0.png", dir / "im1.png");
  const fs::path calib = dir / "calib.txt";
  // vmin < 0 (a verging rig): the search starts at floor(vmin) and still reaches ndisp - 1, and
  // negative ground truth is valid. Otherwise the range is MiddEval3's own, 0 .. ndisp - 1.
  double vmin = 0.0;
  if (file_exists(calib)) {
    const auto kv = read_calib(calib);
    const auto it = kv.find("ndisp");
    if (it != kv.end()) {
      try {
        s.levels = std::stoi(it->second);
      } catch (const std::exception&) {
        throw Error(s.name + ": calib.txt has a bad ndisp '" + it->second + "'");
      }
    }
    if (const auto v = kv.find("vmin"); v != kv.end()) {
      try {
        vmin = std::stod(v->second);
      } catch (const std::exception&) {
        throw Error(s.name + ": calib.txt has a bad vmin '" + v->second + "'");
      }
      require(std::isfinite(vmin), s.name + ": calib.txt has a non-finite vmin");
    }
  }
  require(s.levels >= 0, s.name + ": calib.txt has a negative ndisp " + std::to_string(s.levels));
  if (vmin < 0.0) {
    // Compared as a double before the conversion: a vmin beyond int's range would be undefined.
    require(std::floor(vmin) > -double(s.left.width), s.name + ": calib.txt vmin " + std::to_string(vmin) +
                                                           " is beyond the image width " + std::to_string(s.left.width));
    s.min_disparity = int(std::floor(vmin));
    if (s.levels > 0) {  // still up to ndisp - 1
      const long long levels = static_cast<long long>(s.levels) - s.min_disparity;
      require(levels <= std::numeric_limits<int>::max(), s.name + ": calib.txt ndisp " + std::to_string(s.levels) + " is too large");
      s.levels = static_cast<int>(levels);
    }
  }
  const fs::path gt_path = dir / "disp0GT.pfm";
  if (file_exists(gt_path)) {
    s.gt = read_pfm(gt_path);
    require(s.gt.channels == 1, s.name + ": disp0GT.pfm must have one channel");
    check_gt_size(s, s.gt, gt_path);
    for (float& v : s.gt.data)
      if (!std::isfinite(v) || v < float(s.min_disparity)) v = kUnknown;
    s.mask_all = mask_of_finite(s.gt);
    const fs::path mask_path = dir / "mask0nocc.png";
    if (file_exists(mask_path)) {
      const ImageU8 raw = read_mask(mask_path, s.left.width, s.left.height, s.name);
      s.mask_nonocc = select_mask(raw, 255);
      const ImageU8 all = select_mask(raw, 0);
      for (std::size_t i = 0; i < all.data.size(); ++i) s.mask_all.data[i] = std::min(s.mask_all.data[i], all.data[i]);
      for (std::size_t i = 0; i < all.data.size(); ++i)
        s.mask_nonocc.data[i] = std::min(s.mask_nonocc.data[i], s.mask_all.data[i]);
    }
    if (s.levels == 0) {
      float max_d = 0.0f;
      for (float v : s.gt.data)
        if (std::isfinite(v)) max_d = std::max(max_d, v);
      require(max_d < float(s.left.width), s.name + ": disp0GT.pfm holds disparity " + std::to_string(max_d) +
                                               ", beyond the image width " + std::to_string(s.left.width));
      s.levels = int(std::ceil(max_d)) + 1 - s.min_disparity;
    }
  }
  require(s.levels > 0, s.name + ": calib.txt gives no ndisp and there is no ground truth to infer it from");
  return s;
}

// The two KITTI stereo benchmarks' training folders: the same frames (<id>_10.png is the pair
// at the reference time), ground truth as 16-bit PNG disparity * 256 with 0 = unknown, under
// different folder names.
struct KittiLayout {
  const char* year;
  const char* left;   // the reference (left) colour camera
  const char* right;
  const char* occ;    // all pixels with ground truth
  const char* noc;    // non-occluded pixels only
};
constexpr KittiLayout KITTI_2015{"2015", "image_2", "image_3", "disp_occ_0", "disp_noc_0"};
constexpr KittiLayout KITTI_2012{"2012", "colored_0", "colored_1", "disp_occ", "disp_noc"};

const KittiLayout* kitti_layout(const fs::path& dir) {
  if (file_exists(dir / KITTI_2015.left)) return &KITTI_2015;
  if (file_exists(dir / KITTI_2012.left)) return &KITTI_2012;
  return nullptr;
}

std::vector<Scene> load_kitti(const fs::path& dir, const KittiLayout& layout) {
  std::vector<fs::path> frames;
  std::error_code ec;
  fs::directory_iterator listing(dir / layout.left, ec);
  require(!ec, dir.string() + ": cannot list KITTI " + layout.year + " folder " + layout.left + ": " + ec.message());
  for (const auto& e : listing) {
    const std::string n = e.path().filename().string();
    if (n.size() > 7 && n.substr(n.size() - 7) == "_10.png") frames.push_back(e.path());
  }
  std::sort(frames.begin(), frames.end());
  require(!frames.empty(), dir.string() + ": KITTI " + layout.year + " folder has no " + layout.left +
                               "/*_10.png frames");
  std::vector<Scene> scenes;
  for (const fs::path& left : frames) {
    Scene s;
    s.name = left.stem().string();
    s.kind = SceneKind::kitti;
    s.levels = 256;  // KITTI 2012/2015 disparities stay below 256 px
    s.default_threshold = 3.0;
    load_views(s, left, dir / layout.right / left.filename());
    const fs::path occ = dir / layout.occ / left.filename();
    if (file_exists(occ)) {
      s.gt = read_disparity_png16(occ);
      check_gt_size(s, s.gt, occ);
      s.mask_all = mask_of_finite(s.gt);
      const fs::path noc = dir / layout.noc / left.filename();
      if (file_exists(noc)) {
        const ImageF noc_gt = read_disparity_png16(noc);
        check_gt_size(s, noc_gt, noc);
        s.mask_nonocc = mask_of_finite(noc_gt);
      }
    }
    scenes.push_back(std::move(s));
  }
  return scenes;
}

}  // namespace

const char* to_string(SceneKind kind) {
  switch (kind) {
    case SceneKind::middlebury_v2: return "middlebury-v2";
    case SceneKind::middlebury_v3: return "middlebury-v3";
    case SceneKind::kitti: return "kitti";
    case SceneKind::plain: return "plain";
  }
  return "?";
}

std::optional<V2SceneInfo> middlebury_v2_info(const std::string& scene_name) {
  std::string n = scene_name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (n == "tsukuba") return V2SceneInfo{16, 16};
  if (n == "venus") return V2SceneInfo{8, 20};
  if (n == "teddy") return V2SceneInfo{4, 60};
  if (n == "cones") return V2SceneInfo{4, 60};
  return std::nullopt;
}

bool is_scene_folder(const fs::path& dir) {
  return (file_exists(dir / "left.png") && file_exists(dir / "right.png")) ||
         (file_exists(dir / "im0.png") && file_exists(dir / "im1.png")) || kitti_layout(dir) != nullptr;
}

Scene load_scene(const fs::path& dir) {
  require(file_exists(dir), "cannot read " + dir.string() + ": no such file or folder");
  if (file_exists(dir / "left.png") && file_exists(dir / "right.png")) return load_middlebury_v2(dir);
  if (file_exists(dir / "im0.png") && file_exists(dir / "im1.png")) return load_middlebury_v3(dir);
  if (const KittiLayout* kitti = kitti_layout(dir)) {
    auto scenes = load_kitti(dir, *kitti);
    require(scenes.size() == 1, dir.string() + ": a KITTI folder holds " + std::to_string(scenes.size()) +
                                    " pairs; evaluate it as a dataset");
    return std::move(scenes.front());
  }
  throw Error(dir.string() + ": not a scene folder (expected left.png+right.png, im0.png+im1.png, image_2/ (KITTI 2015) or colored_0/ (KITTI 2012))");
}

std::vector<std::string> sequence_names(const fs::path& left_dir, const fs::path& right_dir,
                                        const std::string& component) {
  std::error_code ec;
  require(fs::is_directory(left_dir, ec), component + ": left folder " + left_dir.string() + " does not exist");
  require(fs::is_directory(right_dir, ec), component + ": right folder " + right_dir.string() + " does not exist");
  const auto is_image_name = [](const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".png" || ext == ".ppm" || ext == ".pgm" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp" ||
           ext == ".tga";
  };
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(left_dir))
    if (e.is_regular_file() && is_image_name(e.path())) names.push_back(e.path().filename().string());
  require(!names.empty(), component + ": no images (png, ppm, pgm, jpg, bmp, tga) in " + left_dir.string());
  std::sort(names.begin(), names.end());
  return names;
}

Scene load_pair(const fs::path& left, const fs::path& right, int levels) {
  Scene s;
  s.name = left.stem().string();
  s.kind = SceneKind::plain;
  load_views(s, left, right);
  s.levels = levels;
  return s;
}

std::vector<Scene> load_dataset(const fs::path& path) {
  require(file_exists(path), "cannot read " + path.string() + ": no such file or folder");
  if (const KittiLayout* kitti = kitti_layout(path)) return load_kitti(path, *kitti);
  if (is_scene_folder(path)) return {load_scene(path)};
  std::vector<fs::path> dirs;
  std::error_code ec;
  fs::directory_iterator listing(path, ec);
  require(!ec, "cannot read " + path.string() + ": " + ec.message());
  for (const auto& e : listing)
    if (e.is_directory() && is_scene_folder(e.path())) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  require(!dirs.empty(), path.string() + ": no scene folders in it");
  std::vector<Scene> scenes;
  for (const fs::path& d : dirs) scenes.push_back(load_scene(d));
  return scenes;
}

namespace {
fs::path& data_root_override() {
  static fs::path dir;
  return dir;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}
}  // namespace

void set_data_root(const fs::path& dir) { data_root_override() = dir; }

std::string data_root_origin() {
  if (!data_root_override().empty()) return "--data";
  if (!env("STEREO_DATA").empty()) return "STEREO_DATA";
  // XDG: a relative XDG_DATA_HOME is invalid and ignored.
  if (fs::path(env("XDG_DATA_HOME")).is_absolute()) return "XDG_DATA_HOME";
  return "default";
}

fs::path data_root() {
  if (!data_root_override().empty()) return data_root_override();
  if (const std::string d = env("STEREO_DATA"); !d.empty()) return d;
  if (const fs::path xdg = env("XDG_DATA_HOME"); xdg.is_absolute()) return xdg / "stereo";
  const std::string home = env("HOME");
  require(!home.empty(), "data: neither STEREO_DATA, XDG_DATA_HOME nor HOME is set; pass --data DIR");
  return fs::path(home) / ".local" / "share" / "stereo";
}

std::string missing_data_hint(const std::string& dataset) {
  const std::string top = dataset.substr(0, dataset.find('/'));
  return "no " + dataset + " under the data root " + data_root().string() + " (" + data_root_origin() +
         "); install it with: stereo data get " + top;
}

fs::path resolve_dataset(const std::string& arg) {
  std::error_code ec;
  if (fs::exists(arg, ec)) return arg;
  const fs::path p(arg);
  if (!p.is_absolute() && !arg.empty() && arg[0] != '.') {
    const fs::path named = data_root() / p;
    if (fs::exists(named, ec)) return named;
    throw Error("cannot read " + arg + ": no such file or folder, and " + missing_data_hint(arg));
  }
  throw Error("cannot read " + arg + ": no such file or folder");
}

}  // namespace stereo
