// SA-LAP on CUDA: the matcher the registry creates. It runs on the GPU --device /
// STEREO_DEVICE names (switching to it in every call, whatever thread calls), owns its
// stream, events and device buffers (reused while the image size stays the same; a failed
// allocation leaves no half-built set), times upload / algorithm / read-back with CUDA
// events, and runs either the fused kernel (default; its narrow tile where the GPU's shared
// memory per block is too small for the wide one, same maps) or the unfused stage path
// (path=stages, or where no tile fits), which is the correctness fallback.

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cuda/common.h"
#include "cuda/salap/stages.h"
#include "host/backends.h"
#include "host/dataset.h"

namespace stereo {
namespace {

constexpr const char* COMPONENT = "salap/cuda";

/// Options of this backend only (bound beside SalapParams).
struct SalapCudaOptions {
  std::string path = "fused";  // the fused kernel; "stages" runs one kernel per stage and level
  int d_chunk = 0;             // levels per fused block; 0 = enough chunks for ~4 waves of blocks
  int smem_limit = 0;          // bytes; 0 = the GPU's opt-in limit (cudaDevAttrMaxSharedMemoryPerBlockOptin)

  template <class B>
  void describe(B& b) {
    b.choice("path", path, {"fused", "stages"},
             "fused kernel (W in 8,16,24,32) or the unfused per-stage kernels (any W)");
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
    stream_ = cu::make_stream();
    for (auto& e : events_) e = cu::make_event();
  }

  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);  // the caller's thread may have another device current
    const int levels = range.count;
    require(left.channels == right.channels, std::string(COMPONENT) + ": left has " +
                                                 std::to_string(left.channels) + " channels, right " +
                                                 std::to_string(right.channels));
    require(left.channels == 1 || left.channels == 3 || left.channels == 4,
            std::string(COMPONENT) + ": images must have 1, 3 or 4 channels, got " + std::to_string(left.channels));
    // The stage kernels' 2-D grids have 8-row blocks and at most 65535 blocks along y.
    require(left.height <= MAX_HEIGHT, std::string(COMPONENT) + ": image height " + std::to_string(left.height) +
                                           " exceeds the " + std::to_string(MAX_HEIGHT) + " rows the CUDA grid allows");
    prepare_buffers(left.width, left.height, left.channels, levels);
    cudaStream_t s = stream_.get();
    enum { START, UPLOADED, PACKED, MATCHED, DONE, READ };

    CUDA_CHECK(cudaEventRecord(events_[START].get(), s));
    CUDA_CHECK(cudaMemcpyAsync(frame_.raw_left.get(), left.data.data(), left.data.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(
        cudaMemcpyAsync(frame_.raw_right.get(), right.data.data(), right.data.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaEventRecord(events_[UPLOADED].get(), s));
    cu::salap::pack_pair(frame_.raw_left.get(), frame_.raw_right.get(), width_, height_, channels_, frame_.pair.code,
                         frame_.pair.left.get(), frame_.pair.right.get(), s);
    CUDA_CHECK(cudaEventRecord(events_[PACKED].get(), s));
    if (fused_) {
      cu::salap::salap_fused(frame_.pair, range, params_, plan_, keys_.get(), s);
      CUDA_CHECK(cudaEventRecord(events_[MATCHED].get(), s));
      cu::salap::merge_chunks(keys_.get(), plan_.chunks, range.min, frame_.disparity, s);
    } else {
      cu::salap::salap_stages(frame_.pair, range, params_, *stages_, frame_.disparity, s);
      CUDA_CHECK(cudaEventRecord(events_[MATCHED].get(), s));
    }
    CUDA_CHECK(cudaEventRecord(events_[DONE].get(), s));

    StereoResult result;
    result.disparity = ImageF(width_, height_, 1);
    CUDA_CHECK(cudaMemcpyAsync(result.disparity.data.data(), frame_.disparity.get(),
                               frame_.disparity.count() * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaEventRecord(events_[READ].get(), s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    Timing& t = result.timing;
    t.clock = "cuda events";
    t.upload_ms = cu::elapsed_ms(events_[START], events_[UPLOADED]);
    t.algorithm_ms = cu::elapsed_ms(events_[UPLOADED], events_[DONE]);
    t.readback_ms = cu::elapsed_ms(events_[DONE], events_[READ]);
    t.stages.emplace_back("pack", cu::elapsed_ms(events_[UPLOADED], events_[PACKED]));
    if (fused_) {
      t.stages.emplace_back("fused tad+aggregate+wta", cu::elapsed_ms(events_[PACKED], events_[MATCHED]));
      t.stages.emplace_back("merge chunks", cu::elapsed_ms(events_[MATCHED], events_[DONE]));
    } else {
      t.stages.emplace_back("stages (all levels)", cu::elapsed_ms(events_[PACKED], events_[MATCHED]));
    }
    return result;
  }

  [[nodiscard]] nlohmann::json params() const override { return json_; }
  [[nodiscard]] std::string component() const override { return COMPONENT; }
  [[nodiscard]] std::string device() const override { return device_; }
  [[nodiscard]] nlohmann::json device_info() const override { return device_info_; }

 private:
  static constexpr int MAX_HEIGHT = 65535 * 8;

  /// The buffers whose size follows the frame: raw and packed images and the disparity map.
  struct Frame {
    cu::DeviceBuffer<std::uint8_t> raw_left, raw_right;
    cu::salap::DevicePair pair;
    cu::DeviceImage<float> disparity;
  };

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
  }

  /// Buffers for this frame and range, reused while the size stays. Transactional: the
  /// recorded sizes change only after every allocation succeeded, so an out-of-memory error
  /// leaves either the previous set or an empty one, never a size without its buffers.
  void prepare_buffers(int width, int height, int channels, int levels) {
    namespace cs = cu::salap;
    const cs::FusedPlan plan =
        fused_ ? cs::plan_fused(width, height, levels, params_, options_.d_chunk, tile_) : cs::FusedPlan{};
    const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    const std::size_t keys_needed = fused_ ? plan.key_count(width, height) : 0;
    if (width != width_ || height != height_ || channels != channels_) {
      // Free the old set before allocating the new one (peak memory: one set, not two), and
      // forget its size with it, so that a failure below leaves the empty state.
      width_ = height_ = channels_ = 0;
      frame_ = Frame{};
      keys_.reset();
      key_count_ = 0;
      stages_.reset();
    }
    const bool need_frame = width_ == 0;
    const bool need_keys = keys_needed > key_count_;
    const bool need_stages = !fused_ && !stages_;
    if (need_keys) {
      keys_.reset();
      key_count_ = 0;
    }
    std::size_t bytes = 0;
    if (need_frame) bytes += pixels * (2 * static_cast<std::size_t>(channels) + 2 * sizeof(std::uint32_t) + sizeof(float));
    if (need_keys) bytes += keys_needed * sizeof(std::uint64_t);
    if (need_stages) bytes += 9 * pixels * sizeof(float);  // StageBuffers: 9 float images
    if (bytes > 0)
      cu::require_free_memory(bytes, COMPONENT,
                              std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(channels) +
                                  " with " + std::to_string(levels) + " levels (" +
                                  (fused_ ? "fused, " + std::to_string(plan.chunks) + " chunks" : "stage path") + ")");

    // Allocate into locals; any throw here leaves the members as they were above.
    Frame frame;
    if (need_frame) {
      const std::size_t bytes_per_image = pixels * static_cast<std::size_t>(channels);
      frame.raw_left = cu::make_device_buffer<std::uint8_t>(bytes_per_image, COMPONENT, "the left image");
      frame.raw_right = cu::make_device_buffer<std::uint8_t>(bytes_per_image, COMPONENT, "the right image");
      frame.pair.width = width;
      frame.pair.height = height;
      frame.pair.left = cu::make_device_buffer<std::uint32_t>(pixels, COMPONENT, "the packed left image");
      frame.pair.right = cu::make_device_buffer<std::uint32_t>(pixels, COMPONENT, "the packed right image");
      frame.disparity = cu::DeviceImage<float>(width, height, COMPONENT, "the disparity map");
    }
    cu::DeviceBuffer<std::uint64_t> keys;
    if (need_keys) keys = cu::make_device_buffer<std::uint64_t>(keys_needed, COMPONENT, "the per-chunk WTA keys");
    std::unique_ptr<cs::StageBuffers> stages;
    if (need_stages) stages = std::make_unique<cs::StageBuffers>(width, height);

    // Commit: moves only, nothing below throws.
    if (need_frame) {
      frame_ = std::move(frame);
      width_ = width;
      height_ = height;
      channels_ = channels;
    }
    if (need_keys) {
      keys_ = std::move(keys);
      key_count_ = keys_needed;
    }
    if (need_stages) stages_ = std::move(stages);
    plan_ = plan;
    frame_.pair.code = cs::pixel_code(params_, channels);
  }

  SalapParams params_;
  SalapCudaOptions options_;
  nlohmann::json json_;
  bool fused_ = true;
  cu::salap::FusedTile tile_ = cu::salap::FusedTile::wide;
  int ordinal_ = 0;
  std::string device_;
  nlohmann::json device_info_;
  cu::Stream stream_;
  std::array<cu::Event, 6> events_;

  int width_ = 0, height_ = 0, channels_ = 0;  // of frame_; 0 = no frame buffers
  Frame frame_;
  cu::salap::FusedPlan plan_;
  cu::DeviceBuffer<std::uint64_t> keys_;
  std::size_t key_count_ = 0;
  std::unique_ptr<cu::salap::StageBuffers> stages_;
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
