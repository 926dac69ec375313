// The `cpu` backend of SymStereo: the reference stages of reference/symstereo.h behind the
// Matcher interface, timed stage by stage with the host clock. The FFTW plan and the filter
// bank are made on the first pair of a size and reused for every later pair of that size.
// The pass inspector shows the grey rows, the DSI and the map, as symstereo/cuda does
// (cuda/symstereo_inspect.h); the complex spectra and responses are not shown.

#include <memory>
#include <string>
#include <utility>

#include "methods/symstereo/register.h"
#include "methods/symstereo/model.h"
#include "methods/symstereo/params.h"
#include "reference/cpu_matcher.h"
#include "reference/host_stage_clock.h"
#include "methods/symstereo/reference/symstereo.h"
#include "core/registry.h"

namespace stereo {
namespace {

class SymStereoCpu final : public reference::CpuMatcher<SymStereoParams> {
 public:
  explicit SymStereoCpu(const Overrides& overrides) : CpuMatcher("symstereo/cpu", overrides) {}

  void request_cost_volume(bool keep) override { keep_dsi_ = keep; }

  StereoResult run(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    namespace ref = reference;
    StereoResult result;
    ref::HostStageClock clock(result.timing);
    const int w = left.width, h = left.height, wp = symstereo_padded_length(w, params_);
    if (!plan_ || plan_->width() != wp || plan_->rows() != h) {
      plan_ = std::make_unique<ref::FftwPlan>(wp, h);
      bank_ = ref::log_gabor_bank(wp, params_);
    }
    const ImageF grey_left = ref::pad_rows(ref::grey_float(left), wp);
    const ImageF grey_right_flipped = ref::pad_rows(ref::flip_rows(ref::grey_float(right)), wp);
    clock.lap("flip");
    if (keeping()) {
      show("flip.left", "the float grey image (step 4)", first_columns(grey_left, w));
      show("flip.right", "the float grey image, mirrored (step 4)", first_columns(grey_right_flipped, w));
    }
    const ref::ComplexRows spec_left = ref::row_fft(grey_left, *plan_);
    const ref::ComplexRows spec_right = ref::row_fft(grey_right_flipped, *plan_);
    clock.lap("fft");
    ref::ComplexRows filt_left = ref::filter(spec_left, bank_);
    ref::ComplexRows filt_right = ref::filter(spec_right, bank_);
    clock.lap("filter");
    const ref::Responses resp_left = ref::inverse(filt_left, *plan_);
    filt_left = {};
    const ref::Responses resp_right = ref::flip_rows(ref::inverse(filt_right, *plan_), w);
    filt_right = {};
    clock.lap("inverse fft + flip back");
    ref::Dsi dsi = ref::energy(resp_left, resp_right, w, h, range);
    clock.lap("energy");
    if (keeping()) show_dsi(dsi);
    result.disparity = ref::wta(dsi);
    clock.lap("wta");
    show("wta", "the winner-takes-all of the energy, disparity in pixels", result.disparity);
    clock.finish();
    if (keep_dsi_)
      result.dsi = DisparitySpaceImage{w, h, range, "joint energy E = E_A x E_S (Mota et al. eq. 7)", "higher",
                                       std::move(dsi.data)};
    return result;
  }

 private:
  // The first `width` columns of padded rows: the image the FFT's padding was added to.
  static ImageF first_columns(const ImageF& padded, int width) {
    ImageF out(width, padded.height, 1);
    for (int y = 0; y < padded.height; ++y)
      for (int x = 0; x < width; ++x) out.at(x, y) = padded.at(x, y);
    return out;
  }

  // The DSI (level slowest) one level per slice, as the CUDA inspector lays out its own.
  void show_dsi(const reference::Dsi& dsi) {
    auto kept = std::make_shared<const reference::Dsi>(dsi);
    kept_stages().add(level_layout("energy", "the joint energy E = E_A x E_S (Mota et al. eq. 7), higher is better",
                                   "float host volume, level slowest", dsi.width, dsi.height, dsi.range),
                      [kept](int k) {
                        ImageF out(kept->width, kept->height, 1);
                        for (int y = 0; y < kept->height; ++y)
                          for (int x = 0; x < kept->width; ++x) out.at(x, y) = kept->at(x, y, k);
                        return out;
                      });
  }

  bool keep_dsi_ = false;
  std::unique_ptr<reference::FftwPlan> plan_;
  reference::FilterBank bank_;
};

}  // namespace

void register_symstereo_cpu(Registry& registry) {
  registry.add(reference::cpu_backend_entry<SymStereoCpu>(
      "symstereo", "SymStereo logN, log-Gabor bank by FFTW (float), energies in double (Mota et al. ICASSP 2014)"));
}

}  // namespace stereo
