// A sequence matched on a thread of its own through the matcher's pipelined match_sequence
// (app/view/sequence_player.h).

#include "app/view/sequence_player.h"

#include <exception>
#include <utility>

#include "app/parallel/device_pool.h"
#include "app/view/view_input.h"

namespace stereo::view {

SequencePlayer::SequencePlayer(Matcher& matcher, DisparityRange range, const ViewInput& input, std::size_t first,
                               std::size_t count, std::size_t readers, bool keep_views)
    : start_(std::chrono::steady_clock::now()), last_(start_) {
  // The sequence's size is the frame shown now; a frame of another size stops the play with
  // the line that names it (ViewInput::check_size), before the matcher sees it.
  const int width = input.current().left.width, height = input.current().left.height;
  thread_ = std::thread([this, &matcher, range, &input, first, count, readers, keep_views, width, height] {
    run(matcher, range, input, first, count, readers, keep_views, width, height);
  });
}

SequencePlayer::~SequencePlayer() { stop(); }

void SequencePlayer::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void SequencePlayer::run(Matcher& matcher, DisparityRange range, const ViewInput& input, std::size_t first,
                         std::size_t count, std::size_t readers, bool keep_views, int width, int height) {
  const std::size_t n = input.frame_count();
  try {
    // Position k of the play is frame (first + k) mod n; read on any reader thread.
    const parallel::IndexedRead read = [&](std::size_t k) {
      if (stop_) throw Stopped{};
      const std::size_t i = (first + k) % n;
      Scene scene = input.read_frame(i);
      input.check_size(i, scene, width, height);
      FramePair pair;
      if (keep_views) {  // the window shows them: a copy for the matcher
        pair.left = scene.left;
        pair.right = scene.right;
      } else {
        pair.left = std::move(scene.left);
        pair.right = std::move(scene.right);
        scene.left = ImageU8();
        scene.right = ImageU8();
      }
      const std::lock_guard<std::mutex> lock(mutex_);
      read_.emplace(k, std::move(scene));
      return pair;
    };
    const parallel::RecordSink deliver = [&](FrameResult&& r, const parallel::FrameRecord&) {
      const std::lock_guard<std::mutex> lock(mutex_);
      Frame f;
      f.index = (first + r.index) % n;
      if (const auto it = read_.find(r.index); it != read_.end()) {
        f.scene = std::move(it->second);
        read_.erase(it);
      }
      f.map = std::move(r.disparity);
      f.timing = std::move(r.timing);
      newest_ = std::move(f);
      last_ = std::chrono::steady_clock::now();
      if (matched_ == 0) first_ = last_;
      ++matched_;
      matched_cv_.notify_all();
    };
    parallel::spread_sequence({&matcher}, range, count, read, readers, deliver);
  } catch (const Stopped&) {
  } catch (const std::exception& e) {
    if (!stop_) {
      const std::lock_guard<std::mutex> lock(mutex_);
      error_ = e.what();
    }
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  matched_cv_.notify_all();
}

std::optional<SequencePlayer::Frame> SequencePlayer::take() {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::optional<Frame> f = std::move(newest_);
  newest_.reset();
  return f;
}

double SequencePlayer::steady_seconds() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return matched_ < 2 ? 0.0 : std::chrono::duration<double>(last_ - first_).count();
}

std::optional<SequencePlayer::Frame> SequencePlayer::take_by(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  matched_cv_.wait_until(lock, deadline, [this] { return newest_.has_value() || finished_.load(); });
  std::optional<Frame> f = std::move(newest_);
  newest_.reset();
  return f;
}

std::string SequencePlayer::error() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

double SequencePlayer::seconds() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return std::chrono::duration<double>(last_ - start_).count();
}

}  // namespace stereo::view
