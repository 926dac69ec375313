// SA-LAP on CUDA: the matcher the registry creates. The frame (cuda/matcher_frame.h
// CudaMatcher) binds its Params and Options, selects the device and reports its facts; what is
// SA-LAP's own stays here: it reads back the winning level indices (8 bits up to 256 levels, 16
// above) rather than a float map, overlaps three frames in a sequence (one slot of stream, stage
// clock and workspace per frame in flight, see match_stream; salap_submit.cpp enqueues a frame),
// and runs either the fused kernel (default; its narrow tile where the GPU's shared memory per
// block is too small for the wide one, same maps) or the unfused stage path (path=stages, or
// where no tile fits), which is the correctness fallback.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "core/thread_pool.h"
#include "cuda/common.h"
#include "cuda/frame_stream.h"
#include "cuda/matcher_frame.h"
#include "methods/salap/cuda/salap_cuda.h"
#include "methods/salap/cuda/salap_inspect.h"
#include "methods/salap/cuda/stages.h"
#include "methods/salap/register.h"

namespace stereo {
namespace {

using salap_cuda::COMPONENT;
using salap_cuda::SalapCudaOptions;
using salap_cuda::Slot;
namespace cs = cu::salap;

class SalapCudaMatcher final : public cu::CudaMatcher<SalapParams, SalapCudaOptions> {
 public:
  explicit SalapCudaMatcher(const Overrides& overrides) : CudaMatcher(COMPONENT, overrides) {
    choose_path(cu::shared_memory_optin_limit(ordinal()));
    (void)slot_at(0);  // compute()'s stream and events, created on this device
    epoch_ = cu::make_event();
  }

  // Single runs with the map in host memory only: a sequence's frames go through three slots,
  // and a map written to device memory leaves no indices on the host (salap_inspect.h).
  void keep_passes(bool keep) override {
    inspector_ = keep ? std::make_unique<salap_cuda::SalapCudaInspector>(params_) : nullptr;
  }
  PassInspector* inspector() override { return inspector_.get(); }
  /// The slots' workspaces as each was allocated (cu::Workspace::held_bytes): every device
  /// buffer of this matcher is in one; nullopt before the first frame.
  [[nodiscard]] std::optional<DeviceMemoryUse> device_memory() const override {
    DeviceMemoryUse use;
    bool any = false;
    for (const auto& slot : slots_)
      if (slot->work.held() != nullptr) {
        any = true;
        use.bytes += double(slot->work.held_bytes());
        use.declared_bytes += double(slot->work.declared_bytes());
      }
    return any ? std::optional<DeviceMemoryUse>(use) : std::nullopt;
  }

 protected:
  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    return match_view(ImageView(left), ImageView(right), range);
  }

  StereoResult match_view(const ImageView& left, const ImageView& right, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal());
    Slot& slot = run_single(left, right, range);
    // The float map is allocated (and zero-filled, 8 MB at 1080p: ~0.5 ms of one core) while
    // the device works, so only the widening below waits for the device.
    StereoResult result;
    result.disparity = ImageF(left.width, left.height, 1);
    wait(slot, result.timing);
    widen_into(slot, range, DisparityView(result.disparity), result.timing);
    return result;
  }

  DisparityMap match_compact(const ImageU8& left, const ImageU8& right, DisparityRange range,
                             Timing& timing) override {
    return match_compact_view(ImageView(left), ImageView(right), range, timing);
  }

  DisparityMap match_compact_view(const ImageView& left, const ImageView& right, DisparityRange range,
                                  Timing& timing) override {
    const cu::DeviceScope device_scope(ordinal());  // the caller's thread may have another device current
    Slot& slot = run_single(left, right, range);
    DisparityMap map = DisparityMap::allocate(DisparityMap::index_form(range.count), left.width, left.height, range);
    wait(slot, timing);
    const auto t0 = std::chrono::steady_clock::now();
    copy_out(slot, map);
    timing.readback_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return map;
  }

  /// A host map: the indices widened straight into it (as match_view widens into its own).
  /// A device map: the frame whole, the float map made on the device and copied into `out`.
  Timing match_into(const ImageView& left, const ImageView& right, DisparityRange range,
                    const DisparityView& out) override {
    const cu::DeviceScope device_scope(ordinal());
    Timing timing;
    if (out.memory == Memory::cuda) {
      accept_output(out);
      check_input(left, range);
      Slot& slot = slot_at(0);
      device_maps_ = true;  // slot 0 keeps its float map from here on, rather than reallocating
      prepare_slot(slot, left, range);
      accept_views(left, right, slot.stream.get());
      salap_cuda::submit(slot, left, right, range, /*slabs=*/false, method(), &out);
      wait(slot, timing);
      if (inspector_) inspector_->detach();  // its map never reached the host
      return timing;
    }
    Slot& slot = run_single(left, right, range);
    wait(slot, timing);
    widen_into(slot, range, out, timing);
    return timing;
  }

  // Frames go round STREAM_SLOTS slots, each with its own stream, staging and device buffers:
  // while frame i's kernels run on one stream, frame i+1's upload runs on the next (the copy
  // engines work beside the SMs) and frame i-1's indices come back on the third. A slot is
  // reused only after its frame was delivered, so no staging buffer is written while a copy
  // still reads it.
  void match_stream(DisparityRange range, const FrameSource& next, const FrameSink& done) override {
    const cu::DeviceScope device_scope(ordinal());
    // Frames overlap on the device (one's upload beside another's kernels, and two frames'
    // kernels sharing the SMs), so a frame's own event spans measure queueing as well as work
    // and add up to more than the stream's time. What each frame reports instead is the time
    // it added to each engine's timeline: from the later of its own start and the previous
    // frame's end of the same step, to its end of that step. These add up to the stream's
    // span per step, so their mean is the step's cost per frame at the stream's throughput.
    // Event times are read against one epoch event, since a slot's events are recorded anew
    // for a later frame once this one is delivered.
    CUDA_CHECK(cudaEventRecord(epoch_.get(), slot_at(0).stream.get()));
    if (inspector_) inspector_->detach();  // the slots will hold the sequence's frames
    std::optional<cu::StageClock::Marks> previous;
    const auto deliver = [&](std::size_t frame) {
      FrameResult r;
      r.index = frame;
      Slot& slot = *slots_[frame % STREAM_SLOTS];
      const salap_cuda::SlotBuffers& b = *slot.work.held();
      r.disparity = DisparityMap::allocate(DisparityMap::index_form(range.count), b.width, b.height, range);
      wait(slot, r.timing);
      copy_out(slot, r.disparity);
      const cu::StageClock::Marks now = slot.clock.marks_after(epoch_);
      const cu::StageClock::Marks before = previous.value_or(cu::StageClock::Marks{});
      const auto added = [](double start, double end, double previous_end) {
        return std::max(0.0, end - std::max(start, previous_end));
      };
      r.timing.clock = "cuda events, each frame's time beyond the previous frame's on each step (frames overlap)";
      r.timing.upload_ms = added(now.start, now.uploaded, before.uploaded);
      r.timing.algorithm_ms = added(now.uploaded, now.matched, before.matched);
      r.timing.readback_ms = added(now.matched, now.read, before.read);
      // The stages' own spans overlap other frames' work: they stay as measured, for what a
      // stage took from its start to its end while sharing the device.
      previous = now;
      done(std::move(r));
    };
    const auto submit = [&](const FramePair& pair, std::size_t frame) {
      if (frame == 0) {
        check_input(ImageView(pair.left), range);
        // Every slot for this size before the first submit: the sequence then allocates
        // nothing (match_sequence guarantees one size), so its memory stays where it is.
        for (std::size_t i = 0; i < STREAM_SLOTS; ++i)
          prepare_slot(slot_at(i), ImageView(pair.left), range, /*streaming=*/true);
      }
      // Whole frames: the stream overlaps one frame's upload with another's matching already.
      salap_cuda::submit(*slots_[frame % STREAM_SLOTS], ImageView(pair.left), ImageView(pair.right), range,
                         /*slabs=*/false, method());
    };
    cu::keep_in_flight([] { return STREAM_SLOTS; }, next, submit, deliver);
  }

 private:
  static constexpr int MAX_HEIGHT = 65535 * 8;
  /// Frames in flight in match_stream: one uploading, one matching, one reading back.
  static constexpr std::size_t STREAM_SLOTS = 3;

  [[nodiscard]] nlohmann::json facts() const override { return facts_; }

  /// The fewest bytes each lap moves on the path in force (salap_bytes.cpp), under the plan a
  /// single frame of this size runs with; the images as bench's pair has them (RGB).
  [[nodiscard]] std::optional<cu::StageBytes> stage_bytes(const cu::ProblemSize& size) const override {
    if (!fused_) return salap_cuda::stage_bytes(size, 3, nullptr, params_.radius());
    const cu::DeviceScope device_scope(ordinal());  // plan_fused reads the device's SM count
    const cs::FusedPlan plan =
        cs::plan_fused(size.width, size.height, size.range.count, params_, options_.d_chunk, tile_, arithmetic_);
    return salap_cuda::stage_bytes(size, 3, &plan, params_.radius());
  }

  void check_input(const ImageView& left, DisparityRange range) const {
    // The stage kernels' 2-D grids have 8-row blocks and at most 65535 blocks along y.
    require(left.height <= MAX_HEIGHT, [&] {
      return std::string(COMPONENT) + ": image height " + std::to_string(left.height) + " exceeds the " +
             std::to_string(MAX_HEIGHT) + " rows the CUDA grid allows";
    });
    // The map comes back as 8- or 16-bit level indices (core/matcher.h DisparityMap).
    require(range.count <= 65536, [&] {
      return std::string(COMPONENT) + ": " + std::to_string(range.count) +
             " levels exceed the 65536 a 16-bit index holds";
    });
  }

  /// compute()'s frame: slot 0 prepared for the pair and the frame submitted in row slabs
  /// (after the device views' producer streams, where the views are in device memory).
  Slot& run_single(const ImageView& left, const ImageView& right, DisparityRange range) {
    check_input(left, range);
    Slot& slot = slot_at(0);
    prepare_slot(slot, left, range);
    accept_views(left, right, slot.stream.get());
    salap_cuda::submit(slot, left, right, range, /*slabs=*/true, method());
    if (inspector_) inspector_->attach(slot, range, ordinal());
    return slot;
  }

  /// The device hands back level indices; a caller that asks for floats gets them widened
  /// into `out` (host memory, any pitch), straight from the pinned buffer and on the copy
  /// pool's threads, and that widening (host clock, after the device finished) is part of
  /// its read-back time. After wait().
  void widen_into(Slot& slot, DisparityRange range, const DisparityView& out, Timing& timing) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto d_min = static_cast<float>(range.min);
    const std::uint8_t* h_index = slot.work.held()->h_index.get();
    if (DisparityMap::index_form(range.count) == DisparityMap::Form::index_u16)
      widen(reinterpret_cast<const std::uint16_t*>(h_index), out, d_min);
    else
      widen(h_index, out, d_min);
    timing.readback_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  salap_cuda::Method method() { return salap_cuda::Method{params_, fused_, copy_pool()}; }

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
  /// A dense `out` in chunks of whole cache lines; one with a pitch in bands of rows.
  template <class Index>
  void widen(const Index* src, const DisparityView& out, float d_min) {
    ThreadPool& pool = copy_pool();
    const std::size_t parts = pool.size();
    if (out.pitch == out.row_bytes()) {
      float* dst = out.data;
      const std::size_t n = static_cast<std::size_t>(out.width) * static_cast<std::size_t>(out.height);
      const std::size_t chunk = ((n + parts - 1) / parts + 63) / 64 * 64;  // whole cache lines of dst
      pool.parallel_for(parts, [&](std::size_t k) {
        const std::size_t end = std::min(n, (k + 1) * chunk);
        for (std::size_t i = k * chunk; i < end; ++i) dst[i] = d_min + static_cast<float>(src[i]);
      });
      return;
    }
    const std::size_t width = static_cast<std::size_t>(out.width), height = static_cast<std::size_t>(out.height);
    pool.parallel_for(parts, [&](std::size_t k) {
      for (std::size_t y = height * k / parts; y < height * (k + 1) / parts; ++y) {
        float* row = out.row(int(y));
        const Index* in = src + y * width;
        for (std::size_t x = 0; x < width; ++x) row[x] = d_min + static_cast<float>(in[x]);
      }
    });
  }

  Slot& slot_at(std::size_t i) {
    while (slots_.size() <= i) slots_.push_back(std::make_unique<Slot>());
    return *slots_[i];
  }

  /// Copies the slot's read-back indices into `map` (allocated by the caller in the index
  /// form of the slot's range), after wait().
  void copy_out(Slot& slot, DisparityMap& map) {
    const std::uint8_t* h_index = slot.work.held()->h_index.get();
    if (map.form == DisparityMap::Form::index_u16)
      cu::parallel_copy(copy_pool(), map.index16.data(), h_index, map.index16.size() * sizeof(std::uint16_t));
    else
      cu::parallel_copy(copy_pool(), map.index8.data(), h_index, map.index8.size());
  }

  /// Waits for the slot's frame; fills `timing` from the slot's clock (each step's span on
  /// its stream; the host's copy out of the pinned buffer is the caller's to add).
  static void wait(Slot& slot, Timing& timing) {
    timing = slot.clock.timing();
    if (slot.slabbed)
      timing.clock = "cuda events; upload = the first of " + std::to_string(salap_cuda::SLABS) +
                     " row slabs (the others upload while the matching runs: in algorithm), read-back = the "
                     "last slab's merge and copy (the others' overlap the matching)";
  }

  /// Fused kernel and tile, or the stage path, for shared memory per block up to the GPU's
  /// opt-in limit (capped by smem_limit): the wide tile where it fits (H100, A100), else the
  /// narrow one (RTX 30/40/50 at W >= 16, Turing), which gives the same maps; the stage path
  /// only where neither fits or the fused kernel has no instantiation for W. The choice and
  /// why are facts of the params JSON.
  void choose_path(std::size_t optin) {
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
    arithmetic_ = options_.arithmetic == "half" ? cs::FusedArithmetic::half2 : cs::FusedArithmetic::float32;
    facts_ = {{"path_in_force", fused_ ? "fused" : "stages"},
              {"path_reason", reason},
              {"fused_tile", fused_ ? nlohmann::json(cs::tile_name(tile_)) : nlohmann::json(nullptr)},
              {"fused_smem_bytes",
               fused_ ? nlohmann::json(cs::fused_shared_bytes(params_, tile_)) : nlohmann::json(nullptr)},
              {"smem_optin_limit", optin},
              {"arithmetic_in_force", fused_ ? cs::arithmetic_name(arithmetic_) : "float"}};
  }

  /// The slot's plan and buffers for this pair and range (cuda/workspace.h: reused while the
  /// size, channels and key planes stay; a failed allocation leaves no half-built set).
  void prepare_slot(Slot& slot, const ImageView& left, DisparityRange range, bool streaming = false) {
    slot.plan = fused_ ? cs::plan_fused(left.width, left.height, range.count, params_, options_.d_chunk, tile_,
                                        arithmetic_, streaming)
                       : cs::FusedPlan{};
    const salap_cuda::SlotBuffers::Key key{left.width,
                                           left.height,
                                           left.channels,
                                           fused_ ? slot.plan.key_count(left.width, left.height) : 0,
                                           !fused_,
                                           device_maps_ && !streaming,
                                           range.count,
                                           slot.plan.chunks};
    slot.work.prepare(key, slot.stream.get()).pair.code = cs::pixel_code(params_, left.channels);
  }

  bool fused_ = true;
  cs::FusedTile tile_ = cs::FusedTile::wide;
  cs::FusedArithmetic arithmetic_ = cs::FusedArithmetic::float32;
  nlohmann::json facts_;
  std::vector<std::unique_ptr<Slot>> slots_;  // [0] serves compute(); match_stream uses STREAM_SLOTS
  std::unique_ptr<ThreadPool> copy_pool_;
  bool device_maps_ = false;  // a map was asked for in device memory: slot 0 keeps a float map
  cu::Event epoch_;  // match_stream's time origin
  std::unique_ptr<salap_cuda::SalapCudaInspector> inspector_;  // keep_passes(true)
};

}  // namespace

void register_salap_cuda(Registry& registry) {
  registry.add(cu::backend_entry<SalapCudaMatcher>(
      "salap", "SA-LAP (Lu et al. ICIP 2007), CUDA: fused TAD + recursive one-sided filters + WTA per block"));
}

}  // namespace stereo
