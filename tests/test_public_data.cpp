// Public Middlebury pairs brought in by data/fetch_public_pairs.sh (Aloe from Debian's
// opencv-doc, Motorcycle from python3-skimage): their stored ground truth must explain the
// views better than any rescaled or shifted version of it. The data are not in the
// repository; without them the tests skip and say how to obtain them.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "app/dataset.h"
#include "app/synth.h"

namespace stereo {
namespace {

namespace fs = std::filesystem;

// $STEREO_PUBLIC_DATA, else data/public beside this source file.
fs::path public_data_root() {
  if (const char* env = std::getenv("STEREO_PUBLIC_DATA"); env && *env) return env;
  return fs::path(__FILE__).parent_path().parent_path() / "data" / "public";
}

void check_scene(const std::string& name) {
  const fs::path dir = public_data_root() / name;
  if (!fs::exists(dir / "disp0GT.pfm"))
    GTEST_SKIP() << dir.string() << " not found: run data/fetch_public_pairs.sh build/stereo data/public "
                 << "(or point STEREO_PUBLIC_DATA at its output folder)";
  const Scene s = load_scene(dir);
  ASSERT_TRUE(s.has_ground_truth());
  const double stored = warp_error(s, 1.0);
  ::testing::Test::RecordProperty("warp_error_x1", std::to_string(stored));
  // Photometric noise, JPEG artefacts and lighting differences leave a few grey levels even
  // for the right disparity; any wrong scale or a 1 px shift is clearly worse.
  for (double f : {0.25, 0.5, 2.0, 4.0}) EXPECT_LT(stored, warp_error(s, f)) << "factor " << f;
  for (double off : {-1.0, 1.0}) EXPECT_LT(stored, warp_error(s, 1.0, off)) << "offset " << off;
  EXPECT_LT(stored, 0.8 * warp_error(s, 0.5));
  EXPECT_LT(stored, 0.8 * warp_error(s, 2.0));
}

TEST(PublicData, AloeGroundTruthFitsBest) { check_scene("aloe"); }
TEST(PublicData, MotorcycleGroundTruthFitsBest) { check_scene("motorcycle"); }

}  // namespace
}  // namespace stereo
