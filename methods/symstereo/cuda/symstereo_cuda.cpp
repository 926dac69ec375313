// SymStereo on CUDA: the matcher the registry creates. The frame (cuda/matcher_frame.h) binds,
// uploads, times and reads back; this file declares the method's buffers and cuFFT plans (the
// plans' work areas in the same memory check) and runs Algorithm 1, a lap after each stage,
// named as the paper's Fig. 2 split (FFTs, filtering, energy, transfers).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "cuda/common.h"
#include "cuda/cufft_plan.h"
#include "cuda/matcher_frame.h"
#include "methods/symstereo/cuda/stages.h"
#include "methods/symstereo/cuda/symstereo_inspect.h"
#include "methods/symstereo/model.h"
#include "methods/symstereo/params.h"
#include "methods/symstereo/register.h"

namespace stereo {
namespace {

constexpr const char* COMPONENT = "symstereo/cuda";
using cu::CufftPlan;

/// Every device buffer and plan of one problem (cuda/workspace.h). The two views share each
/// buffer as one image of 2H rows (left rows, then the mirrored right rows), so the forward
/// FFT, the filter and the inverse FFT are one launch each for both views. At 1024x768, N = 45,
/// 170 levels: responses 2 x 45 x 768 x 1134 x 8 B = 627.0 MB (the N complex images per view of
/// Sec. 3.2, rows padded to Wp = 1134), DSI 1024 x 768 x 170 x 4 B = 534.8 MB, the rest 22 MB.
struct SymStereoBuffers : cu::InputPair {
  struct Key {
    int width = 0, height = 0, channels = 0, wavelets = 0, levels = 0;
    int padded = 0;  // Wp, the FFT row length (symstereo_padded_length)
    bool operator==(const Key&) const = default;
  };
  int padded = 0;
  cu::DeviceBuffer<float> grey, bank, dsi;             // grey: 2H x Wp
  cu::DeviceBuffer<cufftComplex> spectrum, responses;  // 2H x (Wp/2 + 1); N x 2H x Wp
  cu::DeviceImage<float> disparity;
  std::unique_ptr<CufftPlan> forward, backward;

  static std::string describe(const Key& k) {
    const auto px = std::size_t(k.width) * std::size_t(k.height);
    return std::to_string(k.width) + "x" + std::to_string(k.height) + " with N = " + std::to_string(k.wavelets) +
           " wavelets and " + std::to_string(k.levels) + " levels (N complex images per view, rows padded to " +
           std::to_string(k.padded) + ", both views: " +
           cu::mib(2 * std::size_t(k.wavelets) * std::size_t(k.padded) * std::size_t(k.height) * 8) +
           " MiB; DSI: " + cu::mib(px * std::size_t(k.levels) * 4) + " MiB)";
  }

  void declare(cu::BufferList& list, const Key& k) {
    declare_inputs(list, k.width, k.height, k.channels);
    padded = k.padded;
    const std::size_t ppx = std::size_t(k.padded) * std::size_t(k.height);  // padded rows
    const std::size_t bins = std::size_t(k.padded / 2 + 1);
    const std::size_t n = std::size_t(k.wavelets);
    list.buffer(grey, 2 * ppx, "the grey images");
    list.buffer(bank, n * bins, "the log-Gabor bank");
    list.buffer(spectrum, 2 * std::size_t(k.height) * bins, "the row spectra");
    list.buffer(responses, 2 * n * ppx, "the N filtered complex images of both views");
    list.buffer(dsi, std::size_t(k.width) * std::size_t(k.height) * std::size_t(k.levels), "the DSI");
    list.image(disparity, k.width, k.height, "the disparity map");
    plan(list, forward, CufftPlan::Kind::r2c, k.padded, 2 * k.height);
    plan(list, backward, CufftPlan::Kind::c2c, k.padded, 2 * k.wavelets * k.height);
  }

  static void plan(cu::BufferList& list, std::unique_ptr<CufftPlan>& p, CufftPlan::Kind kind, int length,
                   int batch) {
    list.external(
        1, [=] { return CufftPlan::estimate_work_bytes(kind, length, batch); },
        [&] { p = std::make_unique<CufftPlan>(kind, length, batch, list.stream(), COMPONENT); });
  }
};

class SymStereoCudaMatcher final : public cu::FrameMatcher<SymStereoParams, cu::NoOptions, SymStereoBuffers> {
 public:
  explicit SymStereoCudaMatcher(const Overrides& overrides) : FrameMatcher(COMPONENT, overrides) {}

  void request_cost_volume(bool keep) override { keep_dsi_ = keep; }
 private:
  // What the workspace holds after the last frame (symstereo_inspect.h); nothing else is kept.
  void show_stages(cu::StageShow& show, const SymStereoBuffers& w, DisparityRange range) const override {
    cu::symstereo::show_frame(show.table(), {w.grey.get(), w.padded, w.dsi.get(), &w.disparity, range}, show.ordinal());
  }

  [[nodiscard]] nlohmann::json facts() const override {
    return {{"response_storage", "fp32"}};  // methods/symstereo/cuda/NOTES.md: why not fp16
  }

  Key key_for(const ImageView& left, DisparityRange range) const override {
    require(left.width >= 2, std::string(COMPONENT) + ": rows must have >= 2 pixels for the FFT");
    require(left.height <= 32767, [&] {
      return std::string(COMPONENT) + ": height " + std::to_string(left.height) +
             " exceeds 32767 (both views' 2H rows are one grid dimension of <= 65535)";
    });
    return Key{left.width,  left.height, left.channels, params_.wavelets,
               range.count, symstereo_padded_length(left.width, params_)};
  }

  // The WTA writes range.min + k at every pixel: a sequence reads back level indices.
  [[nodiscard]] bool whole_levels(DisparityRange /*range*/) const override { return true; }

  void fill(SymStereoBuffers& w, cudaStream_t stream) override {
    cu::symstereo::log_gabor_bank(w.padded, params_, w.bank.get(), stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  const cu::DeviceImage<float>& run_stages(SymStereoBuffers& w, DisparityRange range, cu::StageClock& clock,
                                           cudaStream_t s) override {
    const int n = params_.wavelets;
    const std::size_t ppx = std::size_t(w.padded) * std::size_t(w.height);
    cu::symstereo::flip_rows(w.raw_left.get(), w.width, w.height, w.channels, false, w.padded, w.grey.get(), s);
    cu::symstereo::flip_rows(w.raw_right.get(), w.width, w.height, w.channels, true, w.padded, w.grey.get() + ppx, s);
    clock.lap("flip + grey");
    cu::symstereo::row_fft(*w.forward, w.grey.get(), w.spectrum.get());
    clock.lap("fft forward");
    cu::symstereo::filter(w.spectrum.get(), w.bank.get(), w.padded, 2 * w.height, n, w.responses.get(), s);
    clock.lap("filtering");
    cu::symstereo::inverse(*w.backward, w.responses.get());
    clock.lap("fft inverse");
    // Wavelet k's left image is row block k * 2H, its mirrored right image the next H rows.
    cu::symstereo::energy({w.responses.get(), w.responses.get() + ppx, w.width, w.height, w.padded, 2 * ppx, n}, range,
                          w.dsi.get(), s);
    clock.lap("energy");
    cu::symstereo::wta(w.dsi.get(), w.width, w.height, range, w.disparity.get(), s);
    clock.lap("wta");
    return w.disparity;
  }

  void after_frame(const SymStereoBuffers& w, DisparityRange range, StereoResult& out) override {
    if (!keep_dsi_) return;
    // Outside the timed run: 535 MB at 1024x768x170 is ~20 ms over PCIe.
    DisparitySpaceImage d{w.width, w.height, range, "joint energy E = E_A x E_S (Mota et al. eq. 7)", "higher", {}};
    d.data.resize(std::size_t(w.width) * std::size_t(w.height) * std::size_t(range.count));
    CUDA_CHECK(cudaMemcpy(d.data.data(), w.dsi.get(), d.data.size() * sizeof(float), cudaMemcpyDeviceToHost));
    out.dsi = std::move(d);
  }

  /// The fewest bytes each stage moves (both views; methods/symstereo/cuda/NOTES.md), for `bench`.
  [[nodiscard]] std::optional<cu::StageBytes> stage_bytes(const cu::ProblemSize& size) const override {
    const double px = size.pixels;
    const int padded = symstereo_padded_length(size.width, params_);
    const double ppx = double(padded) * double(size.height);
    const double n = double(params_.wavelets);
    const double bins = double(padded / 2 + 1) * double(size.height);
    return cu::StageBytes{
        {"flip + grey", 2.0 * (px * 3.0 + ppx * 4.0)},
        {"fft forward", 2.0 * (ppx * 4.0 + bins * 8.0)},
        {"filtering", 2.0 * (bins * 8.0 + n * ppx * 8.0)},
        {"fft inverse", 2.0 * 2.0 * n * ppx * 8.0},  // in place: read + write
        {"energy", 2.0 * n * px * 8.0 + size.cells * 4.0},
        {"wta", size.cells * 4.0 + px * 4.0},
    };
  }

  bool keep_dsi_ = false;
};

}  // namespace

void register_symstereo_cuda(Registry& registry) {
  registry.add(cu::backend_entry<SymStereoCudaMatcher>(
      "symstereo",
      "SymStereo logN (Mota et al. ICASSP 2014), CUDA: cuFFT R2C + batched C2C, register-tiled energy kernel"));
}

}  // namespace stereo
