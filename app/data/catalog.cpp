#include "app/data/catalog.h"

#include <algorithm>

#include "app/image_io.h"
#include "core/error.h"

namespace stereo::data {
namespace fs = std::filesystem;
namespace {

// ---- Middlebury v2 (the second evaluation's four scenes, one file at a time) ------------------

constexpr const char* V2_BASE = "https://vision.middlebury.edu/stereo/eval/newEval/";
const char* const V2_SCENES[] = {"tsukuba", "venus", "teddy", "cones"};
// The evaluation's file name and the name app/dataset.cpp reads.
const char* const V2_FILES[][2] = {{"imL.png", "left.png"},   {"imR.png", "right.png"}, {"groundtruth.png", "gt.png"},
                                   {"nonocc.png", "nonocc.png"}, {"all.png", "all.png"},   {"disc.png", "disc.png"}};

Dataset middlebury_v2() {
  Dataset d{"middlebury-v2", "Middlebury v2 evaluation: Tsukuba, Venus, Teddy, Cones with nonocc/all/disc masks",
            "https://vision.middlebury.edu/stereo/eval/", "~2 MB", true, {}, {}};
  for (const char* scene : V2_SCENES)
    for (const auto& f : V2_FILES) d.sources.push_back({std::string(V2_BASE) + scene + "/" + f[0], "", false});
  d.arrange = [](const fs::path& unpacked, const fs::path& out) {
    for (const char* scene : V2_SCENES) {
      fs::create_directories(out / scene);
      for (const auto& f : V2_FILES) {
        const Source src{std::string(V2_BASE) + scene + "/" + f[0], "", false};
        const fs::path to = out / scene / f[1];
        fs::rename(unpacked / src.staging_name(), to);
        if (std::string(f[1]) != "left.png" && std::string(f[1]) != "right.png") make_grey(to);
      }
    }
  };
  return d;
}

// ---- MiddEval3 training (images and ground truth in two zips per resolution) ------------------

Dataset middeval3(char res, const char* folder, const char* size) {
  const std::string base = "https://vision.middlebury.edu/stereo/submit3/zip/MiddEval3-";
  Dataset d{folder, std::string("MiddEval3 training at ") + (res == 'Q' ? "quarter" : res == 'H' ? "half" : "full") +
                        " resolution: 15 pairs, disp0GT.pfm and mask0nocc.png",
            "https://vision.middlebury.edu/stereo/submit3/", size, true,
            {{base + "data-" + res + ".zip", "", true}, {base + "GT0-" + res + ".zip", "", true}}, {}};
  const std::string training = std::string("training") + res;
  d.arrange = [training](const fs::path& unpacked, const fs::path& out) {
    const int n = merge_scene_folders(unpacked, out, "im0.png", training);
    require(n > 0, "data: the MiddEval3 archives hold no " + training + "/<scene>/im0.png");
    merge_scene_folders(unpacked, out, "disp0GT.pfm", training);
  };
  return d;
}

// ---- Middlebury 2014 (one zip per scene; the "perfect" rectification) ------------------------

const char* const SCENES_2014[] = {"Adirondack", "Backpack", "Bicycle1", "Cable",   "Classroom1", "Couch",
                                   "Flowers",    "Jadeplant", "Mask",    "Motorcycle", "Piano",   "Pipes",
                                   "Playroom",   "Playtable", "Recycle", "Shelves", "Shopvac",    "Sticks",
                                   "Storage",    "Sword1",    "Sword2",  "Umbrella", "Vintage"};

constexpr const char* ZIP_2014 = "https://vision.middlebury.edu/stereo/data/scenes2014/zip/";

Dataset middlebury_2014() {
  Dataset d{"middlebury-2014", "Middlebury 2014: 23 scenes at full size with disp0 ground truth (perfect rectification)",
            "https://vision.middlebury.edu/stereo/data/scenes2014/", "~6 GB", true, {}, {}};
  for (const char* s : SCENES_2014)
    d.sources.push_back({std::string(ZIP_2014) + s + "-perfect.zip", "", true});
  d.arrange = [](const fs::path& unpacked, const fs::path& out) {
    for (const char* s : SCENES_2014) {
      const fs::path tmp = out / ".2014";
      const Source src{std::string(ZIP_2014) + s + "-perfect.zip", "", true};
      const int n = merge_scene_folders(unpacked / src.staging_name(), tmp, "im0.png", "");
      require(n == 1, "data: " + std::string(s) + "-perfect.zip holds " + std::to_string(n) + " scene folders, expected 1");
      const fs::path scene = fs::directory_iterator(tmp)->path();
      // app/dataset.cpp reads MiddEval3's name for the left view's ground truth.
      require(fs::exists(scene / "disp0.pfm"), "data: " + std::string(s) + "-perfect.zip has no disp0.pfm");
      fs::rename(scene / "disp0.pfm", scene / "disp0GT.pfm");
      fs::rename(scene, out / s);
      fs::remove(tmp);
    }
  };
  return d;
}

// ---- ETH3D two-view training (images and ground truth in two 7z archives) --------------------

Dataset eth3d() {
  Dataset d{"eth3d-two-view", "ETH3D low-res two-view training: 27 grey pairs, disp0GT.pfm and mask0nocc.png",
            "https://www.eth3d.net/datasets", "~40 MB", true,
            {{"https://www.eth3d.net/data/two_view_training.7z", "", true},
             {"https://www.eth3d.net/data/two_view_training_gt.7z", "", true}},
            {}};
  d.arrange = [](const fs::path& unpacked, const fs::path& out) {
    require(merge_scene_folders(unpacked, out, "im0.png", "") > 0, "data: the ETH3D archive holds no <scene>/im0.png");
    merge_scene_folders(unpacked, out, "disp0GT.pfm", "");
  };
  return d;
}

// ---- KITTI (registration: `stereo data add`) -------------------------------------------------

Dataset kitti(const char* name, const char* title, const char* archive, const char* left) {
  Dataset d{name, title, "https://www.cvlibs.net/datasets/kitti/", "~2 GB", false,
            {{std::string("https://www.cvlibs.net/download.php?file=") + archive, "", true}}, {}};
  const std::string key = left;
  d.arrange = [key](const fs::path& unpacked, const fs::path& out) {
    // training/ holds the ground truth (disp_occ*, disp_noc*); testing/ has none.
    for (const auto& e : fs::recursive_directory_iterator(unpacked)) {
      if (e.is_directory() && e.path().filename() == "training" && fs::is_directory(e.path() / key)) {
        fs::rename(e.path(), out);
        return;
      }
    }
    throw Error("data: the archive has no training/" + key + "/ folder");
  };
  return d;
}

}  // namespace

std::string Source::staging_name() const {
  // The URL's path without its scheme and host, '/' as '_': unique within a dataset.
  std::string path = url;
  if (const auto scheme = path.find("://"); scheme != std::string::npos) path = path.substr(scheme + 3);
  if (const auto slash = path.find('/'); slash != std::string::npos) path = path.substr(slash + 1);
  std::replace(path.begin(), path.end(), '/', '_');
  return path;
}

int merge_scene_folders(const fs::path& unpacked, const fs::path& out, const std::string& key_file,
                        const std::string& path_filter) {
  std::vector<fs::path> scenes;
  for (auto it = fs::recursive_directory_iterator(unpacked); it != fs::recursive_directory_iterator(); ++it) {
    if (it.depth() > 4) it.disable_recursion_pending();
    const fs::path& dir = it->path();
    if (it->is_directory() && fs::exists(dir / key_file) &&
        (path_filter.empty() || dir.string().find(path_filter) != std::string::npos))
      scenes.push_back(dir);
  }
  for (const fs::path& dir : scenes) {
    const fs::path to = out / dir.filename();
    fs::create_directories(to);
    for (const auto& f : fs::directory_iterator(dir)) fs::rename(f.path(), to / f.path().filename());
  }
  return static_cast<int>(scenes.size());
}

void make_grey(const fs::path& png) {
  const ImageU8 img = read_image(png);
  if (img.channels == 1) return;
  require(img.channels >= 3, "data: " + png.string() + " has " + std::to_string(img.channels) + " channels");
  ImageU8 grey(img.width, img.height, 1);
  const auto c = static_cast<std::size_t>(img.channels);
  for (std::size_t i = 0; i < grey.data.size(); ++i) {
    const std::uint8_t r = img.data[i * c], g = img.data[i * c + 1], b = img.data[i * c + 2];
    require(r == g && g == b, "data: " + png.string() + " is not grey (pixel " + std::to_string(i) + ")");
    grey.data[i] = r;
  }
  write_png(png, grey);
}

const std::vector<Dataset>& catalog() {
  static const std::vector<Dataset> all = {
      middlebury_v2(),
      middeval3('Q', "middlebury-v3-quarter", "~40 MB"),
      middeval3('H', "middlebury-v3-half", "~160 MB"),
      middeval3('F', "middlebury-v3-full", "~600 MB"),
      middlebury_2014(),
      eth3d(),
      kitti("kitti-2015", "KITTI 2015 scene flow training: 200 pairs (data_scene_flow.zip, after registration)",
            "data_scene_flow.zip", "image_2"),
      kitti("kitti-2012", "KITTI 2012 stereo training: 194 pairs (data_stereo_flow.zip, after registration)",
            "data_stereo_flow.zip", "colored_0"),
  };
  return all;
}

const Dataset& find_dataset(const std::string& name) {
  std::string known;
  for (const Dataset& d : catalog()) {
    if (d.name == name) return d;
    known += (known.empty() ? "" : ", ") + d.name;
  }
  throw Error("data: no dataset named '" + name + "' (known: " + known + ")");
}

}  // namespace stereo::data
