// SymStereo's registry entry: what the paper reports, so `list` and `bench` can set a run
// beside it. The paper gives no accuracy table (only Fig. 3's pictures of Tsukuba), so the
// accuracy rows are empty and `eval` prints ours alone.

#include "methods/symstereo/register.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "methods/symstereo/params.h"

namespace stereo {


MethodInfo symstereo_method_info() {
  MethodInfo info;
  info.name = "symstereo";
  info.title = "SymStereo logN: symmetry energies of log-Gabor wavelet responses (FFT filtering), DSI + WTA";
  info.citation =
      "V. Mota, G. Falcao, M. Antunes, J. Barreto, U. Nunes, \"Using the GPU for fast symmetry-based dense stereo "
      "matching in high resolution images\", ICASSP 2014";
  info.accuracy_source = "none (the paper shows Fig. 3, Tsukuba, as pictures only)";
  info.accuracy_threshold = 1.0;
  info.speed_source = "Tables 2 and 3 (GPU time of Algorithm 1, averaged over m in {1.02, 1.05, 1.08})";
  info.paper_gpu = "NVIDIA GeForce GTX 680 (host: Core i7 950)";
  // Each cell is run with its own N (the row's `set`); the paper quotes ms only, so Mde/s is
  // derived from them, W x H x d / time.
  const auto cell = [](int w, int h, int levels, int wavelets, double ms, const std::string& table) {
    return PaperSpeed{w,
                      h,
                      levels,
                      ms,
                      double(w) * double(h) * double(levels) / (ms * 1000.0),
                      table + ", N = " + std::to_string(wavelets) + " (Mde/s derived from the time)",
                      {{"wavelets", std::to_string(wavelets)}}};
  };
  const std::string t2 = "Table 2 (Tsukuba, 288x384)";
  const std::string t3 = "Table 3 (the authors' 768x1024 pair; ours: the bench's synthetic pair)";
  info.speed = {
      cell(384, 288, 7, 15, 18.70, t2),    cell(384, 288, 15, 15, 20.50, t2),    cell(384, 288, 31, 15, 24.42, t2),
      cell(384, 288, 7, 20, 23.80, t2),    cell(384, 288, 15, 20, 25.69, t2),    cell(384, 288, 31, 20, 29.16, t2),
      cell(384, 288, 7, 30, 37.98, t2),    cell(384, 288, 15, 30, 39.91, t2),    cell(384, 288, 31, 30, 43.69, t2),
      cell(1024, 768, 69, 20, 358.87, t3), cell(1024, 768, 128, 20, 448.73, t3), cell(1024, 768, 170, 20, 630.26, t3),
      cell(1024, 768, 69, 30, 528.2, t3),  cell(1024, 768, 128, 30, 647.7, t3),  cell(1024, 768, 170, 30, 922.1, t3),
      cell(1024, 768, 69, 45, 877.2, t3),  cell(1024, 768, 128, 45, 987.7, t3),  cell(1024, 768, 170, 45, 1412.7, t3),
  };
  info.describe_params = [] { return describe_defaults<SymStereoParams>("symstereo"); };
  return info;
}

}  // namespace stereo
