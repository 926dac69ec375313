// SymStereo on CUDA: the matcher the registry creates. It owns its stream, events, cuFFT plans
// and device buffers (sized from the problem, checked against free GPU memory before any is
// allocated, all allocated into a local Workspace that is committed only when every one
// succeeded, reused while the size stays the same) and runs Algorithm 1 with a CUDA event
// around each stage, named as the paper's Fig. 2 split (FFTs, filtering, energy, transfers).

#include <array>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cuda/common.h"
#include "cuda/copy_ceiling.h"
#include "cuda/cufft_plan.h"
#include "methods/symstereo/cuda/stages.h"
#include "methods/symstereo/register.h"
#include "methods/symstereo/params.h"
#include "core/registry.h"

namespace stereo {
namespace {

constexpr const char* COMPONENT = "symstereo/cuda";
namespace cs = cu::symstereo;
using cu::CufftPlan;

constexpr std::size_t ALLOCATION_SLACK = std::size_t(2) << 20;  // cudaMalloc rounds each buffer up
constexpr int BUFFERS = 10;  // device buffers + cuFFT work areas of a Workspace

std::string mib(std::size_t bytes) {
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << double(bytes) / (1024.0 * 1024.0);
  return s.str();
}

/// Every device buffer and plan of one problem size (W, H, channels, N, levels). The two views
/// share each buffer as one image of 2H rows (left rows, then the mirrored right rows), so the
/// forward FFT, the filter and the inverse FFT are one launch each for both views.
struct Workspace {
  int width = 0, height = 0, channels = 0, wavelets = 0, levels = 0;
  int padded = 0;  // Wp, the FFT row length (symstereo_padded_length)
  cu::DeviceBuffer<std::uint8_t> raw_left, raw_right;
  cu::DeviceBuffer<float> grey, bank, dsi, disparity;     // grey: 2H x W
  cu::DeviceBuffer<cufftComplex> spectrum, responses;     // 2H x (W/2 + 1); N x 2H x W
  std::unique_ptr<CufftPlan> forward, backward;

  /// The bytes of the buffers (without the cuFFT work areas). At 1024x768, N = 45, 170
  /// levels: responses 2 x 45 x 768 x 1134 x 8 B = 627.0 MB (the N complex images per view of
  /// Sec. 3.2, rows padded to Wp = 1134), DSI 1024 x 768 x 170 x 4 B = 534.8 MB, the rest
  /// 22 MB: 1.18 GB.
  static std::size_t buffer_bytes(int w, int wp, int h, int c, int n, int levels) {
    const std::size_t px = std::size_t(w) * std::size_t(h);
    const std::size_t ppx = std::size_t(wp) * std::size_t(h);  // padded rows
    const std::size_t bins = std::size_t(wp / 2 + 1);
    return 2 * px * std::size_t(c)                             // raw uploads
           + 2 * ppx * sizeof(float)                           // grey
           + std::size_t(n) * bins * sizeof(float)             // bank
           + 2 * std::size_t(h) * bins * sizeof(cufftComplex)  // half spectra
           + 2 * std::size_t(n) * ppx * sizeof(cufftComplex)   // responses
           + px * std::size_t(levels) * sizeof(float)          // DSI
           + px * sizeof(float);                               // disparity
  }
  static std::size_t bytes_needed(int w, int wp, int h, int c, int n, int levels) {
    return buffer_bytes(w, wp, h, c, n, levels) + CufftPlan::estimate_work_bytes(CufftPlan::Kind::r2c, wp, 2 * h) +
           CufftPlan::estimate_work_bytes(CufftPlan::Kind::c2c, wp, 2 * n * h) + BUFFERS * ALLOCATION_SLACK;
  }

  Workspace(int w, int wp, int h, int c, int n, int l, cudaStream_t stream)
      : width(w), height(h), channels(c), wavelets(n), levels(l), padded(wp) {
    const std::size_t px = std::size_t(w) * std::size_t(h);
    const std::size_t ppx = std::size_t(wp) * std::size_t(h);
    const std::size_t bins = std::size_t(wp / 2 + 1);
    raw_left = cu::make_device_buffer<std::uint8_t>(px * std::size_t(c), COMPONENT, "the left image");
    raw_right = cu::make_device_buffer<std::uint8_t>(px * std::size_t(c), COMPONENT, "the right image");
    grey = cu::make_device_buffer<float>(2 * ppx, COMPONENT, "the grey images");
    bank = cu::make_device_buffer<float>(std::size_t(n) * bins, COMPONENT, "the log-Gabor bank");
    spectrum = cu::make_device_buffer<cufftComplex>(2 * std::size_t(h) * bins, COMPONENT, "the row spectra");
    responses = cu::make_device_buffer<cufftComplex>(2 * std::size_t(n) * ppx, COMPONENT,
                                                     "the N filtered complex images of both views");
    dsi = cu::make_device_buffer<float>(px * std::size_t(l), COMPONENT, "the DSI");
    disparity = cu::make_device_buffer<float>(px, COMPONENT, "the disparity map");
    forward = std::make_unique<CufftPlan>(CufftPlan::Kind::r2c, wp, 2 * h, stream, COMPONENT);
    backward = std::make_unique<CufftPlan>(CufftPlan::Kind::c2c, wp, 2 * n * h, stream, COMPONENT);
  }
};

class SymStereoCudaMatcher final : public Matcher {
 public:
  explicit SymStereoCudaMatcher(const Overrides& overrides) {
    json_ = bind_params(COMPONENT, overrides, params_);
    params_.validate(COMPONENT);
    json_["response_storage"] = "fp32";  // cuda/symstereo/NOTES.md: why not fp16
    ordinal_ = cu::select_device(COMPONENT);
    device_info_ = cu::device_info_json(ordinal_);
    device_ = device_info_.at("name").get<std::string>();
    stream_ = cu::make_stream();
    for (auto& e : events_) e = cu::make_event();
  }

  void request_cost_volume(bool keep) override { keep_dsi_ = keep; }

  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);
    require(left.channels == right.channels, std::string(COMPONENT) + ": left has " + std::to_string(left.channels) +
                                                 " channels, right " + std::to_string(right.channels));
    require(left.channels == 1 || left.channels == 3 || left.channels == 4,
            std::string(COMPONENT) + ": images must have 1, 3 or 4 channels, got " + std::to_string(left.channels));
    require(left.width >= 2, std::string(COMPONENT) + ": rows must have >= 2 pixels for the FFT");
    require(left.height <= 32767, std::string(COMPONENT) + ": height " + std::to_string(left.height) +
                                      " exceeds 32767 (both views' 2H rows are one grid dimension of <= 65535)");
    prepare(left.width, left.height, left.channels, range.count);
    Workspace& w = *work_;
    cudaStream_t s = stream_.get();
    const int n = params_.wavelets;
    marks_.clear();

    CUDA_CHECK(cudaEventRecord(events_[0].get(), s));
    CUDA_CHECK(cudaMemcpyAsync(w.raw_left.get(), left.data.data(), left.data.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(w.raw_right.get(), right.data.data(), right.data.size(), cudaMemcpyHostToDevice, s));
    mark("transfers: upload");

    const std::size_t ppx = std::size_t(w.padded) * std::size_t(w.height);
    cs::flip_rows(w.raw_left.get(), w.width, w.height, w.channels, false, w.padded, w.grey.get(), s);
    cs::flip_rows(w.raw_right.get(), w.width, w.height, w.channels, true, w.padded, w.grey.get() + ppx, s);
    mark("flip + grey");
    cs::row_fft(*w.forward, w.grey.get(), w.spectrum.get());
    mark("fft forward");
    cs::filter(w.spectrum.get(), w.bank.get(), w.padded, 2 * w.height, n, w.responses.get(), s);
    mark("filtering");
    cs::inverse(*w.backward, w.responses.get());
    mark("fft inverse");
    // Wavelet k's left image is row block k * 2H, its mirrored right image the next H rows.
    cs::energy(w.responses.get(), w.responses.get() + ppx, w.width, w.height, w.padded, 2 * ppx, n, range,
               w.dsi.get(), s);
    mark("energy");
    cs::wta(w.dsi.get(), w.width, w.height, range, w.disparity.get(), s);
    mark("wta");

    StereoResult out;
    out.disparity = ImageF(w.width, w.height, 1);
    CUDA_CHECK(cudaMemcpyAsync(out.disparity.data.data(), w.disparity.get(), out.disparity.data.size() * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
    const std::size_t read_event = marks_.size() + 1;
    CUDA_CHECK(cudaEventRecord(events_[read_event].get(), s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    Timing& t = out.timing;
    t.clock = "cuda events";
    t.upload_ms = cu::elapsed_ms(events_[0], events_[1]);
    t.algorithm_ms = cu::elapsed_ms(events_[1], events_[marks_.size()]);
    t.readback_ms = cu::elapsed_ms(events_[marks_.size()], events_[read_event]);
    for (std::size_t i = 1; i < marks_.size(); ++i)
      t.stages.emplace_back(marks_[i], cu::elapsed_ms(events_[i], events_[i + 1]));

    if (keep_dsi_) {  // outside the timed run: 535 MB at 1024x768x170 is ~20 ms over PCIe
      DisparitySpaceImage d{w.width, w.height, range, "joint energy E = E_A x E_S (Mota et al. eq. 7)", "higher", {}};
      d.data.resize(std::size_t(w.width) * std::size_t(w.height) * std::size_t(range.count));
      CUDA_CHECK(cudaMemcpy(d.data.data(), w.dsi.get(), d.data.size() * sizeof(float), cudaMemcpyDeviceToHost));
      out.dsi = std::move(d);
    }
    return out;
  }

  [[nodiscard]] nlohmann::json params() const override { return json_; }
  [[nodiscard]] std::string component() const override { return COMPONENT; }
  [[nodiscard]] std::string device() const override { return device_; }
  [[nodiscard]] nlohmann::json device_info() const override { return device_info_; }

  /// The fewest bytes each stage moves (both views; cuda/symstereo/NOTES.md), for `bench`.
  std::optional<MemoryStats> memory_stats(int width, int height, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);
    const double px = double(width) * double(height);
    const int padded = symstereo_padded_length(width, params_);
    const double ppx = double(padded) * double(height);
    const double n = double(params_.wavelets);
    const double bins = double(padded / 2 + 1) * double(height);
    MemoryStats m;
    m.stage_bytes = {
        {"flip + grey", 2.0 * (px * 3.0 + ppx * 4.0)},
        {"fft forward", 2.0 * (ppx * 4.0 + bins * 8.0)},
        {"filtering", 2.0 * (bins * 8.0 + n * ppx * 8.0)},
        {"fft inverse", 2.0 * 2.0 * n * ppx * 8.0},  // in place: read + write
        {"energy", 2.0 * n * px * 8.0 + px * double(range.count) * 4.0},
        {"wta", px * double(range.count) * 4.0 + px * 4.0},
    };
    m.copy_gb_s = cu::measure_copy_gb_s(std::size_t(512) << 20, 9, stream_.get());
    return m;
  }

 private:
  // Event i + 1 closes the stage named marks_[i]; event 0 is the start.
  void mark(const std::string& name) {
    require(marks_.size() + 3 <= events_.size(), std::string(COMPONENT) + ": too many timed stages");
    marks_.push_back(name);
    CUDA_CHECK(cudaEventRecord(events_[marks_.size()].get(), stream_.get()));
  }

  void prepare(int width, int height, int channels, int levels) {
    const int n = params_.wavelets;
    if (work_ && work_->width == width && work_->height == height && work_->channels == channels &&
        work_->wavelets == n && work_->levels == levels)
      return;
    const int padded = symstereo_padded_length(width, params_);
    const std::string what = std::to_string(width) + "x" + std::to_string(height) + " with N = " + std::to_string(n) +
                             " wavelets and " + std::to_string(levels) + " levels (N complex images per view, rows " +
                             "padded to " + std::to_string(padded) + ", both views: " +
                             mib(2 * std::size_t(n) * std::size_t(padded) * std::size_t(height) * 8) +
                             " MiB; DSI: " + mib(std::size_t(width) * std::size_t(height) * std::size_t(levels) * 4) +
                             " MiB)";
    work_.reset();  // release the old size first, so the new one can use its memory
    // The buffers alone first: cuFFT's estimate refuses absurd sizes with an error of its own,
    // and a problem that cannot fit should be told so in the suite's words.
    cu::require_free_memory(Workspace::buffer_bytes(width, padded, height, channels, n, levels), COMPONENT, what);
    cu::require_free_memory(Workspace::bytes_needed(width, padded, height, channels, n, levels), COMPONENT, what);
    auto fresh = std::make_unique<Workspace>(width, padded, height, channels, n, levels, stream_.get());
    cs::log_gabor_bank(padded, params_, fresh->bank.get(), stream_.get());
    CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    work_ = std::move(fresh);
  }

  SymStereoParams params_;
  nlohmann::json json_;
  int ordinal_ = 0;
  nlohmann::json device_info_;
  std::string device_;
  cu::Stream stream_;
  std::array<cu::Event, 12> events_;
  std::vector<std::string> marks_;
  std::unique_ptr<Workspace> work_;
  bool keep_dsi_ = false;
};

}  // namespace

void register_symstereo_cuda(Registry& registry) {
  registry.add(BackendEntry{
      "symstereo", "cuda",
      "SymStereo logN (Mota et al. ICASSP 2014), CUDA: cuFFT R2C + batched C2C, register-tiled energy kernel",
      [] { return cu::device_unavailable(); },
      [](const Overrides& overrides) -> std::unique_ptr<Matcher> {
        return std::make_unique<SymStereoCudaMatcher>(overrides);
      }});
}

}  // namespace stereo
