// Backend `opencv` of method `sgbm`: cv::StereoSGBM behind the Matcher interface, so `eval`,
// `bench` and `compare` run and time it exactly as they run the suite's own backends.

#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "methods/sgbm/register.h"
#include "core/matcher.h"
#include "methods/sgbm/params.h"
#include "core/params.h"
#include "core/registry.h"

namespace stereo {
namespace {

int sgbm_mode(const std::string& mode) {
  if (mode == "sgbm") return cv::StereoSGBM::MODE_SGBM;
  if (mode == "hh") return cv::StereoSGBM::MODE_HH;
  if (mode == "hh4") return cv::StereoSGBM::MODE_HH4;
  return cv::StereoSGBM::MODE_SGBM_3WAY;
}

/// Each non-finite pixel takes the nearest finite disparity to its left in the same row, or,
/// at a row start, the nearest to its right. In the left view the pixels SGBM leaves invalid are
/// mostly occluded background just left of a nearer surface, so the left neighbour is the
/// surface they belong to: a background-side filling, as SGM's occlusion handling intends.
void fill_from_left(ImageF& d) {
  for (int y = 0; y < d.height; ++y) {
    float* row = d.row(y);
    float last = std::numeric_limits<float>::infinity();
    for (int x = 0; x < d.width; ++x) {
      if (std::isfinite(row[x])) last = row[x];
      else row[x] = last;
    }
    float next = std::numeric_limits<float>::infinity();
    for (int x = d.width - 1; x >= 0; --x) {
      if (std::isfinite(row[x])) next = row[x];
      else row[x] = next;
    }
  }
}

class SgbmOpenCv final : public Matcher {
 public:
  explicit SgbmOpenCv(const Overrides& overrides) {
    params_json_ = bind_params("sgbm/opencv", overrides, params_);
    validate_params(params_, "sgbm/opencv");
    if (params_.threads > 0) cv::setNumThreads(params_.threads);
    params_json_["opencv_version"] = CV_VERSION;
    params_json_["opencv_threads"] = cv::getNumThreads();
  }

  [[nodiscard]] nlohmann::json params() const override { return params_json_; }
  [[nodiscard]] std::string component() const override { return "sgbm/opencv"; }
  [[nodiscard]] std::string device() const override {
    return cpu_name() + ", OpenCV " + CV_VERSION + " with " + std::to_string(cv::getNumThreads()) + " threads";
  }
  [[nodiscard]] nlohmann::json device_info() const override {
    return {{"name", device()}, {"cpu", cpu_name()}, {"opencv_threads", cv::getNumThreads()}};
  }

 protected:
  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    const int channels = left.channels;
    const int area = params_.block_size * params_.block_size;
    const int p1 = params_.p1 > 0 ? params_.p1 : 8 * channels * area;
    const int p2 = params_.p2 > 0 ? params_.p2 : 32 * channels * area;
    require(p2 > p1, "sgbm/opencv: p2 (" + std::to_string(p2) + ") must exceed p1 (" + std::to_string(p1) + ")");
    // StereoSGBM searches a multiple of 16 disparities; the range is rounded up and anything
    // found beyond the asked maximum counts as invalid.
    const int count16 = (range.count + 15) / 16 * 16;
    auto sgbm = cv::StereoSGBM::create(range.min, count16, params_.block_size, p1, p2, params_.disp12_max_diff,
                                       params_.pre_filter_cap, params_.uniqueness_ratio, params_.speckle_window,
                                       params_.speckle_range, sgbm_mode(params_.mode));
    const int type = channels == 3 ? CV_8UC3 : CV_8UC1;
    // cv::Mat over the suite's buffers: no copy; the channel order does not matter to SGBM,
    // whose cost sums over the channels.
    cv::Mat l(left.height, left.width, type, const_cast<std::uint8_t*>(left.data.data()));
    cv::Mat r(right.height, right.width, type, const_cast<std::uint8_t*>(right.data.data()));
    // StereoSGBM needs the image wider than the rounded count, and it leaves the first `count`
    // columns without a match. A pair no wider than the count is extended on the left by
    // repeating its first column `count16` times (every original pixel then has its whole
    // search inside the extended pair) and the map cropped back.
    const int pad = count16 >= left.width ? count16 : 0;
    if (pad > 0) {
      cv::Mat lp, rp;
      cv::copyMakeBorder(l, lp, 0, 0, pad, 0, cv::BORDER_REPLICATE);
      cv::copyMakeBorder(r, rp, 0, 0, pad, 0, cv::BORDER_REPLICATE);
      l = lp;
      r = rp;
    }
    cv::Mat out;
    const auto start = std::chrono::steady_clock::now();
    try {
      sgbm->compute(l, r, out);
    } catch (const cv::Exception& e) {
      throw Error("sgbm/opencv: OpenCV: " + e.msg);
    }
    ImageF disparity(left.width, left.height, 1);
    const float inf = std::numeric_limits<float>::infinity();
    for (int y = 0; y < left.height; ++y) {
      const auto* src = out.ptr<std::int16_t>(y) + pad;
      float* dst = disparity.row(y);
      for (int x = 0; x < left.width; ++x) {
        // Fixed point with 4 fractional bits; (min - 1) x 16 marks an invalid pixel.
        const float d = float(src[x]) / 16.0f;
        dst[x] = d < float(range.min) || d > float(range.max()) ? inf : d;
      }
    }
    if (params_.fill == "left") fill_from_left(disparity);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    StereoResult result;
    result.disparity = std::move(disparity);
    result.timing.algorithm_ms = ms;
    result.timing.stages = {{"sgbm + fill", ms}};
    result.timing.clock = "host clock";
    return result;
  }

 private:
  SgbmParams params_;
  nlohmann::json params_json_;
};

}  // namespace

void register_sgbm_opencv(Registry& registry) {
  registry.add({"sgbm", "opencv", "OpenCV StereoSGBM (MODE_SGBM_3WAY) on the CPU, invalid pixels filled from the left",
                [] { return std::optional<std::string>{}; },
                [](const Overrides& o) -> std::unique_ptr<Matcher> { return std::make_unique<SgbmOpenCv>(o); }});
}

}  // namespace stereo
