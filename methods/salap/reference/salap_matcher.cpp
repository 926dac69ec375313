// The `cpu` backend of SA-LAP: the reference stages (reference/salap.h) behind the Matcher
// interface, spread over a bounded thread pool (core/thread_pool.h).
//
// Disparity levels (range.min .. range.max()) run one after another, in increasing d, so the
// winner-takes-all is the reference's own strict `<` scan (the smallest d wins a tie) and the
// result is bit-identical to reference::salap_disparity for every thread count. Inside one
// level the frame is cut into bands, with no halo, in two phases:
//   1. row bands:    tad_cost, then filter_horizontal left and right (each row on its own);
//                    the results are stored transposed (C_L^T, C_R^T: one row per image column);
//   2. column bands: filter_vertical(C, down / up) is filter_horizontal(C^T, right / left) on
//                    rows of the transposed frame (the same taps, weights and summation order,
//                    and the same clamp, now along the row), then window_cost and the WTA
//                    update of those columns.
// So every stage is the reference function itself, applied to a band of whole rows.
//
// Memory, whatever the thread count: four float frames (C_L^T, C_R^T, best cost, disparity),
// the input pair once more (cut into row bands), and per band in flight at most seven
// band-sized float images (phase 2: the two band rows, four vertical filters, the window
// cost); the bands in flight never cover more than the frame, so <= 11 float frames and two
// input copies in all (1920x1080 RGB: < 100 MB).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/registry.h"
#include "core/thread_pool.h"
#include "methods/salap/register.h"
#include "methods/salap/reference/salap.h"
#include "methods/salap/reference/salap_inspect.h"
#include "reference/cpu_matcher.h"
#include "reference/host_stage_clock.h"

namespace stereo {
namespace {

// The cpu backend's knobs, bound beside SalapParams (`--set threads=4`).
struct CpuOptions {
  int quantize = 0;  // 0: float intermediates; 8: round TAD, C_L/C_R, C0..C3 to the RGBA8 grid (the GL model)
  int threads = 0;   // 0: all hardware threads

  template <class B>
  void describe(B& b) {
    b.field("quantize", quantize, "0 = float intermediates, 8 = round every intermediate to the 8-bit grid");
    b.field("threads", threads, "CPU threads over row and column bands of each level (0 = all)");
  }

  void validate(const std::string& component) const {
    require(quantize == 0 || quantize == 8, component + ": quantize must be 0 or 8, got " + std::to_string(quantize));
    require(threads >= 0, component + ": threads must be >= 0, got " + std::to_string(threads));
  }
};

// Rows y0 .. y1-1 of `img`, as an image of their own.
template <class T>
Image<T> rows_of(const Image<T>& img, int y0, int y1) {
  Image<T> out(img.width, y1 - y0, img.channels);
  if (!out.data.empty()) std::memcpy(out.data.data(), img.row(y0), out.data.size() * sizeof(T));
  return out;
}

// Band b of n items cut into `bands` near-equal consecutive ranges.
struct Band {
  int begin, end;
};
Band band(int b, int bands, int n) {
  return {int(std::int64_t(b) * n / bands), int(std::int64_t(b + 1) * n / bands)};
}

class SalapCpu final : public reference::CpuMatcher<SalapParams, CpuOptions> {
 public:
  explicit SalapCpu(const Overrides& overrides) : CpuMatcher("salap/cpu", overrides) {}

  // Kept stages are recomputed after the run by the whole-frame reference functions (the run
  // itself keeps only two transposed frames): outside Timing, and only when asked.
  StereoResult run(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    using reference::Side;
    StereoResult result;
    reference::HostStageClock clock(result.timing);
    const int width = left.width, height = left.height, q = options_.quantize;
    const unsigned threads = options_.threads > 0 ? unsigned(options_.threads) : ThreadPool::hardware_threads();
    // A few bands per thread even out the load; the result does not depend on the cut.
    const int row_bands = int(std::min<std::int64_t>(height, 4 * std::int64_t(threads)));
    const int column_bands = int(std::min<std::int64_t>(width, 4 * std::int64_t(threads)));
    ThreadPool pool(std::min<unsigned>(threads, unsigned(std::max(row_bands, column_bands))));

    std::vector<ImageU8> left_rows(static_cast<std::size_t>(row_bands)), right_rows(static_cast<std::size_t>(row_bands));
    for (int b = 0; b < row_bands; ++b) {
      const Band r = band(b, row_bands, height);
      left_rows[std::size_t(b)] = rows_of(left, r.begin, r.end);
      right_rows[std::size_t(b)] = rows_of(right, r.begin, r.end);
    }
    ImageF left_t(height, width, 1), right_t(height, width, 1);  // C_L^T, C_R^T
    ImageF best(width, height, 1, std::numeric_limits<float>::infinity());
    result.disparity = ImageF(width, height, 1, float(range.min));
    ImageF& disparity = result.disparity;

    for (int d = range.min; d <= range.max(); ++d) {
      pool.parallel_for(std::size_t(row_bands), [&](std::size_t b) {
        const Band r = band(int(b), row_bands, height);
        const ImageF tad = reference::tad_cost(left_rows[b], right_rows[b], d, params_, q);
        const ImageF cl = reference::filter_horizontal(tad, Side::left, params_, q);
        const ImageF cr = reference::filter_horizontal(tad, Side::right, params_, q);
        for (int y = r.begin; y < r.end; ++y)
          for (int x = 0; x < width; ++x) {
            left_t.at(y, x) = cl.at(x, y - r.begin);
            right_t.at(y, x) = cr.at(x, y - r.begin);
          }
      });
      pool.parallel_for(std::size_t(column_bands), [&](std::size_t b) {
        const Band c = band(int(b), column_bands, width);
        const ImageF cl = rows_of(left_t, c.begin, c.end), cr = rows_of(right_t, c.begin, c.end);
        // Down (taps y+l) is right (taps x+k) along a transposed row; up is left.
        const ImageF cost = reference::window_cost(
            reference::filter_horizontal(cl, Side::right, params_, q), reference::filter_horizontal(cl, Side::left, params_, q),
            reference::filter_horizontal(cr, Side::right, params_, q), reference::filter_horizontal(cr, Side::left, params_, q),
            params_);
        for (int x = c.begin; x < c.end; ++x)
          for (int y = 0; y < height; ++y) {
            const float v = cost.at(y, x - c.begin);
            if (v < best.at(x, y)) {  // strict, levels in increasing d: the smallest d wins a tie
              best.at(x, y) = v;
              disparity.at(x, y) = float(d);
            }
          }
      });
    }
    clock.finish();
    if (keeping()) reference::keep_salap_stages(kept_stages(), left, right, range, disparity, params_, q, pool);
    return result;
  }
};

}  // namespace

void register_salap_cpu(Registry& registry) {
  registry.add(reference::cpu_backend_entry<SalapCpu>(
      "salap", "SA-LAP variable centre-biased windows, CPU reference (Lu et al. ICIP 2007)"));
}

}  // namespace stereo
