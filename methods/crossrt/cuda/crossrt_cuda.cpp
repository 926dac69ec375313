// Chang and Maruyama's real-time cross-based stereo on CUDA: the matcher the registry creates.
// The frame (cuda/matcher_frame.h) binds, uploads, times and reads back; this file declares the
// method's buffers and runs the stages of methods/crossrt/cuda/stages.h in the reference matcher's
// order, each closed by a lap named as the paper's Table II columns.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "cuda/common.h"
#include "cuda/matcher_frame.h"
#include "cuda/shared/median.h"
#include "methods/crossrt/cuda/crossrt_inspect.h"
#include "methods/crossrt/cuda/stages.h"
#include "methods/crossrt/model.h"
#include "methods/crossrt/params.h"
#include "methods/crossrt/register.h"

namespace stereo {
namespace {

constexpr const char* COMPONENT = "crossrt/cuda";
namespace cr = cu::crossrt;

/// Every device buffer of one problem (cuda/workspace.h): the images at full size, everything
/// between scale-down and scale-up at the scaled size.
struct CrossRtBuffers : cu::InputPair {
  struct Key {
    int width = 0, height = 0, channels = 0, scale = 0, levels = 0;  // levels: of the scaled range
    bool operator==(const Key&) const = default;
  };
  cu::DeviceImage<std::uint8_t> grey_left, grey_right, scaled_left, scaled_right, gcp_mask;
  cu::DeviceImage<uchar2> arms_x_left, arms_x_right, arms_y_left, arms_y_right;
  cr::DeviceVolume16 cax_left, cax_right;
  cu::DeviceImage<float> disparity_left, disparity_right, refined, median, filled, full;

  static int scaled(int size, int k) { return (size + k - 1) / k; }

  static std::string describe(const Key& k) {
    return std::to_string(k.width) + "x" + std::to_string(k.height) + " with " + std::to_string(k.levels) +
           " scaled levels";
  }

  void declare(cu::BufferList& list, const Key& k) {
    declare_inputs(list, k.width, k.height, k.channels);
    const int sw = scaled(k.width, k.scale), sh = scaled(k.height, k.scale);
    list.views(grey_left, grey_right, k.width, k.height, "grey image");
    list.views(scaled_left, scaled_right, sw, sh, "scaled image");
    list.image(gcp_mask, sw, sh, "the GCP mask");
    list.views(arms_x_left, arms_x_right, sw, sh, "horizontal arms");
    list.views(arms_y_left, arms_y_right, sw, sh, "vertical arms");
    for (cr::DeviceVolume16* v : {&cax_left, &cax_right}) {
      v->width = sw;
      v->height = sh;
      list.buffer(v->data, cr::DeviceVolume16::cells(sw, sh, k.levels), "a CA_x volume");
    }
    list.views(disparity_left, disparity_right, sw, sh, "disparity map");
    list.image(refined, sw, sh, "the sub-pixel left map");
    list.image(median, sw, sh, "the median-filtered map");
    list.image(filled, sw, sh, "the filled map");
    list.image(full, k.width, k.height, "the full-size map");
  }
};

class CrossRtCudaMatcher final : public cu::FrameMatcher<CrossRtParams, cu::NoOptions, CrossRtBuffers> {
 public:
  explicit CrossRtCudaMatcher(const Overrides& overrides)
      : FrameMatcher(COMPONENT, overrides), tables_(cr::make_tables(params_)) {}

 private:
  // What the workspace holds after the last frame (crossrt_inspect.h); nothing else is kept.
  void show_stages(cu::StageShow& show, const CrossRtBuffers& w, DisparityRange /*range*/) const override {
    cr::show_frame(show.table(),
                   {{&w.scaled_left, &w.scaled_right}, {&w.arms_x_left, &w.arms_x_right},
                    {&w.arms_y_left, &w.arms_y_right}, {&w.cax_left, &w.cax_right},
                    {&w.disparity_left, &w.disparity_right}, &w.gcp_mask, &w.median, &w.filled,
                    params_.scale == 2 ? &w.full : nullptr},
                   show.ordinal());
  }

  [[nodiscard]] nlohmann::json facts() const override {
    return {{"cost_storage", "uint16 CA_x"}};  // methods/crossrt/cuda/NOTES.md
  }

  Key key_for(const ImageView& left, DisparityRange range) const override {
    const int k = params_.scale;
    const Key key{left.width, left.height, left.channels, k, crossrt::scaled_range(range, k).count};
    // Rows and columns longer than shared memory holds go in segments (methods/crossrt/cuda/NOTES.md);
    // refuse, naming the image, only what even segments cannot take, before allocating.
    const int sw = CrossRtBuffers::scaled(left.width, k), sh = CrossRtBuffers::scaled(left.height, k);
    require(cr::cost_aggregate_x_supports(sw, params_.wx, ordinal()) &&
                cr::aggregate_y_supports(sh, params_.wy, ordinal()),
            [&] {
              return std::string(COMPONENT) + ": a " + std::to_string(left.width) + "x" +
                     std::to_string(left.height) + " image (" + std::to_string(sw) + "x" + std::to_string(sh) +
                     " at scale " + std::to_string(k) + ") with " + std::to_string(key.levels) +
                     " scaled levels needs " + cu::mib(workspace_.bytes(key)) +
                     " MiB of GPU memory, but its rows or columns do not fit this GPU's shared memory even in "
                     "segments";
            });
    return key;
  }

  void before_frame(CrossRtBuffers& w, DisparityRange range, cudaStream_t /*stream*/) override {
    const DisparityRange levels = crossrt::scaled_range(range, params_.scale);
    w.cax_left.range = levels;
    w.cax_right.range = levels;
  }

  const cu::DeviceImage<float>& run_stages(CrossRtBuffers& w, DisparityRange range, cu::StageClock& clock,
                                           cudaStream_t s) override {
    const DisparityRange levels = w.cax_left.range;
    cr::scale_down(w.raw_left.get(), w.channels, params_.scale, w.grey_left, w.scaled_left, s);
    cr::scale_down(w.raw_right.get(), w.channels, params_.scale, w.grey_right, w.scaled_right, s);
    clock.lap("SD");
    cr::arms_x(w.scaled_left, params_.wx, params_.tc, w.arms_x_left, s);
    cr::arms_x(w.scaled_right, params_.wx, params_.tc, w.arms_x_right, s);
    clock.lap("arms x");
    cr::arms_y(w.scaled_left, params_.wy, params_.tc, w.arms_y_left, s);
    cr::arms_y(w.scaled_right, params_.wy, params_.tc, w.arms_y_right, s);
    clock.lap("arms y");
    cr::cost_aggregate_x({w.scaled_left, w.scaled_right, w.arms_x_left, w.arms_x_right, tables_}, levels, w.cax_left,
                         w.cax_right, ordinal(), s, params_.wx);
    clock.lap("C+CA_x");
    cr::aggregate_y_wta(w.cax_left, w.arms_y_left, w.disparity_left, ordinal(), s,
                        params_.subpixel ? &w.refined : nullptr, params_.wy);
    cr::aggregate_y_wta(w.cax_right, w.arms_y_right, w.disparity_right, ordinal(), s, nullptr, params_.wy);
    clock.lap("CA");
    cr::gcp(w.disparity_left, w.disparity_right, w.gcp_mask, s);
    clock.lap("CC");
    // The GCPs compare the integer maps; the post stages take the refined one when asked.
    cu::median_3x3(params_.subpixel ? w.refined : w.disparity_left, w.median, s);
    cr::bilateral_fill(w.median, w.gcp_mask, w.scaled_left, params_.t, w.filled, s);
    clock.lap("Post");
    const cu::DeviceImage<float>* result = &w.filled;
    if (params_.scale == 2) {
      cr::scale_up(w.filled, w.grey_left, params_.t, range, w.full, s);
      result = &w.full;
    }
    clock.lap("SU");
    return *result;
  }

  /// The fewest bytes each timed stage moves in this design (both views; NOTES.md).
  [[nodiscard]] std::optional<cu::StageBytes> stage_bytes(const cu::ProblemSize& size) const override {
    const int k = params_.scale;
    const double px = size.pixels;
    const double spx = double(CrossRtBuffers::scaled(size.width, k)) * double(CrossRtBuffers::scaled(size.height, k));
    const double cells = spx * double(crossrt::scaled_range(size.range, k).count);
    return cu::StageBytes{
        {"SD", 2.0 * (px * 3.0 + px + spx)},           // RGB in, full and scaled grey out, per view
        {"arms x", 2.0 * (spx + 2.0 * spx)},           // grey in, uchar2 out, per view
        {"arms y", 2.0 * (spx + 2.0 * spx)},
        {"C+CA_x", 2.0 * spx + 4.0 * spx + cells * 2.0 * 2.0},  // grey + arms in, both CA_x out (uint16)
        {"CA", cells * 2.0 * 2.0 + 2.0 * (2.0 * spx + 4.0 * spx)},  // both CA_x in, arms in, maps out
        {"CC", spx * (4.0 + 4.0 + 1.0)},
        {"Post", spx * (4.0 + 4.0) + spx * (4.0 + 1.0 + 1.0 + 4.0)},  // median; fill
        {"SU", k == 2 ? spx * 4.0 + px * (1.0 + 4.0) : 0.0},
    };
  }

  cr::DeviceTables tables_{};
};

}  // namespace

void register_crossrt_cuda(Registry& registry) {
  registry.add(cu::backend_entry<CrossRtCudaMatcher>(
      "crossrt", "Chang-Maruyama real-time cross-based stereo, CUDA: fused cost + CA_x (uint16), fused CA + WTA"));
}

}  // namespace stereo
