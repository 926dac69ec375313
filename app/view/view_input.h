#pragma once
/// \file app/view/view_input.h
/// What `stereo view` shows: one pair (with optional ground truth), one scene folder in any
/// format `eval` reads, or a sequence of pairs (LEFT_DIR and RIGHT_DIR paired by file name, as
/// `stereo stream` pairs them). The next frame of a sequence is read on a thread while the
/// current one is matched, so the window plays at the matcher's rate, not the decoder's.

#include <cstddef>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/dataset.h"

namespace stereo::view {

class ViewInput {
 public:
  /// LEFT RIGHT: a plain pair over `levels` (0 = 64) from `min_disparity`; `gt` (PFM, or a
  /// 16-bit KITTI PNG) is its ground truth when given.
  static ViewInput pair(const std::filesystem::path& left, const std::filesystem::path& right, int levels,
                        int min_disparity, const std::filesystem::path& gt = {});
  /// SCENE_DIR: what `eval` reads there (dataset.h's layouts: a scene folder, a KITTI training
  /// folder, a folder of scenes), levels and ground truth included; several scenes are stepped
  /// through as the frames of a sequence are.
  static ViewInput scene(const std::filesystem::path& dir);
  /// LEFT_DIR RIGHT_DIR: a sequence; every frame must have the first frame's size.
  static ViewInput sequence(const std::filesystem::path& left_dir, const std::filesystem::path& right_dir, int levels,
                            int min_disparity);
  /// Whichever of the three `a` and `b` name (b empty: a scene folder; two folders: a sequence).
  static ViewInput open(const std::string& a, const std::string& b, int levels, int min_disparity,
                        const std::string& gt);

  ViewInput(ViewInput&&) = default;
  ViewInput& operator=(ViewInput&&) = default;
  ~ViewInput();

  /// The pair shown now, with what ground truth it has.
  [[nodiscard]] const Scene& current() const { return scene_; }
  [[nodiscard]] bool is_sequence() const { return frame_count() > 1; }
  /// A sequence of image files (LEFT_DIR RIGHT_DIR), whose frames read_frame() reads.
  [[nodiscard]] bool is_file_sequence() const { return !names_.empty(); }
  [[nodiscard]] std::size_t frame_count() const { return names_.empty() ? scenes_.size() : names_.size(); }
  [[nodiscard]] std::size_t frame() const { return frame_; }
  /// Reads frame `index` of a sequence (without waiting when it was read ahead), and starts
  /// reading the frames after it, several at once (AHEAD, as `stream --readers` does). Throws stereo::Error naming the frame
  /// and the file; the current frame is then unchanged.
  void go_to(std::size_t index);
  /// Reads frame `index` of a sequence from its files (no read-ahead, nothing changed here):
  /// safe from several threads at once, as long as this input is not replaced meanwhile.
  [[nodiscard]] Scene read_frame(std::size_t index) const;
  /// Throws the one line naming frame `index` and its file when `frame` (read from it) is not
  /// `width` x `height`, the sequence's size.
  void check_size(std::size_t index, const Scene& frame, int width, int height) const;
  /// Makes `scene`, frame `index` as read_frame() gave it, the one shown (a frame a
  /// SequencePlayer matched), without reading anything. A scene without images (a player that
  /// kept none) moves the index only; the pair shown stays.
  void show(std::size_t index, Scene scene);
  /// Frames read at once ahead of the one shown: a 1080p pair takes tens of ms to decode,
  /// more than the fast matchers' frame.
  static std::size_t ahead_count();
  /// What the input is, for the window's title and status line.
  [[nodiscard]] const std::string& description() const { return description_; }

 private:
  ViewInput() = default;
  /// Keeps frames index, index+1, ... (wrapping; at most AHEAD) read or being read.
  void read_ahead(std::size_t index);

  Scene scene_;
  std::vector<Scene> scenes_;  // a dataset's scenes, or the one pair
  std::string description_;
  std::filesystem::path left_dir_, right_dir_;
  int levels_ = 0, min_disparity_ = 0;
  std::vector<std::string> names_;
  std::size_t frame_ = 0;
  std::map<std::size_t, std::future<Scene>> ahead_;  // by frame index
};

}  // namespace stereo::view
