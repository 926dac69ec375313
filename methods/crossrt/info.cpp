// The registry entry of Chang and Maruyama's real-time cross-based method: what the paper
// reports, so `list`, `eval` and `bench` can set a run beside it.

#include "methods/crossrt/register.h"

#include <string>

#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "methods/crossrt/params.h"

namespace stereo {

MethodInfo crossrt_method_info() {
  MethodInfo info;
  info.name = "crossrt";
  info.title = "Chang-Maruyama real-time cross-based: scale down x2, AD + mini-census, cross aggregation, GCPs, bilateral fill";
  info.citation = "Q. Chang, T. Maruyama, \"Real-Time High-Quality Stereo Matching System on a GPU\"";
  // Sec. V gives one figure: the average bad 2.0 over the Middlebury v3 training set at half
  // resolution, 24.09 % (W_x = 21, W_y = 31). It names neither the mask nor whether the
  // 2 px are counted at half or full size; Middlebury v3's default table is non-occluded.
  info.accuracy_source =
      "Sec. V (Middlebury v3 training, half resolution, average bad > 2 px, mask not stated; no per-scene rows)";
  info.accuracy_threshold = 2.0;
  info.accuracy = {
      {"average", 24.09, std::nullopt, std::nullopt, {}},
  };
  info.speed_source = "Table II (whole GPU pipeline, transfers excluded)";
  info.paper_gpu = "NVIDIA GeForce GTX 780 Ti";
  const auto row = [](int w, int h, int levels, double ms, const std::string& stages) {
    return PaperSpeed{w, h, levels, ms, double(w) * double(h) * double(levels) / (ms * 1000.0),
                      "Table II, per stage ms: " + stages + " (Mde/s derived from the overall time)"};
  };
  info.speed = {
      row(1436, 992, 145, 25.595,
          "Adirondack(H): SD 0.035, arms x 0.149, arms y 0.317, C+CA_x 10.443, CA 13.943, CC 0.437, Post 0.181, "
          "SU 0.09; 40 fps"),
      row(1482, 994, 128, 32.536,
          "Pipes(H): SD 0.038, arms x 0.135, arms y 0.289, C+CA_x 19.8, CA 11.44, CC 0.506, Post 0.238, SU 0.09; "
          "31 fps"),
      row(1444, 960, 380, 63.432,
          "Vintage(H): SD 0.038, arms x 0.143, arms y 0.315, C+CA_x 26.142, CA 36.394, CC 0.092, Post 0.221, "
          "SU 0.087; 16 fps"),
  };
  info.describe_params = [] { return describe_defaults<CrossRtParams>("crossrt"); };
  return info;
}

}  // namespace stereo
