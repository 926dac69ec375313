#pragma once
/// \file app/montage.h
/// The report's map montage (maps/montage_<dataset>_<scene>.png): one picture per scene, its
/// name in a strip at the top, then per row the row's label in a strip directly above its two
/// tiles (the left view and the ground truth; then each method/backend's disparity and error
/// maps), so the picture says which row is which without report.md beside it.
///
/// Layout, in pixels, for tiles of tile_width x tile_height:
///   width  = max(2 tile_width + 3 GAP, widest label + 2 GAP)
///   title  at (GAP, GAP); row i's label at (GAP, montage_label_top(i, tile_height)), its tiles
///   LABEL_GAP below the label, at x = GAP and 2 GAP + tile_width;
///   labels in black at MONTAGE_LABEL_SCALE (app/bitmap_font.h), on white.

#include <string>
#include <vector>

#include "app/bitmap_font.h"
#include "core/image.h"

namespace stereo {

inline constexpr int MONTAGE_GAP = 6;          ///< white space around and between tiles
inline constexpr int MONTAGE_LABEL_GAP = 3;    ///< between a label and its own tiles: nearer than to the row above
inline constexpr int MONTAGE_LABEL_SCALE = 2;  ///< 10 x 16 pixel character cells
inline constexpr int MONTAGE_LABEL_HEIGHT = GLYPH_HEIGHT * MONTAGE_LABEL_SCALE;

/// One row: its label and its two tiles (an empty image, 0 x 0, is a missing map: mid grey).
struct MontageRow {
  std::string label;
  ImageU8 left, right;
};

/// The top y of row `row`'s label; row -1 is the title.
int montage_label_top(int row, int tile_height);

/// The montage of `rows` under `title`. Tiles are RGB; each cell is as large as the largest
/// tile, smaller tiles sit at its top-left corner on mid grey. Throws stereo::Error for no
/// rows, no tile at all, or a tile that is not RGB.
ImageU8 compose_montage(const std::string& title, const std::vector<MontageRow>& rows);

/// `img` made at most `max_width` wide by averaging f x f blocks (f the smallest integer that
/// fits), as RGB.
ImageU8 shrink(const ImageU8& img, int max_width);

}  // namespace stereo
