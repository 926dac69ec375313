// One target per image loader of app/image_io.h, chosen at compile time (FUZZ_LOADER):
// read_image (PNG, PGM/PPM, JPEG: the same entry point, told apart by their seed corpora),
// read_png16 and read_disparity_png16 (16-bit PNG), read_pfm. Every image a loader returns
// must be as large as its size says.

#include <cstdint>
#include <cstdlib>

#include "fuzz/fuzz_util.h"
#include "core/error.h"
#include "app/image_io.h"

namespace {

template <class T>
void check(const stereo::Image<T>& img) {
  const std::size_t expected = img.pixel_count() * static_cast<std::size_t>(img.channels);
  if (img.width <= 0 || img.height <= 0 || img.data.size() != expected) std::abort();
  // Touch every value, so that an uninitialised raster shows under MSan-like tools and a short
  // buffer under ASan.
  volatile T sink{};
  for (const T& v : img.data) sink = v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = stereo::fuzz::scratch() / "input";
  stereo::fuzz::write_file(path, data, size);
  try {
#if FUZZ_LOADER == 1
    const auto img = stereo::read_image(path);
    if (img.channels != 1 && img.channels != 3) std::abort();
    check(img);
    check(stereo::to_rgb(img));
#elif FUZZ_LOADER == 2
    check(stereo::read_png16(path));
    check(stereo::read_disparity_png16(path));
#elif FUZZ_LOADER == 3
    check(stereo::read_pfm(path));
#else
#error "FUZZ_LOADER: 1 read_image, 2 16-bit PNG, 3 PFM"
#endif
  } catch (const stereo::Error&) {
  }
  return 0;
}
