// reference::grey_image: see reference/grey.h.

#include "reference/grey.h"

#include <cstdint>
#include <string>

#include "core/error.h"

namespace stereo::reference {

ImageU8 grey_image(const ImageU8& image) {
  if (image.channels == 1) return image;
  // The message still names AD-Census, whose reference this came from: the error stays as it was.
  require(image.channels >= 3,
          [&] { return "adcensus: grey_image needs 1, 3 or 4 channels, got " + std::to_string(image.channels); });
  ImageU8 grey(image.width, image.height, 1);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      grey.at(x, y) = std::uint8_t(
          (77 * int(image.at(x, y, 0)) + 150 * int(image.at(x, y, 1)) + 29 * int(image.at(x, y, 2)) + 128) >> 8);
  return grey;
}

}  // namespace stereo::reference
