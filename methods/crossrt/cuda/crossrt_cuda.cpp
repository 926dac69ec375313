// Chang and Maruyama's real-time cross-based stereo on CUDA: the matcher the registry creates.
// It owns its stream, events and device buffers (sized from the problem, checked against free
// GPU memory before allocating, all allocated before any is kept, reused while the size stays
// the same) and runs the stages of cuda/crossrt/stages.h in the reference matcher's order,
// timing each with CUDA events under the paper's Table II names.

#include <array>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cuda/common.h"
#include "cuda/copy_ceiling.h"
#include "methods/crossrt/cuda/stages.h"
#include "cuda/shared/median.h"
#include "methods/crossrt/register.h"
#include "methods/crossrt/model.h"
#include "methods/crossrt/params.h"
#include "core/registry.h"

namespace stereo {
namespace {

constexpr const char* COMPONENT = "crossrt/cuda";
namespace cr = cu::crossrt;

constexpr std::size_t ALLOCATION_SLACK = std::size_t(2) << 20;  // cudaMalloc rounds each buffer up

/// Every device buffer of one problem size, built whole before the matcher keeps it.
struct Workspace {
  int width = 0, height = 0, channels = 0, scale = 0, levels = 0;
  int scaled_width = 0, scaled_height = 0;
  cu::DeviceBuffer<std::uint8_t> raw_left, raw_right;
  cu::DeviceImage<std::uint8_t> grey_left, grey_right, scaled_left, scaled_right, gcp_mask;
  cu::DeviceImage<uchar2> arms_x_left, arms_x_right, arms_y_left, arms_y_right;
  cr::DeviceVolume16 cax_left, cax_right;
  cu::DeviceImage<float> disparity_left, disparity_right, refined, median, filled, full;

  static constexpr int BUFFERS = 2 + 5 + 4 + 2 + 6;

  static std::size_t bytes_needed(int w, int h, int c, int scale, int levels) {
    const std::size_t px = std::size_t(w) * std::size_t(h);
    const int sw = (w + scale - 1) / scale;
    const int sh = (h + scale - 1) / scale;
    const std::size_t spx = std::size_t(sw) * std::size_t(sh);
    const std::size_t exact = 2 * px * std::size_t(c) + 2 * px + 3 * spx + 4 * spx * sizeof(uchar2) +
                              2 * cr::DeviceVolume16::cells(sw, sh, levels) * sizeof(std::uint16_t) +
                              5 * spx * sizeof(float) + px * sizeof(float);
    return exact + BUFFERS * ALLOCATION_SLACK;
  }

  Workspace(int w, int h, int c, int k, DisparityRange levels_range)
      : width(w), height(h), channels(c), scale(k), levels(levels_range.count),
        scaled_width((w + k - 1) / k), scaled_height((h + k - 1) / k) {
    const std::size_t px = std::size_t(w) * std::size_t(h);
    const int sw = scaled_width, sh = scaled_height;
    raw_left = cu::make_device_buffer<std::uint8_t>(px * std::size_t(c), COMPONENT, "the left image");
    raw_right = cu::make_device_buffer<std::uint8_t>(px * std::size_t(c), COMPONENT, "the right image");
    grey_left = {w, h, COMPONENT, "the left grey image"};
    grey_right = {w, h, COMPONENT, "the right grey image"};
    scaled_left = {sw, sh, COMPONENT, "the scaled left image"};
    scaled_right = {sw, sh, COMPONENT, "the scaled right image"};
    gcp_mask = {sw, sh, COMPONENT, "the GCP mask"};
    arms_x_left = {sw, sh, COMPONENT, "the left horizontal arms"};
    arms_x_right = {sw, sh, COMPONENT, "the right horizontal arms"};
    arms_y_left = {sw, sh, COMPONENT, "the left vertical arms"};
    arms_y_right = {sw, sh, COMPONENT, "the right vertical arms"};
    cax_left = {sw, sh, levels_range, COMPONENT, "the left CA_x volume"};
    cax_right = {sw, sh, levels_range, COMPONENT, "the right CA_x volume"};
    disparity_left = {sw, sh, COMPONENT, "the left disparity map"};
    disparity_right = {sw, sh, COMPONENT, "the right disparity map"};
    refined = {sw, sh, COMPONENT, "the sub-pixel left map"};
    median = {sw, sh, COMPONENT, "the median-filtered map"};
    filled = {sw, sh, COMPONENT, "the filled map"};
    full = {w, h, COMPONENT, "the full-size map"};
  }
};

std::string mib(std::size_t bytes) {
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << double(bytes) / (1024.0 * 1024.0);
  return s.str();
}

class CrossRtCudaMatcher final : public Matcher {
 public:
  explicit CrossRtCudaMatcher(const Overrides& overrides) {
    json_ = bind_params(COMPONENT, overrides, params_);
    params_.validate(COMPONENT);
    json_["cost_storage"] = "uint16 CA_x";  // cuda/crossrt/NOTES.md
    ordinal_ = cu::select_device(COMPONENT);
    device_info_ = cu::device_info_json(ordinal_);
    device_ = device_info_.at("name").get<std::string>();
    tables_ = cr::make_tables(params_);
    stream_ = cu::make_stream();
    for (auto& e : events_) e = cu::make_event();
  }

  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);
    require(left.channels == right.channels, std::string(COMPONENT) + ": left has " + std::to_string(left.channels) +
                                                 " channels, right " + std::to_string(right.channels));
    require(left.channels == 1 || left.channels == 3 || left.channels == 4,
            std::string(COMPONENT) + ": images must have 1, 3 or 4 channels, got " + std::to_string(left.channels));
    const DisparityRange levels = crossrt::scaled_range(range, params_.scale);
    prepare(left.width, left.height, left.channels, levels);
    Workspace& w = *work_;
    w.cax_left.range = levels;
    w.cax_right.range = levels;
    cudaStream_t s = stream_.get();
    marks_.clear();

    CUDA_CHECK(cudaEventRecord(events_[0].get(), s));
    CUDA_CHECK(cudaMemcpyAsync(w.raw_left.get(), left.data.data(), left.data.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(w.raw_right.get(), right.data.data(), right.data.size(), cudaMemcpyHostToDevice, s));
    mark("upload");

    cr::scale_down(w.raw_left.get(), w.channels, params_.scale, w.grey_left, w.scaled_left, s);
    cr::scale_down(w.raw_right.get(), w.channels, params_.scale, w.grey_right, w.scaled_right, s);
    mark("SD");
    cr::arms_x(w.scaled_left, params_.wx, params_.tc, w.arms_x_left, s);
    cr::arms_x(w.scaled_right, params_.wx, params_.tc, w.arms_x_right, s);
    mark("arms x");
    cr::arms_y(w.scaled_left, params_.wy, params_.tc, w.arms_y_left, s);
    cr::arms_y(w.scaled_right, params_.wy, params_.tc, w.arms_y_right, s);
    mark("arms y");
    cr::cost_aggregate_x(w.scaled_left, w.scaled_right, w.arms_x_left, w.arms_x_right, tables_, levels, w.cax_left,
                         w.cax_right, ordinal_, s, params_.wx);
    mark("C+CA_x");
    cr::aggregate_y_wta(w.cax_left, w.arms_y_left, w.disparity_left, ordinal_, s,
                        params_.subpixel ? &w.refined : nullptr, params_.wy);
    cr::aggregate_y_wta(w.cax_right, w.arms_y_right, w.disparity_right, ordinal_, s, nullptr, params_.wy);
    mark("CA");
    cr::gcp(w.disparity_left, w.disparity_right, w.gcp_mask, s);
    mark("CC");
    // The GCPs compare the integer maps; the post stages take the refined one when asked.
    cu::median_3x3(params_.subpixel ? w.refined : w.disparity_left, w.median, s);
    cr::bilateral_fill(w.median, w.gcp_mask, w.scaled_left, params_.t, w.filled, s);
    mark("Post");
    const cu::DeviceImage<float>* result = &w.filled;
    if (params_.scale == 2) {
      cr::scale_up(w.filled, w.grey_left, params_.t, range, w.full, s);
      result = &w.full;
    }
    mark("SU");
    const cudaEvent_t done = events_[marks_.size() + 1].get();
    CUDA_CHECK(cudaEventRecord(done, s));

    StereoResult out;
    out.disparity = ImageF(result->width, result->height, 1);
    CUDA_CHECK(cudaMemcpyAsync(out.disparity.data.data(), result->get(), result->count() * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
    const cudaEvent_t read = events_[marks_.size() + 2].get();
    CUDA_CHECK(cudaEventRecord(read, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    Timing& t = out.timing;
    t.clock = "cuda events";
    t.upload_ms = cu::elapsed_ms(events_[0], events_[1]);
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events_[1].get(), done));
    t.algorithm_ms = ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, done, read));
    t.readback_ms = ms;
    for (std::size_t i = 1; i < marks_.size(); ++i)
      t.stages.emplace_back(marks_[i], cu::elapsed_ms(events_[i], events_[i + 1]));
    return out;
  }

  [[nodiscard]] nlohmann::json params() const override { return json_; }
  [[nodiscard]] std::string component() const override { return COMPONENT; }
  [[nodiscard]] std::string device() const override { return device_; }
  [[nodiscard]] nlohmann::json device_info() const override { return device_info_; }

  /// The fewest bytes each timed stage moves in this design (both views; NOTES.md).
  std::optional<MemoryStats> memory_stats(int width, int height, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);
    const int k = params_.scale;
    const double px = double(width) * double(height);
    const double spx = double((width + k - 1) / k) * double((height + k - 1) / k);
    const double cells = spx * double(crossrt::scaled_range(range, k).count);
    MemoryStats m;
    m.stage_bytes = {
        {"SD", 2.0 * (px * 3.0 + px + spx)},           // RGB in, full and scaled grey out, per view
        {"arms x", 2.0 * (spx + 2.0 * spx)},           // grey in, uchar2 out, per view
        {"arms y", 2.0 * (spx + 2.0 * spx)},
        {"C+CA_x", 2.0 * spx + 4.0 * spx + cells * 2.0 * 2.0},  // grey + arms in, both CA_x out (uint16)
        {"CA", cells * 2.0 * 2.0 + 2.0 * (2.0 * spx + 4.0 * spx)},  // both CA_x in, arms in, maps out
        {"CC", spx * (4.0 + 4.0 + 1.0)},
        {"Post", spx * (4.0 + 4.0) + spx * (4.0 + 1.0 + 1.0 + 4.0)},  // median; fill
        {"SU", k == 2 ? spx * 4.0 + px * (1.0 + 4.0) : 0.0},
    };
    m.copy_gb_s = cu::measure_copy_gb_s(std::size_t(512) << 20, 9, stream_.get());
    return m;
  }

 private:
  void mark(const std::string& name) {
    require(marks_.size() + 4 <= events_.size(), std::string(COMPONENT) + ": too many timed stages");
    marks_.push_back(name);
    CUDA_CHECK(cudaEventRecord(events_[marks_.size()].get(), stream_.get()));
  }

  void prepare(int width, int height, int channels, DisparityRange levels) {
    const int k = params_.scale;
    if (work_ && work_->width == width && work_->height == height && work_->channels == channels &&
        work_->scale == k && work_->levels == levels.count)
      return;
    const std::size_t needed = Workspace::bytes_needed(width, height, channels, k, levels.count);
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    // Rows and columns longer than shared memory holds go in segments (cuda/crossrt/NOTES.md);
    // refuse, naming the image, only what even segments cannot take, before allocating.
    const int scaled_width = (width + k - 1) / k;
    const int scaled_height = (height + k - 1) / k;
    const std::string scaled = std::to_string(scaled_width) + "x" + std::to_string(scaled_height);
    require(cr::cost_aggregate_x_supports(scaled_width, params_.wx, ordinal_) &&
                cr::aggregate_y_supports(scaled_height, params_.wy, ordinal_),
            std::string(COMPONENT) + ": a " + size + " image (" + scaled + " at scale " + std::to_string(k) +
                ") with " + std::to_string(levels.count) + " scaled levels needs " + mib(needed) +
                " MiB of GPU memory, but its rows or columns do not fit this GPU's shared memory even in segments");
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t held =
        work_ ? Workspace::bytes_needed(work_->width, work_->height, work_->channels, work_->scale, work_->levels) : 0;
    if (needed > free_bytes + held)
      throw Error(std::string(COMPONENT) + ": " + size + " with " + std::to_string(levels.count) +
                  " scaled levels needs " + mib(needed) + " MiB of GPU memory, " + mib(free_bytes + held) +
                  " MiB free");
    work_.reset();  // release the old size first, so the new one can use its memory
    auto fresh = std::make_unique<Workspace>(width, height, channels, k, levels);
    work_ = std::move(fresh);
  }

  CrossRtParams params_;
  nlohmann::json json_;
  int ordinal_ = 0;
  nlohmann::json device_info_;
  std::string device_;
  cr::DeviceTables tables_{};
  cu::Stream stream_;
  std::array<cu::Event, 16> events_;
  std::vector<std::string> marks_;
  std::unique_ptr<Workspace> work_;
};

}  // namespace

void register_crossrt_cuda(Registry& registry) {
  registry.add(BackendEntry{
      "crossrt", "cuda",
      "Chang-Maruyama real-time cross-based stereo, CUDA: fused cost + CA_x (uint16), fused CA + WTA",
      [] { return cu::device_unavailable(); },
      [](const Overrides& overrides) -> std::unique_ptr<Matcher> {
        return std::make_unique<CrossRtCudaMatcher>(overrides);
      }});
}

}  // namespace stereo
