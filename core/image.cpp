// The one function of core/image.h with a body of its own.

#include "core/image.h"

#include <string>

#include "core/error.h"

namespace stereo {

ImageU8 to_rgb(const ImageU8& img) {
  if (img.channels == 3) return img;
  require(img.channels == 1 || img.channels == 2 || img.channels == 4,
          "image: unsupported channel count " + std::to_string(img.channels));
  ImageU8 out(img.width, img.height, 3);
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      for (int c = 0; c < 3; ++c) out.at(x, y, c) = img.at(x, y, img.channels >= 3 ? c : 0);
  return out;
}

}  // namespace stereo
