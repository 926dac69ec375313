// SA-LAP's registry entry: what the driver prints and compares against, taken from the paper
// (Lu, Lafruit, Catthoor, ICIP 2007, /work/shared/papers/000_*.txt).

#include "methods/salap/register.h"

#include <cstdio>
#include <string>

#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "methods/salap/params.h"

namespace stereo {
namespace {

// Table 2 prints its times with two decimals; the note repeats them as printed.
std::string fixed_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", ms);
  return buf;
}

}  // namespace

MethodInfo salap_method_info() {
  MethodInfo info;
  info.name = "salap";
  info.title = "SA-LAP, variable centre-biased windows over a truncated separable Laplacian kernel";
  info.citation =
      "J. Lu, G. Lafruit, F. Catthoor, \"Fast variable center-biased windowing for high-speed stereo on "
      "programmable graphics hardware\", Proc. IEEE ICIP 2007";

  // Table 1 is the old Middlebury evaluation (Tsukuba, Sawtooth, Venus, Map) with columns
  // nonocc / untex / disc: it gives no 'all' figure, and 'untex' has no column here. Tsukuba
  // and Venus are the scenes it shares with Middlebury v2.
  info.accuracy_source = "Table 1 (old Middlebury evaluation, bad > 1 px, %; nonocc and disc, no 'all' column)";
  info.accuracy_threshold = 1.0;
  const std::vector<std::pair<std::string, std::string>> four = {{"windows", "4"}};
  info.accuracy = {
      {"tsukuba", 3.95, std::nullopt, 14.42, {}},
      {"sawtooth", 1.73, std::nullopt, 7.83, {}},
      {"venus", 5.04, std::nullopt, 10.12, {}},
      {"map", 0.65, std::nullopt, 8.51, {}},
      {"tsukuba", 7.63, std::nullopt, 14.30, four},
      {"sawtooth", 2.22, std::nullopt, 8.30, four},
      {"venus", 9.04, std::nullopt, 9.20, four},
      {"map", 0.66, std::nullopt, 8.60, four},
  };

  // Table 2: total = algorithm + download of both images + read-back, on the paper's GPU.
  info.paper_gpu = "NVIDIA GeForce 7900 (512 MB)";
  info.speed_source = "Table 2 (NVIDIA GeForce 7900; time = algorithm + download of both images + read-back)";
  const auto row = [](int side, int levels, double algorithm, double download, double readback, double total,
                      double mdes) {
    return PaperSpeed{side, side, levels, total, mdes,
                      "algorithm " + fixed_ms(algorithm) + " + download 2 x " + fixed_ms(download) +
                          " + read-back " + fixed_ms(readback) + " ms"};
  };
  info.speed = {
      row(512, 16, 6.62, 0.72, 0.81, 8.88, 472),   row(512, 32, 13.23, 0.72, 0.81, 15.49, 542),
      row(512, 64, 26.27, 0.72, 0.81, 28.53, 588), row(512, 96, 39.30, 0.72, 0.81, 41.56, 605),
      row(256, 16, 2.02, 0.17, 0.25, 2.61, 402),   row(256, 32, 3.92, 0.17, 0.25, 4.52, 464),
      row(256, 64, 7.60, 0.17, 0.25, 8.20, 512),   row(256, 96, 10.89, 0.17, 0.25, 11.48, 548),
      {1920, 1080, 128, std::nullopt, std::nullopt, "suite setting, not in the paper"},
      {1920, 1080, 256, std::nullopt, std::nullopt, "suite setting, not in the paper"},
  };

  info.describe_params = [] { return describe_defaults<SalapParams>("salap"); };
  return info;
}

}  // namespace stereo
