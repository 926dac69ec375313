#pragma once
/// \file app/protocol.h
/// Scoring as the benchmarks scored: a map as the method computed it (float), or as a format's
/// benchmark received it from its authors. The old Middlebury evaluation (v2), on which SA-LAP,
/// AD-Census and ESAW/ESMP report their tables, took each result as an 8-bit image at the ground
/// truth's scale (Tsukuba x16, Venus x8, Teddy and Cones x4), so every figure published there is
/// for maps quantised to 1/16, 1/8 and 1/4 px. MiddEval3 takes float PFM (nothing changes); KITTI
/// takes a 16-bit PNG of d x 256 with 0 = no disparity.

#include <string>

#include "app/dataset.h"
#include "core/image.h"
#include "core/registry.h"

namespace stereo {

/// "submitted" or "float".
const char* to_string(ScoreProtocol protocol);
/// Parses "submitted" or "float"; throws naming both.
ScoreProtocol parse_protocol(const std::string& name);

/// How `scene`'s benchmark received a result.
struct SubmissionRule {
  std::string text;        ///< "8-bit PNG, d x 16 (1/16 px), Middlebury v2 (tsukuba)"
  bool quantizes = false;  ///< false where the submitted map is the float map itself
};
SubmissionRule submission_rule(const Scene& scene);

/// KITTI's devkit reads a disparity as png / 256 and a value of 0 as no disparity.
inline constexpr float KITTI_SCALE = 256.0f;

/// `disparity` as `scene`'s benchmark would have received it: Middlebury v2 rounds d x s to the
/// nearest of 0..255 (s = the scene's ground-truth scale; a pixel without a disparity, or below 0,
/// is submitted as 0); KITTI rounds d x 256 to 0..65535, where 0 is no disparity (as
/// write_disparity_png16 writes it); MiddEval3 and plain pairs are unchanged.
ImageF as_submitted(const ImageF& disparity, const Scene& scene);

/// The map scored under `protocol`.
inline ImageF scored_map(const ImageF& disparity, const Scene& scene, ScoreProtocol protocol) {
  return protocol == ScoreProtocol::submitted ? as_submitted(disparity, scene) : disparity;
}

}  // namespace stereo
