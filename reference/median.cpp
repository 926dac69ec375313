// The 3x3 median: nine clamped samples, the fifth smallest.

#include "reference/median.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/thread_pool.h"

namespace stereo::reference {

ImageF median_3x3(const ImageF& disparity) {
  require(disparity.channels == 1,
          [&] { return "median_3x3: needs a one-channel map, got " + std::to_string(disparity.channels); });
  ImageF out(disparity.width, disparity.height, 1);
  parallel_for(std::size_t(disparity.height), 0, [&](std::size_t row) {
    const int y = int(row);
    for (int x = 0; x < disparity.width; ++x) {
      float window[9];
      int n = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) window[n++] = at_clamped(disparity, x + dx, y + dy);
      std::nth_element(window, window + 4, window + 9);
      out.at(x, y) = window[4];
    }
  });
  return out;
}

}  // namespace stereo::reference
