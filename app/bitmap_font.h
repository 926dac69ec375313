#pragma once
/// \file app/bitmap_font.h
/// Text drawn into a picture without a font library: the report's map montage names its rows
/// and its scene in the PNG itself, and the suite takes no font dependency for that (gnuplot is
/// optional at run time, OpenCV only a peer). A 5 x 8 pixel font of printable ASCII (row 7 for
/// descenders), drawn at an integer scale.

#include <array>
#include <cstdint>
#include <string>

#include "core/image.h"

namespace stereo {

inline constexpr int GLYPH_WIDTH = 5;
inline constexpr int GLYPH_HEIGHT = 8;
inline constexpr int GLYPH_ADVANCE = GLYPH_WIDTH + 1;  ///< one blank column between characters

/// The rows of `c`'s glyph, top first, bit 4 the leftmost pixel. A character outside ' '..'~'
/// (a byte of UTF-8, a control character) is a hollow box, so it shows without being mistaken
/// for another.
std::array<std::uint8_t, GLYPH_HEIGHT> glyph(char c);

/// The width in pixels of `text` drawn at `scale`: (GLYPH_ADVANCE x characters - 1) x scale,
/// 0 for "".
int text_width(const std::string& text, int scale);

/// Draws `text` into the RGB image `img` with its top-left corner at (x, y), each font pixel a
/// scale x scale block of `rgb`; what falls outside the image is left out.
void draw_text(ImageU8& img, int x, int y, const std::string& text, int scale, std::array<std::uint8_t, 3> rgb);

}  // namespace stereo
