// The viewer's input: a pair, a dataset's scenes, or a sequence read several frames ahead.

#include "app/view/view_input.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <utility>

#include "app/image_io.h"
#include "core/error.h"
#include "core/thread_pool.h"

namespace stereo::view {
namespace fs = std::filesystem;

namespace {

constexpr int DEFAULT_LEVELS = 64;  // `stereo run -d`'s default

ImageF read_ground_truth(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".pfm") return read_pfm(path);
  if (ext == ".png") {
    // IHDR's bit depth is byte 24 of a PNG; an 8-bit one (Middlebury v2's scaled gt.png) would
    // read as a KITTI map of nonsense.
    std::ifstream in(path, std::ios::binary);
    char header[25] = {};
    in.read(header, sizeof header);
    require(!in || header[24] == 16,
            "view: --gt " + path.string() + " is not a 16-bit PNG: ground truth is PFM or a 16-bit KITTI PNG (a " +
                "scene folder brings its own: stereo view SCENE_DIR)",
            ErrorKind::invalid_argument);
    return read_disparity_png16(path);
  }
  throw Error("view: --gt " + path.string() + ": ground truth must be PFM or a 16-bit KITTI PNG",
              ErrorKind::invalid_argument);
}

// Everything by value: the read-ahead thread must not see the ViewInput, which may move meanwhile.
Scene load_frame(const fs::path& left, const fs::path& right, const std::string& name, std::size_t index, int levels,
                 int min_disparity) {
  try {
    Scene s = load_pair(left, right, levels);
    s.min_disparity = min_disparity;
    s.name = name;
    return s;
  } catch (const std::exception& e) {
    throw Error("view: frame " + std::to_string(index) + " (" + name + "): " + e.what());
  }
}

}  // namespace

ViewInput::~ViewInput() {
  // Reads still in flight finish before the input's folders go away.
  for (auto& [index, read] : ahead_)
    if (read.valid()) read.wait();
}

ViewInput ViewInput::pair(const fs::path& left, const fs::path& right, int levels, int min_disparity,
                          const fs::path& gt) {
  ViewInput in;
  in.scene_ = load_pair(left, right, levels > 0 ? levels : DEFAULT_LEVELS);
  in.scene_.min_disparity = min_disparity;
  if (!gt.empty()) {
    in.scene_.gt = read_ground_truth(gt);
    require(in.scene_.gt.same_size(in.scene_.left.width, in.scene_.left.height),
            "view: --gt " + gt.string() + " is " + std::to_string(in.scene_.gt.width) + "x" +
                std::to_string(in.scene_.gt.height) + ", the pair " + std::to_string(in.scene_.left.width) + "x" +
                std::to_string(in.scene_.left.height),
            ErrorKind::invalid_argument);
  }
  in.scenes_ = {in.scene_};
  in.description_ = left.filename().string() + " / " + right.filename().string();
  return in;
}

ViewInput ViewInput::scene(const fs::path& dir) {
  ViewInput in;
  in.scenes_ = load_dataset(resolve_dataset(dir.string()));  // a path, or a name under the data root
  in.scene_ = in.scenes_.front();
  in.description_ = dir.filename().string();
  return in;
}

ViewInput ViewInput::sequence(const fs::path& left_dir, const fs::path& right_dir, int levels, int min_disparity) {
  ViewInput in;
  in.names_ = sequence_names(left_dir, right_dir, "view");
  in.left_dir_ = left_dir;
  in.right_dir_ = right_dir;
  in.levels_ = levels > 0 ? levels : DEFAULT_LEVELS;
  in.min_disparity_ = min_disparity;
  in.scene_ = in.read_frame(0);
  in.read_ahead(1);  // the frames after the first
  in.description_ = left_dir.filename().string() + " / " + right_dir.filename().string();
  return in;
}

ViewInput ViewInput::open(const std::string& a, const std::string& b, int levels, int min_disparity,
                          const std::string& gt) {
  std::error_code ec;
  if (b.empty()) {
    require(gt.empty(), "view: --gt goes with LEFT RIGHT; a scene folder brings its own ground truth",
            ErrorKind::invalid_argument);
    return scene(a);
  }
  if (fs::is_directory(a, ec) && fs::is_directory(b, ec)) {
    require(gt.empty(), "view: --gt goes with LEFT RIGHT, not with a sequence", ErrorKind::invalid_argument);
    return sequence(a, b, levels, min_disparity);
  }
  return pair(a, b, levels, min_disparity, gt);
}

Scene ViewInput::read_frame(std::size_t index) const {
  require(index < names_.size(), "view: frame " + std::to_string(index) + " of " + std::to_string(names_.size()),
          ErrorKind::invalid_argument);
  return load_frame(left_dir_ / names_[index], right_dir_ / names_[index], names_[index], index, levels_, min_disparity_);
}

std::size_t ViewInput::ahead_count() { return std::clamp<std::size_t>(ThreadPool::hardware_threads(), 1, 8); }

void ViewInput::read_ahead(std::size_t index) {
  if (names_.empty() || index >= names_.size()) return;
  std::set<std::size_t> wanted;
  for (std::size_t k = 0; k < std::min(ahead_count(), names_.size()); ++k) wanted.insert((index + k) % names_.size());
  for (auto it = ahead_.begin(); it != ahead_.end();) {  // frames no longer ahead: finish and drop
    if (wanted.count(it->first) != 0) {
      ++it;
      continue;
    }
    if (it->second.valid()) it->second.wait();
    it = ahead_.erase(it);
  }
  for (const std::size_t i : wanted)
    if (ahead_.count(i) == 0)
      ahead_.emplace(i, std::async(std::launch::async, [left = left_dir_ / names_[i], right = right_dir_ / names_[i],
                                                          name = names_[i], i, levels = levels_, min = min_disparity_] {
                       return load_frame(left, right, name, i, levels, min);
                     }));
}

void ViewInput::check_size(std::size_t index, const Scene& frame, int width, int height) const {
  require(frame.left.width == width && frame.left.height == height, [&] {
    return "view: frame " + std::to_string(index) + " (" + names_[index] + ") is " + std::to_string(frame.left.width) +
           "x" + std::to_string(frame.left.height) + ", the sequence " + std::to_string(width) + "x" +
           std::to_string(height);
  });
}

void ViewInput::show(std::size_t index, Scene scene) {
  require(index < frame_count(), "view: frame " + std::to_string(index) + " of " + std::to_string(frame_count()),
          ErrorKind::invalid_argument);
  if (!scene.left.empty()) scene_ = std::move(scene);
  frame_ = index;
}

void ViewInput::go_to(std::size_t index) {
  require(index < frame_count(), "view: frame " + std::to_string(index) + " of " + std::to_string(frame_count()),
          ErrorKind::invalid_argument);
  if (names_.empty()) {
    scene_ = scenes_[index];
    frame_ = index;
    return;
  }
  Scene next;
  if (const auto it = ahead_.find(index); it != ahead_.end() && it->second.valid()) {
    std::future<Scene> read = std::move(it->second);
    ahead_.erase(it);
    next = read.get();  // rethrows the read's error; the current frame stays
  } else {
    next = read_frame(index);
  }
  check_size(index, next, scene_.left.width, scene_.left.height);
  scene_ = std::move(next);
  frame_ = index;
  read_ahead(index + 1 < names_.size() ? index + 1 : 0);
}

}  // namespace stereo::view
