// Scene-folder targets (FUZZ_LAYOUT): 1 Middlebury v2 (a folder named tsukuba, so the scale
// and range are known), 2 MiddEval3, 3 KITTI 2015, each from an archive of its files
// (fuzz_util.h: unpack); 4 calib.txt alone, the input being the whole file beside a fixed
// valid MiddEval3 pair and ground truth. A loaded scene must be consistent: views of one size
// and three channels, ground truth and masks of that size, a range that validate_pair accepts
// or refuses with stereo::Error.

#include <cstdint>
#include <cstdlib>
#include <filesystem>

#include "fuzz/fuzz_util.h"
#include "app/dataset.h"
#include "core/error.h"
#include "app/image_io.h"
#include "core/validate.h"

namespace fs = std::filesystem;

namespace {

void check(const stereo::Scene& s) {
  const int w = s.left.width, h = s.left.height;
  if (w <= 0 || h <= 0 || s.left.channels != 3 || s.right.channels != 3 || !s.right.same_size(w, h)) std::abort();
  for (const stereo::ImageU8* m : {&s.mask_nonocc, &s.mask_all, &s.mask_disc})
    if (!m->empty() && !m->same_size(w, h)) std::abort();
  if (!s.gt.empty() && (!s.gt.same_size(w, h) || s.gt.channels != 1)) std::abort();
  try {
    stereo::validate_pair(s.left, s.right, s.range(), "fuzz");
  } catch (const stereo::Error&) {
  }
}

#if FUZZ_LAYOUT == 4
// A 12 x 4 MiddEval3 pair with a ground truth, written once.
void write_fixed_scene(const fs::path& dir) {
  stereo::ImageU8 img(12, 4, 3);
  for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = static_cast<std::uint8_t>(i * 37);
  stereo::write_png(dir / "im0.png", img);
  stereo::write_png(dir / "im1.png", img);
  stereo::write_pfm(dir / "disp0GT.pfm", stereo::ImageF(12, 4, 1, 2.5f));
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
#if FUZZ_LAYOUT == 4
  static const fs::path dir = [] {
    const fs::path d = stereo::fuzz::scratch() / "calib_scene";
    fs::create_directories(d);
    write_fixed_scene(d);
    return d;
  }();
  stereo::fuzz::write_file(dir / "calib.txt", data, size);
  try {
    check(stereo::load_scene(dir));
  } catch (const stereo::Error&) {
  }
#else
  const auto& names = stereo::fuzz::layout_files(FUZZ_LAYOUT);
  const fs::path root = stereo::fuzz::scratch() / "scene";
  const fs::path dir = FUZZ_LAYOUT == 1 ? root / "tsukuba" : root / "scene";
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(dir);
  for (const auto& [which, bytes] : stereo::fuzz::unpack(data, size, names.size())) {
    const fs::path file = dir / names[which];
    fs::create_directories(file.parent_path());
    stereo::fuzz::write_file(file, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  try {
    for (const stereo::Scene& s : stereo::load_dataset(FUZZ_LAYOUT == 3 ? dir : root)) check(s);
  } catch (const stereo::Error&) {
  }
#endif
  return 0;
}
