#pragma once
/// \file app/view/sequence_player.h
/// A sequence played in the window at the rate `stereo stream` reaches: the matcher's own
/// pipelined Matcher::match_sequence (CUDA slots and streams: upload of frame n+1 and read-back
/// of frame n-1 beside the stages of frame n) on a thread of its own, pairs read several at
/// once ahead of it (parallel::spread_sequence, as `stream` reads them), each map handed to the
/// window as it comes. The window takes the newest one each time it draws, so it never holds
/// the matcher back; frames it was too slow to draw are counted, not shown.
///
/// The matcher is borrowed: nothing else may use it until the player is stopped (the window
/// stops it before any change). Not for GL backends, whose context belongs to the window's
/// thread (those play frame by frame, app/view/viewer_window.cpp).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "app/dataset.h"
#include "core/matcher.h"

namespace stereo::view {

class ViewInput;

class SequencePlayer {
 public:
  /// Starts matching `count` frames of `input`'s sequence from frame `first` (wrapping at its
  /// end) on `matcher` over `range`, `readers` pairs read at once. `keep_views`: keep each
  /// frame's images for the views panel (a copy of the pair per frame).
  SequencePlayer(Matcher& matcher, DisparityRange range, const ViewInput& input, std::size_t first,
                 std::size_t count, std::size_t readers, bool keep_views);
  /// Stops and waits for the thread.
  ~SequencePlayer();
  SequencePlayer(const SequencePlayer&) = delete;
  SequencePlayer& operator=(const SequencePlayer&) = delete;

  /// A matched frame: its index in the sequence, its pair (images only with keep_views), its map.
  struct Frame {
    std::size_t index = 0;
    Scene scene;
    DisparityMap map;
    Timing timing;
  };
  /// The newest frame matched since the last take(), if any (older ones are dropped).
  std::optional<Frame> take();
  /// The same, waiting until `deadline` for one when none is there yet (returns at once when
  /// the play has ended): the window sleeps instead of drawing the same map again.
  std::optional<Frame> take_by(std::chrono::steady_clock::time_point deadline);
  /// Asks the thread to stop after the frames in flight, and waits for it.
  void stop();
  /// True once the thread has ended: every frame matched, stopped, or an error.
  [[nodiscard]] bool finished() const { return finished_.load(); }
  /// The error that ended the play ("" for none; a stop is none).
  [[nodiscard]] std::string error() const;
  /// Frames matched so far, and the seconds from the start to the last of them.
  [[nodiscard]] std::size_t matched() const { return matched_.load(); }
  [[nodiscard]] double seconds() const;
  /// Seconds from the first map to the last (0 before the second): the steady rate's span,
  /// over matched() - 1 frames, as `stream` reports its steady state.
  [[nodiscard]] double steady_seconds() const;

 private:
  struct Stopped {};  // thrown by the pair source once stop() was asked
  void run(Matcher& matcher, DisparityRange range, const ViewInput& input, std::size_t first, std::size_t count,
           std::size_t readers, bool keep_views, int width, int height);

  std::atomic<bool> stop_{false}, finished_{false};
  std::atomic<std::size_t> matched_{0};
  mutable std::mutex mutex_;
  std::condition_variable matched_cv_;  // a frame matched, or the play ended
  std::map<std::size_t, Scene> read_;  // frames read and not yet matched, by position in the play
  std::optional<Frame> newest_;
  std::string error_;
  std::chrono::steady_clock::time_point start_, first_, last_;
  std::thread thread_;
};

}  // namespace stereo::view
