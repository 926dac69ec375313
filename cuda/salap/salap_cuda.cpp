// SA-LAP on CUDA: the matcher the registry creates. It owns its stream, events and device
// buffers (reused while the image size stays the same), times upload / algorithm /
// read-back with CUDA events, and runs either the fused kernel (default) or the unfused
// stage path (path=stages), which is the correctness fallback.

#include <array>
#include <memory>

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

  template <class B>
  void describe(B& b) {
    b.choice("path", path, {"fused", "stages"},
             "fused kernel (W in 8,16,24,32) or the unfused per-stage kernels (any W)");
    b.field("d_chunk", d_chunk, "disparity levels per fused block, <= 256; 0 = automatic");
  }
};

class SalapCudaMatcher final : public Matcher {
 public:
  explicit SalapCudaMatcher(const Overrides& overrides) {
    json_ = bind_params(COMPONENT, overrides, params_, options_);
    params_.validate(COMPONENT);
    require(options_.d_chunk >= 0 && options_.d_chunk <= 256,
            std::string(COMPONENT) + ": d_chunk must be in 0..256, got " + std::to_string(options_.d_chunk));
    fused_ = options_.path == "fused" && cu::salap::fused_supports(params_);
    json_["path_in_force"] = fused_ ? "fused" : "stages";
    device_ = cu::device_name();
    stream_ = cu::make_stream();
    for (auto& e : events_) e = cu::make_event();
  }

  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    require(range.min == 0, std::string(COMPONENT) + ": a minimum disparity other than 0 is not supported yet");
    const int levels = range.count;
    require(left.channels == right.channels, std::string(COMPONENT) + ": left has " +
                                                 std::to_string(left.channels) + " channels, right " +
                                                 std::to_string(right.channels));
    require(left.channels == 1 || left.channels == 3 || left.channels == 4,
            std::string(COMPONENT) + ": images must have 1, 3 or 4 channels, got " + std::to_string(left.channels));
    prepare_buffers(left.width, left.height, left.channels, levels);
    cudaStream_t s = stream_.get();
    enum { START, UPLOADED, PACKED, MATCHED, DONE, READ };

    CUDA_CHECK(cudaEventRecord(events_[START].get(), s));
    CUDA_CHECK(cudaMemcpyAsync(raw_left_.get(), left.data.data(), left.data.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(raw_right_.get(), right.data.data(), right.data.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaEventRecord(events_[UPLOADED].get(), s));
    cu::salap::pack_pair(raw_left_.get(), raw_right_.get(), width_, height_, channels_, pair_.code,
                         pair_.left.get(), pair_.right.get(), s);
    CUDA_CHECK(cudaEventRecord(events_[PACKED].get(), s));
    if (fused_) {
      cu::salap::salap_fused(pair_, levels, params_, plan_, keys_.get(), s);
      CUDA_CHECK(cudaEventRecord(events_[MATCHED].get(), s));
      cu::salap::merge_chunks(keys_.get(), plan_.chunks, disparity_, s);
    } else {
      cu::salap::salap_stages(pair_, levels, params_, *stages_, disparity_, s);
      CUDA_CHECK(cudaEventRecord(events_[MATCHED].get(), s));
    }
    CUDA_CHECK(cudaEventRecord(events_[DONE].get(), s));

    StereoResult result;
    result.disparity = ImageF(width_, height_, 1);
    CUDA_CHECK(cudaMemcpyAsync(result.disparity.data.data(), disparity_.get(), disparity_.count() * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
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

 private:
  void prepare_buffers(int width, int height, int channels, int levels) {
    const bool same = width == width_ && height == height_ && channels == channels_;
    if (!same) {
      width_ = width;
      height_ = height;
      channels_ = channels;
      const std::size_t bytes = static_cast<std::size_t>(width) * height * channels;
      raw_left_ = cu::make_device_buffer<std::uint8_t>(bytes, COMPONENT, "the left image");
      raw_right_ = cu::make_device_buffer<std::uint8_t>(bytes, COMPONENT, "the right image");
      pair_ = cu::salap::DevicePair{};
      pair_.width = width;
      pair_.height = height;
      pair_.left = cu::make_device_buffer<std::uint32_t>(std::size_t(width) * height, COMPONENT, "the packed left image");
      pair_.right = cu::make_device_buffer<std::uint32_t>(std::size_t(width) * height, COMPONENT, "the packed right image");
      disparity_ = cu::DeviceImage<float>(width, height, COMPONENT, "the disparity map");
      keys_.reset();
      key_count_ = 0;
      stages_.reset();
    }
    pair_.code = cu::salap::pixel_code(params_, channels);
    if (fused_) {
      plan_ = cu::salap::plan_fused(width, height, levels, params_, options_.d_chunk);
      const std::size_t needed = plan_.key_count(width, height);
      if (needed > key_count_) {
        keys_.reset();
        keys_ = cu::make_device_buffer<std::uint64_t>(needed, COMPONENT, "the per-chunk WTA keys");
        key_count_ = needed;
      }
    } else if (!stages_) {
      stages_ = std::make_unique<cu::salap::StageBuffers>(width, height);
    }
  }

  SalapParams params_;
  SalapCudaOptions options_;
  nlohmann::json json_;
  bool fused_ = true;
  std::string device_;
  cu::Stream stream_;
  std::array<cu::Event, 6> events_;

  int width_ = 0, height_ = 0, channels_ = 0;
  cu::DeviceBuffer<std::uint8_t> raw_left_, raw_right_;
  cu::salap::DevicePair pair_;
  cu::DeviceImage<float> disparity_;
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
