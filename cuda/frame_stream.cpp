// The CUDA matcher frame's sequences (cuda/frame_stream.h): slots of page-locked staging and
// device copies, one stream each, around the matcher's stages on its own stream.

#include "cuda/frame_stream.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <utility>

#include "core/thread_pool.h"
#include "cuda/matcher_frame.h"

namespace stereo::cu {

std::string FrameSlotBuffers::describe(const Key& k) {
  return "a sequence slot for " + std::to_string(k.width) + "x" + std::to_string(k.height) + "x" +
         std::to_string(k.channels) + " frames";
}

void FrameSlotBuffers::declare(BufferList& list, const Key& k) {
  key = k;
  list.pinned(h_input, 2 * image_bytes(), "the page-locked image staging of a sequence slot");
  list.buffer(d_left, image_bytes(), "a sequence slot's left image");
  list.buffer(d_right, image_bytes(), "a sequence slot's right image");
  list.buffer(d_map, pixels(), "a sequence slot's disparity map");
  if (k.index_bytes > 0) list.buffer(d_index, output_bytes(), "a sequence slot's level indices");
  list.pinned(h_output, output_bytes(), "the page-locked read-back of a sequence slot");
}

/// One frame in flight: its stream (the slot's copies), its clock and its buffers.
struct FrameStream::Slot {
  Stream stream = make_stream();
  StageClock clock;
  Workspace<FrameSlotBuffers> buffers;
  explicit Slot(const std::string& component) : buffers(component) {}
};

FrameStream::FrameStream(std::string component) : component_(std::move(component)) {}
FrameStream::~FrameStream() = default;

ThreadPool& FrameStream::pool() {
  // The staging and the copy out of the read-back are host copies as large as the link's
  // transfers; one core's memcpy (~8-10 GB/s from memory not in cache) would fall behind the
  // link (~25-50 GB/s) and, at 1080p, behind a fast method's stages. Up to eight threads
  // keep ahead (as salap/cuda's staging does).
  if (!pool_) pool_ = std::make_unique<ThreadPool>(std::min(8u, ThreadPool::hardware_threads()));
  return *pool_;
}

void FrameStream::open(const ImageU8& first, DisparityRange range, bool whole_levels) {
  const int index_bytes = !whole_levels ? 0 : DisparityMap::index_form(range.count) == DisparityMap::Form::index_u8 ? 1 : 2;
  const FrameSlotBuffers::Key key{first.width, first.height, first.channels, index_bytes};
  const bool held = in_use_ > 0 && slots_[0]->buffers.held() != nullptr && slots_[0]->buffers.key() == key;
  if (!held) {
    // Release every old slot before measuring: the new ones may need their memory.
    for (auto& slot : slots_) slot->buffers.release();
    while (slots_.size() < SLOTS) slots_.push_back(std::make_unique<Slot>(component_));
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t per_slot = slots_[0]->buffers.bytes(key);
    // As many slots as the free memory holds, one at least (whose own check then names the
    // shortfall); a slot whose page-locked memory is refused ends the count there too.
    const std::size_t fit = std::clamp<std::size_t>(free_bytes / std::max<std::size_t>(per_slot, 1), 1, SLOTS);
    in_use_ = 0;
    std::string short_of;
    for (std::size_t i = 0; i < fit; ++i) {
      try {
        slots_[i]->buffers.prepare(key, slots_[i]->stream.get());
        ++in_use_;
      } catch (const Error& e) {
        if (i == 0 || e.kind() != ErrorKind::out_of_memory) throw;
        short_of = e.what();
        break;
      }
    }
    if (in_use_ < SLOTS && short_of.empty())
      short_of = "a slot needs " + mib(per_slot) + " MiB of GPU memory, " + mib(free_bytes) + " MiB were free";
    clock_text_ = "cuda events; " + std::to_string(in_use_) +
                  (in_use_ == 1 ? " frame" : " frames") +
                  " in flight (each frame's upload and read-back on its slot's stream beside the other frames' "
                  "stages; each step its own time, the waits between the streams left out)";
    if (in_use_ < SLOTS)
      clock_text_ += "; only " + std::to_string(in_use_) + " of " + std::to_string(SLOTS) + " slots: " + short_of;
  }
}

void FrameStream::upload(Slot& slot, const FramePair& pair, InputPair& inputs, cudaStream_t stream) {
  FrameSlotBuffers& b = *slot.buffers.held();
  const std::size_t bytes = b.image_bytes();
  slot.clock.start(slot.stream.get());
  staged_upload({{b.d_left.get(), pair.left.data.data(), bytes}, {b.d_right.get(), pair.right.data.data(), bytes}},
                b.h_input.get(), slot.stream.get(), &pool());
  testing::count_image_copy(Memory::host);
  testing::count_image_copy(Memory::host);
  // Into the workspace once the previous frame's stages are done with it: the stages read
  // their InputPair as compute() fills it.
  slot.clock.hand_over(stream);
  CUDA_CHECK(cudaMemcpyAsync(inputs.raw_left.get(), b.d_left.get(), bytes, cudaMemcpyDeviceToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(inputs.raw_right.get(), b.d_right.get(), bytes, cudaMemcpyDeviceToDevice, stream));
  slot.clock.uploaded();
}

void FrameStream::read_back(Slot& slot, const DeviceImage<float>& map, DisparityRange range, cudaStream_t stream) {
  FrameSlotBuffers& b = *slot.buffers.held();
  require(map.count() == b.pixels(), [&] {
    return component_ + ": the stages gave a " + std::to_string(map.width) + "x" + std::to_string(map.height) +
           " map for " + std::to_string(b.key.width) + "x" + std::to_string(b.key.height) + " frames";
  });
  // Out of the workspace on the matcher's stream (the next frame's stages overwrite it), then
  // to the host on the slot's stream, beside those stages.
  const void* source = b.d_map.get();
  if (b.key.index_bytes > 0) {
    auto* flag = reinterpret_cast<std::uint32_t*>(b.d_index.get() + b.flag_offset());
    // The flag and the bytes that align it: all of it is read back, none left unwritten.
    const std::size_t index_end = b.pixels() * std::size_t(b.key.index_bytes);
    CUDA_CHECK(cudaMemsetAsync(b.d_index.get() + index_end, 0, b.output_bytes() - index_end, stream));
    level_index(map.get(), b.pixels(), range, b.key.index_bytes, b.d_index.get(), b.d_map.get(), flag, stream);
    source = b.d_index.get();
  } else {
    CUDA_CHECK(cudaMemcpyAsync(b.d_map.get(), map.get(), b.pixels() * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  }
  slot.clock.hand_over(slot.stream.get());
  CUDA_CHECK(cudaMemcpyAsync(b.h_output.get(), source, b.output_bytes(), cudaMemcpyDeviceToHost, slot.stream.get()));
  slot.clock.read_back();
}

FrameResult FrameStream::deliver(Slot& slot, std::size_t index, DisparityRange range) {
  FrameResult r;
  r.index = index;
  r.timing = slot.clock.timing();  // waits for the slot's read-back
  r.timing.clock = clock_text_;
  const FrameSlotBuffers& b = *slot.buffers.held();
  const int width = b.key.width, height = b.key.height;
  std::uint32_t not_whole = 0;
  if (b.key.index_bytes > 0) std::memcpy(&not_whole, b.h_output.get() + b.flag_offset(), sizeof not_whole);
  if (b.key.index_bytes > 0 && not_whole == 0) {
    r.disparity = DisparityMap::allocate(DisparityMap::index_form(range.count), width, height, range);
    void* dst = b.key.index_bytes == 1 ? static_cast<void*>(r.disparity.index8.data())
                                       : static_cast<void*>(r.disparity.index16.data());
    parallel_copy(pool(), dst, b.h_output.get(), b.pixels() * std::size_t(b.key.index_bytes));
    return r;
  }
  ImageF map(width, height, 1);
  if (b.key.index_bytes > 0)  // a value that is no whole level: the slot's float copy, as it is
    CUDA_CHECK(cudaMemcpy(map.data.data(), b.d_map.get(), b.pixels() * sizeof(float), cudaMemcpyDeviceToHost));
  else
    parallel_copy(pool(), map.data.data(), b.h_output.get(), b.pixels() * sizeof(float));
  r.disparity = DisparityMap::of_pixels(std::move(map), range);
  return r;
}

void keep_in_flight(const std::function<std::size_t()>& depth, const FrameSource& next,
                    const std::function<void(const FramePair& pair, std::size_t frame)>& submit,
                    const std::function<void(std::size_t frame)>& deliver) {
  std::deque<std::size_t> in_flight;
  const auto deliver_oldest = [&] {
    const std::size_t frame = in_flight.front();
    in_flight.pop_front();
    deliver(frame);
  };
  FramePair pair;
  std::size_t frame = 0;
  try {
    for (;;) {
      if (!in_flight.empty() && in_flight.size() >= depth()) deliver_oldest();
      if (!next(pair)) break;
      submit(pair, frame);
      in_flight.push_back(frame++);
    }
    while (!in_flight.empty()) deliver_oldest();
  } catch (...) {
    // The frames already enqueued do not depend on the one that failed: deliver them (their
    // maps are complete), then report the failure.
    try {
      while (!in_flight.empty()) deliver_oldest();
    } catch (...) {  // a second failure (the sink, a sticky CUDA error) adds nothing
    }
    throw;
  }
}

void FrameStream::run(DisparityRange range, bool whole_levels, cudaStream_t stream, const FrameSource& next,
                      const FrameSink& done, const SequenceHooks& hooks) {
  InputPair* inputs = nullptr;
  keep_in_flight(
      [this] { return in_use_; }, next,
      [&](const FramePair& pair, std::size_t frame) {
        if (frame == 0) {
          // The workspace first (it is the larger; the slots take what memory it leaves), for
          // the sequence's one size (match_sequence checks every pair against the first).
          inputs = &hooks.prepare(ImageView(pair.left));
          open(pair.left, range, whole_levels);
        }
        Slot& slot = *slots_[frame % in_use_];
        hooks.before_frame();
        upload(slot, pair, *inputs, stream);
        const DeviceImage<float>& map = hooks.run_stages(slot.clock);
        slot.clock.matched();
        read_back(slot, map, range, stream);
      },
      [&](std::size_t frame) { done(deliver(*slots_[frame % in_use_], frame, range)); });
}

}  // namespace stereo::cu
