// The report's map montage (app/montage.h).

#include "app/montage.h"

#include <algorithm>
#include <array>

#include "core/error.h"

namespace stereo {
namespace {

constexpr std::array<std::uint8_t, 3> INK = {0, 0, 0};
constexpr std::uint8_t PAPER = 255, MISSING = 128;

// Height of a row: GAP above its label, the label, LABEL_GAP, the tiles.
int row_height(int tile_height) {
  return MONTAGE_GAP + MONTAGE_LABEL_HEIGHT + MONTAGE_LABEL_GAP + tile_height;
}

}  // namespace

int montage_label_top(int row, int tile_height) {
  const int first = MONTAGE_GAP + MONTAGE_LABEL_HEIGHT + MONTAGE_GAP;  // below the title
  return row < 0 ? MONTAGE_GAP : first + row * row_height(tile_height);
}

ImageU8 compose_montage(const std::string& title, const std::vector<MontageRow>& rows) {
  require(!rows.empty(), "montage " + title + ": no rows");
  int tw = 0, th = 0, label_width = text_width(title, MONTAGE_LABEL_SCALE);
  for (const MontageRow& r : rows) {
    for (const ImageU8* t : {&r.left, &r.right}) {
      if (t->width == 0) continue;
      require(t->channels == 3, [&] {
        return "montage " + title + ": row '" + r.label + "' has a tile of " + std::to_string(t->channels) +
               " channels, not RGB";
      });
      tw = std::max(tw, t->width);
      th = std::max(th, t->height);
    }
    label_width = std::max(label_width, text_width(r.label, MONTAGE_LABEL_SCALE));
  }
  require(tw > 0, "montage " + title + ": no tile in any row");
  const int width = std::max(2 * tw + 3 * MONTAGE_GAP, label_width + 2 * MONTAGE_GAP);
  const int height = montage_label_top(int(rows.size()), th);  // the next row's label would start here
  ImageU8 canvas(width, height, 3, PAPER);
  draw_text(canvas, MONTAGE_GAP, montage_label_top(-1, th), title, MONTAGE_LABEL_SCALE, INK);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const int label_y = montage_label_top(int(i), th);
    draw_text(canvas, MONTAGE_GAP, label_y, rows[i].label, MONTAGE_LABEL_SCALE, INK);
    const int oy = label_y + MONTAGE_LABEL_HEIGHT + MONTAGE_LABEL_GAP;
    for (int col = 0; col < 2; ++col) {
      const ImageU8& t = col == 0 ? rows[i].left : rows[i].right;
      const int ox = MONTAGE_GAP + col * (tw + MONTAGE_GAP);
      for (int y = 0; y < th; ++y)
        for (int x = 0; x < tw; ++x)
          for (int c = 0; c < 3; ++c)
            canvas.at(ox + x, oy + y, c) = x < t.width && y < t.height ? t.at(x, y, c) : MISSING;
    }
  }
  return canvas;
}

ImageU8 shrink(const ImageU8& img, int max_width) {
  const ImageU8 rgb = to_rgb(img);
  const int f = std::max(1, (rgb.width + max_width - 1) / max_width);
  if (f == 1) return rgb;
  ImageU8 out(rgb.width / f, rgb.height / f, 3);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x)
      for (int c = 0; c < 3; ++c) {
        int sum = 0;
        for (int dy = 0; dy < f; ++dy)
          for (int dx = 0; dx < f; ++dx) sum += rgb.at(x * f + dx, y * f + dy, c);
        out.at(x, y, c) = std::uint8_t(sum / (f * f));
      }
  return out;
}

}  // namespace stereo
