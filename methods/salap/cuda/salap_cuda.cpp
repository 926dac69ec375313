// SA-LAP on CUDA: the matcher the registry creates. It runs on the GPU --device /
// STEREO_DEVICE names (switching to it in every call, whatever thread calls), owns its
// streams, events, page-locked staging and device buffers (reused while the image size stays
// the same; a failed allocation leaves no half-built set), reads back the winning level
// indices (8 bits up to 256 levels, 16 above) rather than a float map, times upload /
// algorithm / read-back with CUDA events, overlaps three frames in a sequence (one slot of
// buffers per frame in flight, see match_stream), and runs either the fused kernel (default; its narrow tile where the GPU's shared
// memory per block is too small for the wide one, same maps) or the unfused stage path
// (path=stages, or where no tile fits), which is the correctness fallback.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <deque>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/common.h"
#include "methods/salap/cuda/stages.h"
#include "methods/salap/register.h"
#include "core/validate.h"
#include "core/thread_pool.h"
#include "core/registry.h"

namespace stereo {
namespace {

constexpr const char* COMPONENT = "salap/cuda";

/// Options of this backend only (bound beside SalapParams).
struct SalapCudaOptions {
  std::string path = "fused";  // the fused kernel; "stages" runs one kernel per stage and level
  int d_chunk = 0;             // levels per fused block; 0 = enough chunks for ~4 waves of blocks
  int smem_limit = 0;          // bytes; 0 = the GPU's opt-in limit (cudaDevAttrMaxSharedMemoryPerBlockOptin)
  std::string arithmetic = "float";  // the method's numbers; "half" trades precision for speed (cuda/salap/NOTES.md)

  template <class B>
  void describe(B& b) {
    b.choice("path", path, {"fused", "stages"},
             "fused kernel (W in 8,16,24,32) or the unfused per-stage kernels (any W)");
    b.choice("arithmetic", arithmetic, {"float", "half"},
             "fused kernel: float, or half2 (two levels per thread, half-precision filters and eq. 3-4: "
             "faster, near ties may rank differently); the stage path is always float");
    b.field("d_chunk", d_chunk, "disparity levels per fused block, <= 256; 0 = automatic");
    b.field("smem_limit", smem_limit,
            "for tests: caps the shared memory per block (bytes) below the GPU's opt-in limit, to force the "
            "narrow fused tile or the stage path as a smaller GPU would; 0 = the GPU's limit");
  }
};

class SalapCudaMatcher final : public Matcher {
 public:
  explicit SalapCudaMatcher(const Overrides& overrides) {
    json_ = bind_params(COMPONENT, overrides, params_, options_);
    params_.validate(COMPONENT);
    require(options_.d_chunk >= 0 && options_.d_chunk <= 256,
            std::string(COMPONENT) + ": d_chunk must be in 0..256, got " + std::to_string(options_.d_chunk));
    require(options_.smem_limit >= 0,
            std::string(COMPONENT) + ": smem_limit must be >= 0, got " + std::to_string(options_.smem_limit));
    ordinal_ = cu::select_device(COMPONENT);  // current from here on in this thread
    device_info_ = cu::device_info_json(ordinal_);
    device_ = device_info_.at("name").get<std::string>();
    choose_path(cu::shared_memory_optin_limit(ordinal_));
    (void)slot_at(0);  // compute()'s stream and events, created on this device
    epoch_ = cu::make_event();
  }

  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);
    check_input(left, right, range);
    Slot& slot = slot_at(0);
    prepare_slot(slot, left.width, left.height, left.channels, range.count);
    submit(slot, left, right, range, /*slabs=*/true);
    // The float map is allocated (and zero-filled, 8 MB at 1080p: ~0.5 ms of one core) while
    // the device works, so only the widening below waits for the device.
    StereoResult result;
    result.disparity = ImageF(left.width, left.height, 1);
    wait(slot, result.timing);
    // The device hands back level indices; a caller that asks for floats gets them widened
    // here, straight from the pinned buffer and on the copy pool's threads, and that
    // widening (host clock, after the device finished) is part of its read-back time.
    const auto t0 = std::chrono::steady_clock::now();
    const auto d_min = static_cast<float>(range.min);
    if (DisparityMap::index_form(range.count) == DisparityMap::Form::index_u16)
      widen(reinterpret_cast<const std::uint16_t*>(slot.h_index.get()), result.disparity.data.data(),
            result.disparity.data.size(), d_min);
    else
      widen(slot.h_index.get(), result.disparity.data.data(), result.disparity.data.size(), d_min);
    result.timing.readback_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return result;
  }

  DisparityMap match_compact(const ImageU8& left, const ImageU8& right, DisparityRange range,
                             Timing& timing) override {
    const cu::DeviceScope device_scope(ordinal_);  // the caller's thread may have another device current
    check_input(left, right, range);
    Slot& slot = slot_at(0);
    prepare_slot(slot, left.width, left.height, left.channels, range.count);
    submit(slot, left, right, range, /*slabs=*/true);
    DisparityMap map = DisparityMap::allocate(DisparityMap::index_form(range.count), left.width, left.height, range);
    wait(slot, timing);
    const auto t0 = std::chrono::steady_clock::now();
    copy_out(slot, map);
    timing.readback_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return map;
  }

  // Frames go round STREAM_SLOTS slots, each with its own stream, staging and device buffers:
  // while frame i's kernels run on one stream, frame i+1's upload runs on the next (the copy
  // engines work beside the SMs) and frame i-1's indices come back on the third. A slot is
  // reused only after its frame was delivered, so no staging buffer is written while a copy
  // still reads it.
  void match_stream(DisparityRange range, const FrameSource& next, const FrameSink& done) override {
    const cu::DeviceScope device_scope(ordinal_);
    struct InFlight {
      std::size_t slot;
      std::size_t frame;
    };
    std::deque<InFlight> in_flight;
    // Frames overlap on the device (one's upload beside another's kernels, and two frames'
    // kernels sharing the SMs), so a frame's own event spans measure queueing as well as work
    // and add up to more than the stream's time. What each frame reports instead is the time
    // it added to each engine's timeline: from the later of its own start and the previous
    // frame's end of the same step, to its end of that step. These add up to the stream's
    // span per step, so their mean is the step's cost per frame at the stream's throughput.
    // Event times are read against one epoch event, since a slot's events are recorded anew
    // for a later frame once this one is delivered.
    CUDA_CHECK(cudaEventRecord(epoch_.get(), slot_at(0).stream.get()));
    std::optional<StepTimes> previous;
    const auto deliver_oldest = [&] {
      const InFlight f = in_flight.front();
      in_flight.pop_front();
      FrameResult r;
      r.index = f.frame;
      Slot& slot = *slots_[f.slot];
      r.disparity = DisparityMap::allocate(DisparityMap::index_form(range.count), slot.width, slot.height, range);
      wait(slot, r.timing);
      copy_out(slot, r.disparity);
      const StepTimes now = step_times(slot);
      const StepTimes before = previous.value_or(StepTimes{});
      const auto added = [](double start, double end, double previous_end) {
        return std::max(0.0, end - std::max(start, previous_end));
      };
      r.timing.clock = "cuda events, each frame's time beyond the previous frame's on each step (frames overlap)";
      r.timing.upload_ms = added(now.start, now.uploaded, before.uploaded);
      r.timing.algorithm_ms = added(now.uploaded, now.done, before.done);
      r.timing.readback_ms = added(now.done, now.read, before.read);
      // The stages' own spans overlap other frames' work: they stay as measured, for what a
      // stage took from its start to its end while sharing the device.
      previous = now;
      done(std::move(r));
    };
    FramePair pair;
    std::size_t frame = 0;
    try {
      for (;;) {
        if (in_flight.size() == STREAM_SLOTS) deliver_oldest();
        if (!next(pair)) break;
        if (frame == 0) {
          check_input(pair.left, pair.right, range);
          // Every slot for this size before the first submit: the sequence then allocates
          // nothing (match_sequence guarantees one size), so its memory stays where it is.
          for (std::size_t i = 0; i < STREAM_SLOTS; ++i)
            prepare_slot(slot_at(i), pair.left.width, pair.left.height, pair.left.channels, range.count,
                         /*streaming=*/true);
        }
        const std::size_t slot = frame % STREAM_SLOTS;
        // Whole frames: the stream overlaps one frame's upload with another's matching already.
        submit(*slots_[slot], pair.left, pair.right, range, /*slabs=*/false);
        in_flight.push_back({slot, frame++});
      }
      while (!in_flight.empty()) deliver_oldest();
    } catch (...) {
      // The frames already submitted are queued on their streams and do not depend on the
      // one that failed: deliver them (their maps get written), then report the failure.
      try {
        while (!in_flight.empty()) deliver_oldest();
      } catch (...) {  // a second failure (the sink, a sticky CUDA error) adds nothing
      }
      throw;
    }
  }

  [[nodiscard]] nlohmann::json params() const override { return json_; }
  [[nodiscard]] std::string component() const override { return COMPONENT; }
  [[nodiscard]] std::string device() const override { return device_; }
  [[nodiscard]] nlohmann::json device_info() const override { return device_info_; }

 private:
  static constexpr int MAX_HEIGHT = 65535 * 8;
  /// Frames in flight in match_stream: one uploading, one matching, one reading back.
  static constexpr std::size_t STREAM_SLOTS = 3;
  /// Row slabs of a single frame (submit with slabs): the first slab's upload is all the
  /// upload that nothing overlaps.
  static constexpr int SLABS = 4;
  enum EventIndex { START, UPLOADED, PACKED, MATCHED, DONE, READ, EVENT_COUNT };
  /// A frame's step boundaries in ms after epoch_ (match_stream).
  struct StepTimes {
    double start = 0.0, uploaded = 0.0, done = 0.0, read = 0.0;
  };

  /// Everything one frame in flight needs, reused while the image size stays the same.
  struct Slot {
    cu::Stream stream;
    std::array<cu::Event, EVENT_COUNT> events;
    // The slab pipeline (submit with slabs): two streams that take turns with the band
    // launches, and per slab the events "packed", "matched" and "read back".
    std::array<cu::Stream, 2> lanes;
    std::array<cu::Event, 3 * SLABS> slab_events;
    bool slabbed = false;  // how the slot's last frame was submitted
    int width = 0, height = 0, channels = 0;  // of the buffers below; 0 = none
    cu::HostBuffer<std::uint8_t> h_staging;   // pinned: left image, then right image
    cu::HostBuffer<std::uint8_t> h_index;     // pinned: the read-back level indices
    cu::DeviceBuffer<std::uint8_t> raw_left, raw_right;
    cu::salap::DevicePair pair;
    cu::DeviceBuffer<std::uint8_t> d_index;   // width * height indices of 1 or 2 bytes
    cu::salap::FusedPlan plan;
    cu::DeviceBuffer<std::uint64_t> keys;     // fused path
    std::size_t key_count = 0;
    std::unique_ptr<cu::salap::StageBuffers> stages;  // stage path
    cu::DeviceImage<float> disparity;                 // stage path
    DisparityRange range;                             // of the frame submitted last
  };

  void check_input(const ImageU8& left, const ImageU8& right, DisparityRange range) const {
    require(left.channels == right.channels, std::string(COMPONENT) + ": left has " +
                                                 std::to_string(left.channels) + " channels, right " +
                                                 std::to_string(right.channels));
    require(left.channels == 1 || left.channels == 3 || left.channels == 4,
            std::string(COMPONENT) + ": images must have 1, 3 or 4 channels, got " + std::to_string(left.channels));
    // The stage kernels' 2-D grids have 8-row blocks and at most 65535 blocks along y.
    require(left.height <= MAX_HEIGHT, std::string(COMPONENT) + ": image height " + std::to_string(left.height) +
                                           " exceeds the " + std::to_string(MAX_HEIGHT) + " rows the CUDA grid allows");
    // The map comes back as 8- or 16-bit level indices (host/matcher.h DisparityMap).
    require(range.count <= 65536, std::string(COMPONENT) + ": " + std::to_string(range.count) +
                                      " levels exceed the 65536 a 16-bit index holds");
  }

  /// Host threads for the staging copies and the widening of the read-back map: one core's
  /// memcpy from memory that is not in cache (~8-10 GB/s) is slower than the link (~25 GB/s
  /// measured on PCIe 4, ~50 GB/s on PCIe 5), up to eight keep ahead of it. The bytes copied
  /// are the same; only the wall time shrinks.
  ThreadPool& copy_pool() {
    if (!copy_pool_) copy_pool_ = std::make_unique<ThreadPool>(std::min(8u, ThreadPool::hardware_threads()));
    return *copy_pool_;
  }

  /// dst[i] = d_min + src[i] on the copy pool (level indices and range.min are whole numbers
  /// far below 2^24, so the sum is exact: the same floats DisparityMap::to_float gives).
  template <class Index>
  void widen(const Index* src, float* dst, std::size_t n, float d_min) {
    ThreadPool& pool = copy_pool();
    const std::size_t parts = pool.size();
    const std::size_t chunk = ((n + parts - 1) / parts + 63) / 64 * 64;  // whole cache lines of dst
    pool.parallel_for(parts, [&](std::size_t k) {
      const std::size_t end = std::min(n, (k + 1) * chunk);
      for (std::size_t i = k * chunk; i < end; ++i) dst[i] = d_min + static_cast<float>(src[i]);
    });
  }

  /// memcpy on the copy pool.
  void parallel_copy(void* dst, const void* src, std::size_t bytes) {
    ThreadPool& pool = copy_pool();
    const std::size_t parts = pool.size();
    const std::size_t chunk = ((bytes + parts - 1) / parts + 4095) / 4096 * 4096;
    pool.parallel_for(parts, [&](std::size_t k) {
      const std::size_t begin = std::min(bytes, k * chunk), end = std::min(bytes, (k + 1) * chunk);
      std::memcpy(static_cast<unsigned char*>(dst) + begin, static_cast<const unsigned char*>(src) + begin,
                  end - begin);
    });
  }

  Slot& slot_at(std::size_t i) {
    while (slots_.size() <= i) {
      auto slot = std::make_unique<Slot>();
      slot->stream = cu::make_stream();
      for (auto& e : slot->events) e = cu::make_event();
      for (auto& l : slot->lanes) l = cu::make_stream();
      for (auto& e : slot->slab_events) e = cu::make_event();
      slots_.push_back(std::move(slot));
    }
    return *slots_[i];
  }

  /// Queues frame (left, right) on the slot's stream: staged upload, pack, match, indices,
  /// read-back into the slot's pinned buffer. Returns without waiting for the device. With
  /// `slabs` (and the fused path on a frame of at least 2 SLABS bands) the frame goes in
  /// SLABS row slabs, see submit_slabs.
  void submit(Slot& slot, const ImageU8& left, const ImageU8& right, DisparityRange range, bool slabs) {
    slot.slabbed = slabs && fused_ &&
                   cu::div_up(slot.height, cu::salap::fused_band_rows(slot.plan.tile)) >= 2 * SLABS;
    if (slot.slabbed) {
      submit_slabs(slot, left, right, range);
      return;
    }
    cudaStream_t s = slot.stream.get();
    const std::size_t image_bytes = left.data.size();
    const std::size_t pixels = left.pixel_count();
    const bool wide_index = DisparityMap::index_form(range.count) == DisparityMap::Form::index_u16;
    slot.range = range;
    CUDA_CHECK(cudaEventRecord(slot.events[START].get(), s));
    // Both images in one pipeline of slices (the right image's first slices are copied while
    // the left image's last ones are on the link).
    cu::staged_upload({{slot.raw_left.get(), left.data.data(), image_bytes},
                       {slot.raw_right.get(), right.data.data(), image_bytes}},
                      slot.h_staging.get(), s, &copy_pool());
    CUDA_CHECK(cudaEventRecord(slot.events[UPLOADED].get(), s));
    cu::salap::pack_pair(slot.raw_left.get(), slot.raw_right.get(), slot.width, slot.height, slot.channels,
                         slot.pair.code, slot.pair.left.get(), slot.pair.right.get(), s);
    CUDA_CHECK(cudaEventRecord(slot.events[PACKED].get(), s));
    if (fused_) {
      cu::salap::salap_fused(slot.pair, range, params_, slot.plan, slot.keys.get(), s);
      CUDA_CHECK(cudaEventRecord(slot.events[MATCHED].get(), s));
      if (wide_index)
        cu::salap::merge_chunks_index(slot.keys.get(), slot.plan.chunks, pixels,
                                      reinterpret_cast<std::uint16_t*>(slot.d_index.get()), s);
      else
        cu::salap::merge_chunks_index(slot.keys.get(), slot.plan.chunks, pixels, slot.d_index.get(), s);
    } else {
      cu::salap::salap_stages(slot.pair, range, params_, *slot.stages, slot.disparity, s);
      CUDA_CHECK(cudaEventRecord(slot.events[MATCHED].get(), s));
      if (wide_index)
        cu::salap::disparity_to_index(slot.disparity, range.min, reinterpret_cast<std::uint16_t*>(slot.d_index.get()), s);
      else
        cu::salap::disparity_to_index(slot.disparity, range.min, slot.d_index.get(), s);
    }
    CUDA_CHECK(cudaEventRecord(slot.events[DONE].get(), s));
    CUDA_CHECK(cudaMemcpyAsync(slot.h_index.get(), slot.d_index.get(), pixels * (wide_index ? 2 : 1),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaEventRecord(slot.events[READ].get(), s));
  }

  /// One frame in SLABS row slabs, so that the matching starts while the rest still uploads:
  /// slab k's rows are staged, copied and packed on the slot's stream; then the bands whose
  /// rows and the W rows below them are on the device (all remaining ones after the last slab)
  /// run on one of two lane streams, which take turns so that one launch's last wave shares
  /// the SMs with the next one's first; the same lane merges those bands' key planes and reads
  /// their indices back. Band launches give the same keys as the whole launch (every block
  /// computes its own rows), so the map is bit-identical to submit without slabs (tested
  /// against the stream, which submits whole frames). Timing (wait): upload = the first
  /// slab; algorithm = from there to the last band's keys (the other slabs' upload and the
  /// earlier bands' read-back overlap it); read-back = the last merge and copy.
  void submit_slabs(Slot& slot, const ImageU8& left, const ImageU8& right, DisparityRange range) {
    namespace cs = cu::salap;
    cudaStream_t s = slot.stream.get();
    const int width = slot.width, height = slot.height;
    const std::size_t row_bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(slot.channels);
    const std::size_t pixels = left.pixel_count();
    const bool wide_index = DisparityMap::index_form(range.count) == DisparityMap::Form::index_u16;
    const std::size_t index_bytes = wide_index ? 2 : 1;
    const int band_rows = cs::fused_band_rows(slot.plan.tile);
    const int bands = cu::div_up(height, band_rows);
    const int radius = params_.radius();
    slot.range = range;
    CUDA_CHECK(cudaEventRecord(slot.events[START].get(), s));
    std::size_t staged = 0;
    int launched = 0, groups = 0;
    for (int k = 0; k < SLABS; ++k) {
      // Slab k: band-aligned rows r0 .. r1 - 1.
      const int r0 = std::min(height, band_rows * (bands * k / SLABS));
      const int r1 = k + 1 == SLABS ? height : std::min(height, band_rows * (bands * (k + 1) / SLABS));
      if (r1 <= r0) continue;
      const std::size_t offset = static_cast<std::size_t>(r0) * row_bytes;
      const std::size_t bytes = static_cast<std::size_t>(r1 - r0) * row_bytes;
      cu::staged_upload({{slot.raw_left.get() + offset, left.data.data() + offset, bytes},
                         {slot.raw_right.get() + offset, right.data.data() + offset, bytes}},
                        slot.h_staging.get() + staged, s, &copy_pool());
      staged += 2 * bytes;
      if (k == 0) CUDA_CHECK(cudaEventRecord(slot.events[UPLOADED].get(), s));
      const std::size_t first_pixel = static_cast<std::size_t>(r0) * static_cast<std::size_t>(width);
      cs::pack_pair(slot.raw_left.get() + offset, slot.raw_right.get() + offset, width, r1 - r0, slot.channels,
                    slot.pair.code, slot.pair.left.get() + first_pixel, slot.pair.right.get() + first_pixel, s);
      const cudaEvent_t packed = slot.slab_events[static_cast<std::size_t>(3 * k)].get();
      CUDA_CHECK(cudaEventRecord(packed, s));
      // Bands whose rows and the W rows below them are packed.
      const int ready = r1 == height ? bands : std::max(0, (r1 - radius) / band_rows);
      if (ready <= launched) continue;
      cudaStream_t lane = slot.lanes[static_cast<std::size_t>(groups % 2)].get();
      CUDA_CHECK(cudaStreamWaitEvent(lane, packed, 0));
      cs::salap_fused_bands(slot.pair, range, params_, slot.plan, launched, ready - launched, slot.keys.get(), lane);
      CUDA_CHECK(cudaEventRecord(slot.slab_events[static_cast<std::size_t>(3 * groups + 1)].get(), lane));
      const std::size_t p0 = static_cast<std::size_t>(launched) * static_cast<std::size_t>(band_rows * width);
      const std::size_t p1 = std::min(static_cast<std::size_t>(ready) * static_cast<std::size_t>(band_rows * width), pixels);
      if (wide_index)
        cs::merge_chunks_index(slot.keys.get(), slot.plan.chunks, pixels, p0, p1 - p0,
                               reinterpret_cast<std::uint16_t*>(slot.d_index.get()), lane);
      else
        cs::merge_chunks_index(slot.keys.get(), slot.plan.chunks, pixels, p0, p1 - p0, slot.d_index.get(), lane);
      CUDA_CHECK(cudaMemcpyAsync(slot.h_index.get() + p0 * index_bytes, slot.d_index.get() + p0 * index_bytes,
                                 (p1 - p0) * index_bytes, cudaMemcpyDeviceToHost, lane));
      CUDA_CHECK(cudaEventRecord(slot.slab_events[static_cast<std::size_t>(3 * groups + 2)].get(), lane));
      ++groups;
      launched = ready;
    }
    CUDA_CHECK(cudaEventRecord(slot.events[PACKED].get(), s));  // every slab on the device and packed
    for (int g = 0; g < groups; ++g) CUDA_CHECK(cudaStreamWaitEvent(s, slot.slab_events[static_cast<std::size_t>(3 * g + 1)].get(), 0));
    CUDA_CHECK(cudaEventRecord(slot.events[MATCHED].get(), s));  // every band's keys
    for (int g = 0; g < groups; ++g) CUDA_CHECK(cudaStreamWaitEvent(s, slot.slab_events[static_cast<std::size_t>(3 * g + 2)].get(), 0));
    CUDA_CHECK(cudaEventRecord(slot.events[DONE].get(), s));
    CUDA_CHECK(cudaEventRecord(slot.events[READ].get(), s));
  }

  /// Copies the slot's read-back indices into `map` (allocated by the caller in the index
  /// form of the slot's range), after wait().
  void copy_out(Slot& slot, DisparityMap& map) {
    if (map.form == DisparityMap::Form::index_u16)
      parallel_copy(map.index16.data(), slot.h_index.get(), map.index16.size() * sizeof(std::uint16_t));
    else
      parallel_copy(map.index8.data(), slot.h_index.get(), map.index8.size());
  }

  /// The slot's step boundaries after epoch_ (both events complete).
  StepTimes step_times(const Slot& slot) const {
    const auto at = [&](EventIndex e) { return double(cu::elapsed_ms(epoch_, slot.events[e])); };
    return StepTimes{at(START), at(UPLOADED), at(DONE), at(READ)};
  }

  /// Waits for the slot's frame; fills `timing` from the slot's events (each step's span on
  /// its stream; the host's copy out of the pinned buffer is the caller's to add).
  void wait(Slot& slot, Timing& timing) {
    CUDA_CHECK(cudaEventSynchronize(slot.events[READ].get()));
    const auto& ev = slot.events;
    timing = Timing{};
    timing.clock = "cuda events";
    timing.upload_ms = cu::elapsed_ms(ev[START], ev[UPLOADED]);
    timing.algorithm_ms = cu::elapsed_ms(ev[UPLOADED], ev[DONE]);
    timing.readback_ms = cu::elapsed_ms(ev[DONE], ev[READ]);
    if (slot.slabbed) {
      timing.clock = "cuda events; upload = the first of " + std::to_string(SLABS) +
                     " row slabs (the others upload while the matching runs: in algorithm), read-back = the "
                     "last slab's merge and copy (the others' overlap the matching)";
      timing.algorithm_ms = cu::elapsed_ms(ev[UPLOADED], ev[MATCHED]);
      timing.readback_ms = cu::elapsed_ms(ev[MATCHED], ev[READ]);
      timing.stages.emplace_back("upload + pack of the other slabs (beside the matching)",
                                 cu::elapsed_ms(ev[UPLOADED], ev[PACKED]));
      return;
    }
    timing.stages.emplace_back("pack", cu::elapsed_ms(ev[UPLOADED], ev[PACKED]));
    if (fused_) {
      timing.stages.emplace_back("fused tad+aggregate+wta", cu::elapsed_ms(ev[PACKED], ev[MATCHED]));
      timing.stages.emplace_back("merge chunks", cu::elapsed_ms(ev[MATCHED], ev[DONE]));
    } else {
      timing.stages.emplace_back("stages (all levels)", cu::elapsed_ms(ev[PACKED], ev[MATCHED]));
      timing.stages.emplace_back("level index", cu::elapsed_ms(ev[MATCHED], ev[DONE]));
    }
  }

  /// Fused kernel and tile, or the stage path, for shared memory per block up to the GPU's
  /// opt-in limit (capped by smem_limit): the wide tile where it fits (H100, A100), else the
  /// narrow one (RTX 30/40/50 at W >= 16, Turing), which gives the same maps; the stage path
  /// only where neither fits or the fused kernel has no instantiation for W. The choice and
  /// why go into the params JSON.
  void choose_path(std::size_t optin) {
    namespace cs = cu::salap;
    const std::size_t limit =
        options_.smem_limit > 0 ? std::min(optin, static_cast<std::size_t>(options_.smem_limit)) : optin;
    const std::string limit_text =
        std::to_string(limit) + " B" + (limit < optin ? " (smem_limit; the GPU allows " + std::to_string(optin) + " B)"
                                                      : " (the GPU's opt-in limit)");
    std::optional<cs::FusedTile> tile;
    std::string reason;
    if (options_.path == "stages") {
      reason = "path=stages requested";
    } else if (!cs::fused_supports(params_)) {
      reason = "no fused kernel for W = " + std::to_string(params_.radius()) + " (it has W in 8, 16, 24, 32)";
    } else if (!(tile = cs::fused_tile_for(params_, limit))) {
      reason = "the fused kernel needs " + std::to_string(cs::fused_shared_bytes(params_, cs::FusedTile::narrow)) +
               " B of shared memory per block (narrow tile), the limit is " + limit_text;
    } else if (*tile == cs::FusedTile::wide) {
      reason = cs::tile_description(*tile) + ": " + std::to_string(cs::fused_shared_bytes(params_, *tile)) +
               " B of shared memory per block, the limit is " + limit_text;
    } else {
      reason = cs::tile_description(*tile) + ": the wide tile needs " +
               std::to_string(cs::fused_shared_bytes(params_, cs::FusedTile::wide)) +
               " B of shared memory per block, the limit is " + limit_text;
    }
    fused_ = tile.has_value();
    tile_ = tile.value_or(cs::FusedTile::wide);
    json_["path_in_force"] = fused_ ? "fused" : "stages";
    json_["path_reason"] = reason;
    json_["fused_tile"] = fused_ ? nlohmann::json(cs::tile_name(tile_)) : nlohmann::json(nullptr);
    json_["fused_smem_bytes"] = fused_ ? nlohmann::json(cs::fused_shared_bytes(params_, tile_)) : nlohmann::json(nullptr);
    json_["smem_optin_limit"] = optin;
    arithmetic_ = options_.arithmetic == "half" ? cs::FusedArithmetic::half2 : cs::FusedArithmetic::float32;
    json_["arithmetic_in_force"] = fused_ ? cs::arithmetic_name(arithmetic_) : "float";
  }

  /// The slot's buffers for this frame and range, reused while the size stays. Transactional:
  /// the slot's recorded size changes only after every allocation succeeded, so an
  /// out-of-memory error leaves either its previous set or an empty one, never a size
  /// without its buffers.
  void prepare_slot(Slot& slot, int width, int height, int channels, int levels, bool streaming = false) {
    namespace cs = cu::salap;
    const cs::FusedPlan plan =
        fused_ ? cs::plan_fused(width, height, levels, params_, options_.d_chunk, tile_, arithmetic_, streaming)
               : cs::FusedPlan{};
    const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    const std::size_t image_bytes = pixels * static_cast<std::size_t>(channels);
    const std::size_t keys_needed = fused_ ? plan.key_count(width, height) : 0;
    if (width != slot.width || height != slot.height || channels != slot.channels) {
      // Free the old set before allocating the new one (peak memory: one set, not two), and
      // forget its size with it, so that a failure below leaves the empty state.
      slot.width = slot.height = slot.channels = 0;
      slot.h_staging.reset();
      slot.h_index.reset();
      slot.raw_left.reset();
      slot.raw_right.reset();
      slot.pair = cs::DevicePair{};
      slot.d_index.reset();
      slot.keys.reset();
      slot.key_count = 0;
      slot.stages.reset();
      slot.disparity = cu::DeviceImage<float>{};
    }
    const bool need_frame = slot.width == 0;
    const bool need_keys = keys_needed > slot.key_count;
    const bool need_stages = !fused_ && !slot.stages;
    if (need_keys) {
      slot.keys.reset();
      slot.key_count = 0;
    }
    std::size_t bytes = 0;
    // raw images, packed words, 16-bit indices
    if (need_frame) bytes += 2 * image_bytes + pixels * (2 * sizeof(std::uint32_t) + sizeof(std::uint16_t));
    if (need_keys) bytes += keys_needed * sizeof(std::uint64_t);
    if (need_stages) bytes += 10 * pixels * sizeof(float);  // StageBuffers (9 float images) + the float map
    if (bytes > 0)
      cu::require_free_memory(bytes, COMPONENT,
                              std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(channels) +
                                  " with " + std::to_string(levels) + " levels (" +
                                  (fused_ ? "fused, " + std::to_string(plan.chunks) + " chunks" : "stage path") + ")");

    // Allocate into locals; any throw here leaves the slot as it was above.
    Slot fresh;
    if (need_frame) {
      fresh.h_staging = cu::make_host_buffer<std::uint8_t>(2 * image_bytes, COMPONENT, "the image staging buffer");
      fresh.h_index = cu::make_host_buffer<std::uint8_t>(pixels * sizeof(std::uint16_t), COMPONENT,
                                                         "the disparity read-back buffer");
      fresh.raw_left = cu::make_device_buffer<std::uint8_t>(image_bytes, COMPONENT, "the left image");
      fresh.raw_right = cu::make_device_buffer<std::uint8_t>(image_bytes, COMPONENT, "the right image");
      fresh.pair.width = width;
      fresh.pair.height = height;
      fresh.pair.left = cu::make_device_buffer<std::uint32_t>(pixels, COMPONENT, "the packed left image");
      fresh.pair.right = cu::make_device_buffer<std::uint32_t>(pixels, COMPONENT, "the packed right image");
      fresh.d_index = cu::make_device_buffer<std::uint8_t>(pixels * sizeof(std::uint16_t), COMPONENT,
                                                           "the disparity level indices");
    }
    if (need_keys) fresh.keys = cu::make_device_buffer<std::uint64_t>(keys_needed, COMPONENT, "the per-chunk WTA keys");
    if (need_stages) {
      fresh.stages = std::make_unique<cs::StageBuffers>(width, height);
      fresh.disparity = cu::DeviceImage<float>(width, height, COMPONENT, "the disparity map");
    }

    // Commit: moves only, nothing below throws.
    if (need_frame) {
      slot.h_staging = std::move(fresh.h_staging);
      slot.h_index = std::move(fresh.h_index);
      slot.raw_left = std::move(fresh.raw_left);
      slot.raw_right = std::move(fresh.raw_right);
      slot.pair = std::move(fresh.pair);
      slot.d_index = std::move(fresh.d_index);
      slot.width = width;
      slot.height = height;
      slot.channels = channels;
    }
    if (need_keys) {
      slot.keys = std::move(fresh.keys);
      slot.key_count = keys_needed;
    }
    if (need_stages) {
      slot.stages = std::move(fresh.stages);
      slot.disparity = std::move(fresh.disparity);
    }
    slot.plan = plan;
    slot.pair.code = cs::pixel_code(params_, channels);
  }

  SalapParams params_;
  SalapCudaOptions options_;
  nlohmann::json json_;
  bool fused_ = true;
  cu::salap::FusedTile tile_ = cu::salap::FusedTile::wide;
  cu::salap::FusedArithmetic arithmetic_ = cu::salap::FusedArithmetic::float32;
  int ordinal_ = 0;
  std::string device_;
  nlohmann::json device_info_;
  std::vector<std::unique_ptr<Slot>> slots_;  // [0] serves compute(); match_stream uses STREAM_SLOTS
  std::unique_ptr<ThreadPool> copy_pool_;
  cu::Event epoch_;  // match_stream's time origin
};

}  // namespace

void register_salap_cuda(Registry& registry) {
  registry.add(BackendEntry{
      "salap", "cuda",
      "SA-LAP (Lu et al. ICIP 2007), CUDA: fused TAD + recursive one-sided filters + WTA per block",
      [] { return cu::device_unavailable(); },
      [](const Overrides& overrides) -> std::unique_ptr<Matcher> {
        return std::make_unique<SalapCudaMatcher>(overrides);
      }});
}

}  // namespace stereo
