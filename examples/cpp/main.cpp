// The C++ library from outside the build: two images in, one method on one backend, its
// disparity map out as PFM (+inf where the method gives none).
// Usage: stereo_example LEFT.png RIGHT.png LEVELS OUT.pfm [METHOD [BACKEND]]   (salap, cpu)

#include <cstdio>
#include <exception>
#include <string>

#include <stereo/io.h>
#include <stereo/stereo.h>

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s LEFT RIGHT LEVELS OUT.pfm [METHOD [BACKEND]]\n", argv[0]);
    return 2;
  }
  try {
    const std::string method = argc > 5 ? argv[5] : "salap", backend = argc > 6 ? argv[6] : "cpu";
    // RGB, as `stereo run` reads them (a grey file is expanded).
    const stereo::ImageU8 left = stereo::to_rgb(stereo::read_image(argv[1]));
    const stereo::ImageU8 right = stereo::to_rgb(stereo::read_image(argv[2]));
    stereo::StereoMatcher matcher = stereo::create(method, backend);
    const stereo::StereoResult r = matcher.compute(left, right, stereo::DisparityRange{0, std::stoi(argv[3])});
    stereo::write_pfm(argv[4], r.disparity);
    std::printf("%s: %dx%d in %.2f ms (upload %.2f, algorithm %.2f, read-back %.2f; %s) on %s\n",
                matcher.component().c_str(), left.width, left.height, r.timing.total_ms(), r.timing.upload_ms,
                r.timing.algorithm_ms, r.timing.readback_ms, r.timing.clock.c_str(), matcher.device().c_str());
    return 0;
  } catch (const std::exception& e) {  // stereo::Error: one line naming the component and the values
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
