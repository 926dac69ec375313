// The stages of reference/crossrt.h: plain loops, one row (or column) per parallel item, every
// item writing only its own outputs so the result does not depend on the thread count.

#include "methods/crossrt/reference/crossrt.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/error.h"
#include "methods/crossrt/params.h"
#include "core/thread_pool.h"
#include "reference/lr_consistency.h"
#include "reference/winner_takes_all.h"

namespace stereo::reference::crossrt {
namespace {

void require_grey(const ImageU8& image, const char* what, const char* stage) {
  require(image.channels == 1 && image.width > 0 && image.height > 0, [&] {
    return std::string("crossrt: ") + stage + " needs a non-empty grey " + what + ", got " +
           std::to_string(image.width) + "x" + std::to_string(image.height) + "x" + std::to_string(image.channels);
  });
}

// The run of pixels q = p + s * step (s = 1, 2, ...) within tc of p, at most `limit` long.
int arm_run(const ImageU8& grey, int x, int y, int dx, int dy, int limit, int tc) {
  const int centre = grey.at(x, y);
  int length = 0;
  for (int s = 1; s <= limit; ++s) {
    const int qx = x + s * dx;
    const int qy = y + s * dy;
    if (qx < 0 || qy < 0 || qx >= grey.width || qy >= grey.height) break;
    if (std::abs(int(grey.at(qx, qy)) - centre) >= tc) break;
    length = s;
  }
  return length;
}

// Both arms of every pixel along the unit step (dx, dy): channel 0 towards -(dx, dy), channel 1
// towards +(dx, dy). `stage` names arms_x or arms_y in the errors.
Image<std::uint8_t> arms_along(const ImageU8& grey, int dx, int dy, int limit, int tc, const char* stage) {
  require_grey(grey, "image", stage);
  require(limit >= 0 && limit <= 255,
          [&] { return std::string("crossrt: ") + stage + " limit must be in 0..255, got " + std::to_string(limit); });
  Image<std::uint8_t> arms(grey.width, grey.height, 2);
  parallel_for(std::size_t(grey.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < grey.width; ++x) {
      arms.at(x, y, 0) = std::uint8_t(arm_run(grey, x, y, -dx, -dy, limit, tc));
      arms.at(x, y, 1) = std::uint8_t(arm_run(grey, x, y, dx, dy, limit, tc));
    }
  });
  return arms;
}

}  // namespace

ImageU8 scale_down(const ImageU8& grey, int scale) {
  require_grey(grey, "image", "scale_down");
  require(scale == 1 || scale == 2,
          [&] { return "crossrt: scale_down supports K = 1 or 2, got " + std::to_string(scale); });
  if (scale == 1) return grey;
  ImageU8 out((grey.width + 1) / 2, (grey.height + 1) / 2, 1);
  parallel_for(std::size_t(out.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < out.width; ++x) {
      int sum = 0;
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i)
          sum += at_clamped(grey, 2 * x + i, 2 * y + j);
      out.at(x, y) = std::uint8_t((sum + 4) / 9);
    }
  });
  return out;
}

ImageU8 mini_census(const ImageU8& grey) {
  require_grey(grey, "image", "mini_census");
  ImageU8 out(grey.width, grey.height, 1);
  parallel_for(std::size_t(grey.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < grey.width; ++x) {
      const int centre = grey.at(x, y);
      int bits = 0;
      for (int i = 0; i < stereo::crossrt::MINI_CENSUS_BITS; ++i) {
        const stereo::crossrt::Offset o = stereo::crossrt::mini_census_offset(i);
        const int q = at_clamped(grey, x + o.dx, y + o.dy);
        if (q < centre) bits |= 1 << i;
      }
      out.at(x, y) = std::uint8_t(bits);
    }
  });
  return out;
}

Volume<std::uint16_t> cost(const ImageU8& left, const ImageU8& right, DisparityRange range,
                           const CrossRtParams& params) {
  require_grey(left, "left image", "cost");
  require_grey(right, "right image", "cost");
  require(left.same_size(right.width, right.height), "crossrt: cost needs images of one size");
  require(range.count >= 1, "crossrt: cost needs a non-empty disparity range");
  const stereo::crossrt::CostTables tables = stereo::crossrt::cost_tables(params);
  const ImageU8 census_left = mini_census(left);
  const ImageU8 census_right = mini_census(right);
  Volume<std::uint16_t> c(left.width, left.height, range);
  parallel_for(std::size_t(left.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < left.width; ++x)
      for (int k = 0; k < range.count; ++k) {
        const int xr = x - (range.min + k);
        if (xr < 0 || xr >= left.width) {
          c.at(x, y, k) = stereo::crossrt::COST_OUTSIDE;
          continue;
        }
        const int ad = std::abs(int(left.at(x, y)) - int(right.at(xr, y)));
        const int mc = std::popcount(unsigned(census_left.at(x, y) ^ census_right.at(xr, y)));
        c.at(x, y, k) = std::uint16_t(tables.ad[std::size_t(ad)] + tables.mc[std::size_t(mc)]);
      }
  });
  return c;
}

Image<std::uint8_t> arms_x(const ImageU8& grey, int limit, int tc) {
  return arms_along(grey, 1, 0, limit, tc, "arms_x");
}

Image<std::uint8_t> arms_y(const ImageU8& grey, int limit, int tc) {
  return arms_along(grey, 0, 1, limit, tc, "arms_y");
}

Volume<std::uint16_t> aggregate_x(const Volume<std::uint16_t>& c, const Image<std::uint8_t>& arms, bool right_view) {
  require(arms.same_size(c.width, c.height) && arms.channels == 2,
          "crossrt: aggregate_x needs 2-channel arms of the volume's size");
  const int width = c.width;
  Volume<std::uint16_t> out(c.width, c.height, c.range);
  parallel_for(std::size_t(c.height), 0, [&](std::size_t item) {
    const int y = int(item);
    // A prefix sum along the row per level; the right view's row is C(x + d, y, k) (eq. 6).
    std::vector<std::uint32_t> prefix(std::size_t(width) + 1);
    for (int k = 0; k < c.range.count; ++k) {
      const int d = c.range.min + k;
      for (int x = 0; x < width; ++x) {
        std::uint32_t v = stereo::crossrt::COST_OUTSIDE;
        if (!right_view) {
          v = c.at(x, y, k);
        } else if (x + d >= 0 && x + d < width) {
          v = c.at(x + d, y, k);
        }
        prefix[std::size_t(x) + 1] = prefix[std::size_t(x)] + v;
      }
      for (int x = 0; x < width; ++x) {
        const int lo = x - arms.at(x, y, 0);
        const int hi = x + arms.at(x, y, 1);
        out.at(x, y, k) = std::uint16_t(prefix[std::size_t(hi) + 1] - prefix[std::size_t(lo)]);
      }
    }
  });
  return out;
}

Volume<std::uint32_t> aggregate_y(const Volume<std::uint16_t>& cax, const Image<std::uint8_t>& arms) {
  require(arms.same_size(cax.width, cax.height) && arms.channels == 2,
          "crossrt: aggregate_y needs 2-channel arms of the volume's size");
  const int height = cax.height;
  Volume<std::uint32_t> out(cax.width, cax.height, cax.range);
  parallel_for(std::size_t(cax.width), 0, [&](std::size_t item) {
    const int x = int(item);
    std::vector<std::uint32_t> prefix(std::size_t(height) + 1);
    for (int k = 0; k < cax.range.count; ++k) {
      for (int y = 0; y < height; ++y) prefix[std::size_t(y) + 1] = prefix[std::size_t(y)] + cax.at(x, y, k);
      for (int y = 0; y < height; ++y) {
        const int lo = y - arms.at(x, y, 0);
        const int hi = y + arms.at(x, y, 1);
        out.at(x, y, k) = prefix[std::size_t(hi) + 1] - prefix[std::size_t(lo)];
      }
    }
  });
  return out;
}

ImageF wta(const Volume<std::uint32_t>& ca) { return lowest_cost_disparity(ca); }

ImageF wta_subpixel(const Volume<std::uint32_t>& ca) {
  ImageF d(ca.width, ca.height, 1);
  parallel_for(std::size_t(ca.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < ca.width; ++x) {
      const int best = lowest_cost_level(ca, x, y);
      float value = float(ca.range.min + best);
      if (best > 0 && best + 1 < ca.range.count) {
        const long long cm = ca.at(x, y, best - 1);
        const long long c0 = ca.at(x, y, best);
        const long long cp = ca.at(x, y, best + 1);
        const long long denominator = 2 * (cm + cp - 2 * c0);  // >= 0: c0 is the minimum
        if (denominator > 0) value += float(cm - cp) / float(denominator);
      }
      d.at(x, y) = value;
    }
  });
  return d;
}

Image<std::uint8_t> gcp(const ImageF& left_disparity, const ImageF& right_disparity) {
  require(left_disparity.same_size(right_disparity.width, right_disparity.height) && left_disparity.channels == 1 &&
              right_disparity.channels == 1,
          "crossrt: gcp needs two one-channel maps of one size");
  Image<std::uint8_t> g(left_disparity.width, left_disparity.height, 1);
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x) {
      g.at(x, y) = std::uint8_t(lr_consistent(right_disparity, x, y, left_disparity.at(x, y)));
    }
  return g;
}

ImageF bilateral_fill(const ImageF& disparity, const Image<std::uint8_t>& g, const ImageU8& grey, int t) {
  require(disparity.channels == 1 && g.same_size(disparity.width, disparity.height) &&
              grey.same_size(disparity.width, disparity.height) && grey.channels == 1,
          "crossrt: bilateral_fill needs a map, its GCP mask and its grey image of one size");
  ImageF out = disparity;
  const int width = disparity.width;
  parallel_for(std::size_t(disparity.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < width; ++x) {
      if (g.at(x, y)) continue;
      int left = x - 1;
      while (left >= 0 && !g.at(left, y)) --left;
      int right = x + 1;
      while (right < width && !g.at(right, y)) ++right;
      const bool has_left = left >= 0;
      const bool has_right = right < width;
      if (!has_left && !has_right) continue;
      if (has_left != has_right) {
        out.at(x, y) = disparity.at(has_left ? left : right, y);
        continue;
      }
      const float dl = disparity.at(left, y);
      const float dr = disparity.at(right, y);
      const int i = x - left;
      const int j = right - x;
      if (std::fabs(dl - dr) <= float(t)) {
        // In double: a float times a column distance (< 2^24) is exact there, so an FMA
        // contraction cannot change the sum, and the GPU's __dmul_rn/__dadd_rn/__ddiv_rn give the
        // same double, rounded once to float.
        const double weighted = double(dl) * double(j) + double(dr) * double(i);
        out.at(x, y) = float(weighted / double(i + j));
      } else {
        const int bl = std::abs(int(grey.at(left, y)) - int(grey.at(x, y)));
        const int br = std::abs(int(grey.at(right, y)) - int(grey.at(x, y)));
        out.at(x, y) = bl < br ? dl : br < bl ? dr : std::min(dl, dr);
      }
    }
  });
  return out;
}

ImageF scale_up(const ImageF& disparity, const ImageU8& grey_full, int t, DisparityRange range) {
  require(disparity.channels == 1 && grey_full.channels == 1 &&
              disparity.same_size((grey_full.width + 1) / 2, (grey_full.height + 1) / 2),
          [&] {
            return "crossrt: scale_up needs a map of ceil(W/2) x ceil(H/2) for a " + std::to_string(grey_full.width) +
                   "x" + std::to_string(grey_full.height) + " grey image, got " + std::to_string(disparity.width) +
                   "x" + std::to_string(disparity.height);
          });
  const int width = grey_full.width;
  const int height = grey_full.height;
  const int half_width = disparity.width;
  const float lo = float(range.min);
  const float hi = float(range.max());
  const auto in_range = [&](float v) { return std::min(std::max(v, lo), hi); };
  ImageF out(width, height, 1);
  // Rows 2y: the x pass (bilateral, Sec. IV-H).
  parallel_for(std::size_t(disparity.height), 0, [&](std::size_t item) {
    const int y = int(item);
    const int fy = 2 * y;
    for (int fx = 0; fx < width; ++fx) {
      const int x = fx / 2;
      const float a = disparity.at(x, y);
      if (fx % 2 == 0 || x + 1 >= half_width) {
        out.at(fx, fy) = in_range(2.0f * a);
        continue;
      }
      const float b = disparity.at(x + 1, y);
      if (std::fabs(a - b) <= float(t)) {
        out.at(fx, fy) = in_range(a + b);
      } else {
        const int centre = grey_full.at(fx, fy);
        const int ba = std::abs(int(grey_full.at(fx - 1, fy)) - centre);
        const int bb = std::abs(int(grey_full.at(fx + 1, fy)) - centre);
        out.at(fx, fy) = in_range(2.0f * (ba < bb ? a : bb < ba ? b : std::min(a, b)));
      }
    }
  });
  // Odd rows: linear along y.
  parallel_for(std::size_t(height / 2), 0, [&](std::size_t item) {
    const int r = int(item);
    const int fy = 2 * r + 1;
    for (int fx = 0; fx < width; ++fx)
      out.at(fx, fy) = fy + 1 < height ? 0.5f * (out.at(fx, fy - 1) + out.at(fx, fy + 1)) : out.at(fx, fy - 1);
  });
  return out;
}

}  // namespace stereo::reference::crossrt
