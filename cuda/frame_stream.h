#pragma once
/// \file cuda/frame_stream.h
/// The sequence path of the CUDA matcher frame (FrameMatcher::match_stream, cuda/matcher_frame.h):
/// up to SLOTS frames in flight, each in a slot with its own stream, page-locked staging of its
/// images and map, and device copies of them, so that frame n+1's upload and frame n-1's
/// read-back run on the copy engines while frame n's stages run on the matcher's stream.
///
/// One workspace, not one per slot. At the sizes a stream is for (1920x1080 x 256) every
/// method's stages fill the GPU alone: each streams volumes of 0.5-1 GB through DRAM per stage
/// (their stage_bytes, `stereo bench`), so a second frame's kernels beside them would share the
/// same bandwidth and gain nothing, while a second workspace would cost GBs (adcensus's five
/// fp16 volumes, esaw's two). What sits idle during the stages is the copy engines. So the
/// stages run one frame after another on the matcher's stream, on the one workspace compute()
/// uses (the same hooks, buffers and captured graphs, hence the same maps), and a slot adds
/// only its images and map: at 1920x1080 RGB 12.4 MB of images, 8.3 MB of float map and 2 MB
/// of indices on the device (x 3 slots: ~70 MB) and as much page-locked host memory. Its
/// images are copied into the workspace's InputPair on the matcher's stream before the stages
/// (device to device: 12.4 MB at 1080p, ~10 us at 3 TB/s, estimated), its map out of the
/// workspace after them, so the next frame's stages may overwrite both while the slot's copies
/// still run.
///
/// Compact read-back: where the method says its map holds whole levels
/// (FrameMatcher::whole_levels), a slot reads back level indices of 8 or 16 bits
/// (DisparityMap::Form: a quarter or half of the float map's bytes), made on the device by
/// level_index(), which checks that every index widens back to the very float bits of the
/// map (cuda/level_index.h); a frame where one does not comes back as floats from the slot's
/// float copy instead, so the map is compute()'s either way.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/disparity_range.h"
#include "core/image_view.h"
#include "core/matcher.h"
#include "cuda/common.h"
#include "cuda/level_index.h"
#include "cuda/stage_clock.h"
#include "cuda/workspace.h"

namespace stereo::cu {

/// Every buffer one frame in flight keeps (cuda/workspace.h).
struct FrameSlotBuffers {
  struct Key {
    int width = 0, height = 0, channels = 0;
    int index_bytes = 0;  ///< 0: the map comes back as floats; 1 or 2: as level indices
    bool operator==(const Key&) const = default;
  };
  Key key;
  HostBuffer<std::uint8_t> h_input;          ///< page-locked: the left image, then the right
  DeviceBuffer<std::uint8_t> d_left, d_right;  ///< the images as uploaded
  DeviceBuffer<float> d_map;                 ///< the float map (read back, or the indices' fall-back)
  DeviceBuffer<std::uint8_t> d_index;        ///< index maps: the indices, then a 4-byte flag
  HostBuffer<std::uint8_t> h_output;         ///< page-locked: what comes back

  [[nodiscard]] std::size_t pixels() const { return std::size_t(key.width) * std::size_t(key.height); }
  [[nodiscard]] std::size_t image_bytes() const { return pixels() * std::size_t(key.channels); }
  /// Where level_index() leaves its flag in d_index (and h_output): after the indices, aligned.
  [[nodiscard]] std::size_t flag_offset() const { return (pixels() * std::size_t(key.index_bytes) + 3) / 4 * 4; }
  /// The bytes a frame reads back.
  [[nodiscard]] std::size_t output_bytes() const {
    return key.index_bytes > 0 ? flag_offset() + sizeof(std::uint32_t) : pixels() * sizeof(float);
  }

  static std::string describe(const Key& k);
  void declare(BufferList& list, const Key& k);
};

/// The loop of every sequence that keeps frames in flight (Matcher::match_stream's contract):
/// takes each pair from `next` and hands it to `submit(pair, frame)`, which enqueues frame
/// `frame` (0, 1, ...) without waiting for it; once depth() frames are in flight, first
/// `deliver(frame)` of the oldest, which waits for it and hands its result on. At the end, or
/// on an error from any of them, the frames in flight are delivered in order (a second error
/// while doing so is dropped), then the error propagates. depth() is read after each submit
/// (the first frame may decide it).
void keep_in_flight(const std::function<std::size_t()>& depth, const FrameSource& next,
                    const std::function<void(const FramePair& pair, std::size_t frame)>& submit,
                    const std::function<void(std::size_t frame)>& deliver);

/// What FrameStream::run asks of the matcher: the FrameMatcher's hooks on its workspace.
struct SequenceHooks {
  /// The workspace for the sequence's pairs (FrameMatcher::prepare), given the first left view.
  std::function<InputPair&(const ImageView& first)> prepare;
  /// Before each frame's clock starts (FrameMatcher::before_frame).
  std::function<void()> before_frame;
  /// The stages on the pair in the workspace, enqueued on the matcher's stream with laps on
  /// `clock` (FrameMatcher::run_stages); returns the map.
  std::function<const DeviceImage<float>&(StageClock& clock)> run_stages;
};

/// The slots of a FrameMatcher's sequences; made on a sequence's first frame and kept (for the
/// next sequence of the same size) while the matcher lives.
class FrameStream {
 public:
  /// Frames in flight: one uploading, one matching, one reading back.
  static constexpr std::size_t SLOTS = 3;

  explicit FrameStream(std::string component);
  ~FrameStream();
  FrameStream(const FrameStream&) = delete;
  FrameStream& operator=(const FrameStream&) = delete;

  /// Matcher::match_stream on the matcher's `stream` (current device set by the caller):
  /// every pair `next` gives (validated, one size) uploaded through a slot, matched by the
  /// hooks, read back (as indices where `whole_levels`) and handed to `done` in frame order.
  /// On an error the frames already enqueued are delivered first where they can be, then the
  /// error propagates. Slots are reused only after their frame was delivered.
  void run(DisparityRange range, bool whole_levels, cudaStream_t stream, const FrameSource& next,
           const FrameSink& done, const SequenceHooks& hooks);

  /// Frames in flight in the last sequence (SLOTS unless the GPU's free memory held fewer).
  [[nodiscard]] std::size_t slots_in_use() const { return in_use_; }

 private:
  struct Slot;

  /// Slots for pairs like `first`: the held ones when their key matches, else made anew, as
  /// many as free memory holds (at least one; fewer than SLOTS is said in the clock text).
  void open(const ImageU8& first, DisparityRange range, bool whole_levels);
  void upload(Slot& slot, const FramePair& pair, InputPair& inputs, cudaStream_t stream);
  void read_back(Slot& slot, const DeviceImage<float>& map, DisparityRange range, cudaStream_t stream);
  FrameResult deliver(Slot& slot, std::size_t index, DisparityRange range);
  ThreadPool& pool();

  std::string component_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::size_t in_use_ = 0;
  std::string clock_text_;  // Timing::clock of every frame: how the steps were timed, the slots
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace stereo::cu
