// ESAW's and ESMP's registry entries: what the paper reports (Table IV), so `list`, `eval`
// and `bench` can set a run beside it.

#include "methods/esaw/register.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "methods/esaw/params.h"

namespace stereo {

namespace {

const char* const CITATION =
    "W. Yu, T. Chen, F. Franchetti, J. C. Hoe, \"High performance stereo vision designed for massively data "
    "parallel platforms\", IEEE Trans. Circuits and Systems for Video Technology 20(11), 2010";

// Table IV quotes one Mde/s per method: "the average MDS on Teddy and Cones" (Sec. V), both
// 450 x 375 with 60 levels, on a GeForce 8800 GTX; the time is derived from it.
// `set` carries the row's parameters (bench applies them on top of the user's --set).
PaperSpeed teddy_cones(double mdes, const std::string& what,
                       std::vector<std::pair<std::string, std::string>> set = {}) {
  const int w = 450, h = 375, levels = 60;
  return PaperSpeed{w, h, levels, double(w) * h * levels / (mdes * 1000.0), mdes,
                    "Table IV: mean throughput on Teddy and Cones, " + what + " (time derived from it)",
                    std::move(set)};
}

// What ESAW's and ESMP's entries share: the paper, Table IV as the source of both rows' kinds
// (bad > 1 px; the GPU rows, on a GeForce 8800 GTX).
MethodInfo table_iv_info(std::string name, std::string title, std::string accuracy_source) {
  MethodInfo info;
  info.name = std::move(name);
  info.title = std::move(title);
  info.citation = CITATION;
  info.accuracy_source = std::move(accuracy_source);
  info.accuracy_threshold = 1.0;
  info.speed_source = "Table IV (GPU rows)";
  info.paper_gpu = "NVIDIA GeForce 8800 GTX";
  return info;
}

// The suite's common 1080p setting, beside the paper's rows.
PaperSpeed common_setting() {
  return {1920, 1080, 256, std::nullopt, std::nullopt, "the suite's common setting; not in the paper"};
}

}  // namespace

MethodInfo esaw_method_info() {
  MethodInfo info =
      table_iv_info("esaw", "ESAW: exponential-step adaptive-weight aggregation of a truncated grey cost, WTA, 3x3 median",
                    "Table IV (Middlebury v2, bad > 1 px, %; the 5-iteration row with base 2.6)");
  info.accuracy = {
      {"tsukuba", 1.9, 2.5, 9.7, {}},
      {"venus", 1.0, 1.7, 6.9, {}},
      {"teddy", 8.5, 14.2, 18.7, {}},
      {"cones", 6.6, 12.7, 14.4, {}},
      {"tsukuba", 1.4, 2.4, 7.1, {{"iterations", "5"}}},
      {"venus", 1.6, 2.6, 12.9, {{"iterations", "5"}}},
      {"teddy", 9.4, 16.0, 19.4, {{"iterations", "5"}}},
      {"cones", 8.6, 15.6, 17.9, {{"iterations", "5"}}},
  };
  info.speed = {
      teddy_cones(194.8, "9 iterations"),
      teddy_cones(307.2, "5 iterations, base 2.6", {{"iterations", "5"}, {"base", "2.6"}}),
      common_setting(),
  };
  info.describe_params = [] { return describe_defaults<EsawParams>("esaw"); };
  return info;
}

MethodInfo esmp_method_info() {
  MethodInfo info =
      table_iv_info("esmp", "ESMP: ESAW over min-sum messages of a truncated linear smoothness term, WTA, 3x3 median",
                    "Table IV (Middlebury v2, bad > 1 px, %)");
  info.accuracy = {
      {"tsukuba", 1.4, 1.9, 7.1, {}},
      {"venus", 0.4, 1.0, 2.7, {}},
      {"teddy", 8.6, 15.2, 19.5, {}},
      {"cones", 5.6, 12.5, 13.2, {}},
  };
  info.speed = {
      teddy_cones(144.4, "8 iterations"),
      common_setting(),
  };
  info.describe_params = [] { return describe_defaults<EsmpParams>("esmp"); };
  return info;
}

}  // namespace stereo
