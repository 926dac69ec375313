// The OpenCV peer's registry entry. It replicates no paper: it is the matcher users would run
// instead, so its rows carry no paper figures, and its speed settings are the suite's.

#include "methods/sgbm/register.h"

#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "methods/sgbm/params.h"

namespace stereo {

MethodInfo sgbm_method_info() {
  MethodInfo info;
  info.name = "sgbm";
  info.title = "OpenCV StereoSGBM (semi-global block matching, 3-way mode), a CPU peer";
  info.citation =
      "H. Hirschmueller, \"Stereo processing by semiglobal matching and mutual information\", IEEE TPAMI 30(2), "
      "2008; as OpenCV's cv::StereoSGBM implements it (Birchfield-Tomasi block cost)";
  info.accuracy_source = "";  // a peer: no paper table is replicated
  info.accuracy_threshold = 1.0;
  info.speed_source = "the suite's settings; runs on the CPU, whose name and thread count each row gives";
  info.paper_gpu = "none (CPU)";
  info.speed = {
      {1920, 1080, 256, std::nullopt, std::nullopt, "the suite's common setting, on the CPU"},
  };
  info.describe_params = [] { return describe_defaults<SgbmParams>("sgbm"); };
  return info;
}

}  // namespace stereo
