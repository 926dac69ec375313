// The submission formats of the benchmarks the suite reads (app/protocol.h).

#include "app/protocol.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"

namespace stereo {

const char* to_string(ScoreProtocol protocol) {
  return protocol == ScoreProtocol::submitted ? "submitted" : "float";
}

ScoreProtocol parse_protocol(const std::string& name) {
  if (name == "submitted") return ScoreProtocol::submitted;
  if (name == "float") return ScoreProtocol::float_maps;
  throw Error("unknown scoring protocol '" + name + "' (submitted: as the benchmark received maps; float: as computed)");
}

SubmissionRule submission_rule(const Scene& scene) {
  switch (scene.kind) {
    case SceneKind::middlebury_v2: {
      const auto info = middlebury_v2_info(scene.name);
      require(info.has_value(), scene.name + ": no Middlebury v2 ground-truth scale known for it");
      const std::string s = std::to_string(info->scale);
      return {"Middlebury v2: 8-bit PNG of d x " + s + " (1/" + s + " px steps, 0..255), no disparity = 0", true};
    }
    case SceneKind::kitti:
      return {"KITTI: 16-bit PNG of d x 256 (1/256 px steps), no disparity = 0 (invalid)", true};
    case SceneKind::middlebury_v3:
      return {"MiddEval3: float PFM, as computed", false};
    case SceneKind::plain:
      break;
  }
  return {"plain pair: no benchmark format, as computed", false};
}

ImageF as_submitted(const ImageF& disparity, const Scene& scene) {
  ImageF out = disparity;
  if (scene.kind == SceneKind::middlebury_v2) {
    const float scale = float(middlebury_v2_info(scene.name).value().scale);
    for (float& d : out.data) {
      // The submitted byte: round half up; no disparity and negative ones are 0, the top is 255.
      const float v = std::isfinite(d) ? std::clamp(std::floor(d * scale + 0.5f), 0.0f, 255.0f) : 0.0f;
      d = v / scale;
    }
  } else if (scene.kind == SceneKind::kitti) {
    // As write_disparity_png16 stores it and read_disparity_png16 reads it back: a disparity that
    // rounds to 0 (or below) is no disparity.
    for (float& d : out.data) {
      const float v = std::isfinite(d) && d > 0.0f ? std::min(65535.0f, std::round(d * KITTI_SCALE)) : 0.0f;
      d = v == 0.0f ? std::numeric_limits<float>::infinity() : v / KITTI_SCALE;
    }
  }
  return out;
}

}  // namespace stereo
