#pragma once
/// \file app/synth.h
/// Scenes whose ground truth is known exactly, and the tools that bring public pairs with
/// ground truth into the suite:
///  - a synthetic scene generator (textured planes; the right view is rendered from the
///    left view's geometry, so the disparities and occlusions are exact; synth.cpp);
///  - a writer for the MiddEval3 folder layout that load_scene() reads (synth_middeval3.cpp);
///  - a photometric check of a ground truth (warp the right view onto the left; synth_warp.cpp).
/// The NumPy readers for ground truth stored as arrays are app/npy.h.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "app/dataset.h"
#include "core/image.h"

namespace stereo {

// ---- synthetic scenes ----------------------------------------------------------------

/// What the synthetic scene shows.
enum class SynthLayout {
  planes,   ///< fronto-parallel planes at integer disparities in front of a background plane
  slanted,  ///< a slanted plane (disparity linear in x and y) plus fronto-parallel planes
};

const char* to_string(SynthLayout layout);
/// "planes" or "slanted"; throws stereo::Error otherwise.
SynthLayout parse_synth_layout(const std::string& name);

struct SynthOptions {
  int width = 160;    ///< >= 16
  int height = 120;   ///< >= 16
  int levels = 32;    ///< disparity levels 0 .. levels-1; 2 <= levels < width
  std::uint32_t seed = 20240601;  ///< std::mt19937 seed; a fixed default makes runs repeatable
  SynthLayout layout = SynthLayout::planes;
};

/// Renders a textured scene. Surfaces are described in left-view coordinates; each left pixel
/// shows the front-most (largest-disparity) surface there, each right pixel the front-most
/// surface whose left position x_l satisfies x_r = x_l - d(x_l, y). Textures are smooth value
/// noise attached to the surface, so a point looks the same in both views.
///
/// The scene has kind plain, levels = options.levels, default_threshold 1.0 and
///  - gt: exact disparity of every left pixel, within [0, levels-1] (integers for the
///    fronto-parallel planes);
///  - mask_all: 255 everywhere;
///  - mask_nonocc: 255 where the left pixel is visible in the right view (its match lies inside
///    the right image and no nearer surface covers it there), 0 otherwise;
///  - mask_disc: 255 for non-occluded pixels within 2 px of a surface boundary, 0 elsewhere.
/// Throws stereo::Error for sizes below 16x16 or levels outside [2, width-1].
Scene make_synthetic_scene(const SynthOptions& options);

// ---- the MiddEval3 layout ------------------------------------------------------------

/// A timing input: uniform random RGB left view (fixed seed) and the right view shifted by 8
/// pixels. The methods' speed does not depend on content, so `stereo bench` and the Google
/// benchmarks use this rather than data on disk.
std::pair<ImageU8, ImageU8> bench_pair(int width, int height);

/// Writes `scene` into `dir` (created if needed) as MiddEval3 does: im0.png, im1.png,
/// disp0GT.pfm (+inf where there is no ground truth), mask0nocc.png (255 non-occluded,
/// 128 occluded with ground truth, 0 no ground truth) and calib.txt (width, height,
/// ndisp = levels, vmin/vmax from the ground truth, and placeholder cam0/cam1/doffs/baseline
/// lines: a synthetic or imported pair has no metric calibration). Without gt only the
/// images and calib.txt are written.
void write_scene(const Scene& scene, const std::filesystem::path& dir);

/// Non-occlusion mask from a left-view disparity map alone: a pixel is occluded when its match
/// x - d falls outside [0, width-1] or when some pixel to its right lands more than
/// `tolerance` pixels further left in the right view (a nearer surface covers it there).
/// 255 = visible, 0 = occluded or no ground truth (a non-finite value).
ImageU8 nonocc_mask_from_gt(const ImageF& gt, float tolerance = 1.0f);

// ---- photometric check of a ground truth ---------------------------------------------

/// Mean absolute difference (grey levels, averaged over the colour channels) between the left
/// view and the right view sampled at x - (gt_factor * gt(x, y) + gt_offset) (linear
/// interpolation in x). Evaluated over pixels with finite ground truth, inside mask_nonocc
/// where the scene has one, whose sample position lies within the right image. A correct
/// ground truth gives the smallest value at factor 1, offset 0. Returns +inf when no pixel
/// qualifies; throws stereo::Error when the scene has no ground truth.
double warp_error(const Scene& scene, double gt_factor, double gt_offset = 0.0);

/// The same check with the ground truth taken as the *right* view's disparity: the left view
/// is sampled at x + gt(x, y) and compared with the right view (no mask). Tells a right-view
/// map from a left-view one: the wrong view errs along every depth edge.
double warp_error_right_view(const Scene& scene, double gt_factor);

}  // namespace stereo
