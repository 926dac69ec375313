// A method's typed parameters from outside the build: stereo::adcensus::Params (the paper's
// defaults, Mei et al. Table 1) with three fields set, AD-Census run on one backend, its map
// written as PFM. tests/test_install.sh compares it with `stereo run -m adcensus --set pi2=4
// --set aggregation_iterations=2 --set refine=vote`: the typed struct and the strings bind alike.
// Usage: stereo_typed_params LEFT.png RIGHT.png LEVELS OUT.pfm [BACKEND]   (cpu)

#include <cstdio>
#include <exception>
#include <string>

#include <stereo/adcensus.h>
#include <stereo/io.h>
#include <stereo/stereo.h>

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s LEFT RIGHT LEVELS OUT.pfm [BACKEND]\n", argv[0]);
    return 2;
  }
  try {
    stereo::adcensus::Params params;
    params.pi2 = 4.0f;                   // Table 1: 3.0
    params.aggregation_iterations = 2;   // Sec. 2.2: 4
    params.refine = "vote";              // stop after region voting
    stereo::StereoMatcher matcher = stereo::create(params, argc > 5 ? argv[5] : "cpu");
    const stereo::ImageU8 left = stereo::to_rgb(stereo::read_image(argv[1]));
    const stereo::ImageU8 right = stereo::to_rgb(stereo::read_image(argv[2]));
    const stereo::StereoResult r = matcher.compute(left, right, stereo::DisparityRange{0, std::stoi(argv[3])});
    stereo::write_pfm(argv[4], r.disparity);
    for (const auto& [key, value] : matcher.params()) std::printf("%s=%s\n", key.c_str(), value.c_str());
    return 0;
  } catch (const std::exception& e) {  // stereo::Error: one line naming the component and the values
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
