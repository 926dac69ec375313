#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "host/dataset.h"

namespace fs = std::filesystem;
using namespace stereo;

namespace {

std::size_t count_255(const ImageU8& m) {
  std::size_t n = 0;
  for (auto v : m.data) n += v == 255;
  return n;
}

fs::path v2(const std::string& scene) { return data_root() / "middlebury-v2" / scene; }
fs::path v3(const std::string& scene) { return data_root() / "middlebury-v3-quarter" / scene; }

}  // namespace

class SharedData : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(data_root() / "middlebury-v2"))
      GTEST_SKIP() << "shared data not found at " << data_root() << " (set STEREO_DATA)";
  }
};

TEST_F(SharedData, MiddleburyV2ScenesMatchTheirReadme) {
  struct Expect {
    const char* name;
    int w, h, levels;
    std::size_t nonocc, all, disc;
  };
  for (const Expect& e : {Expect{"tsukuba", 384, 288, 16, 85438, 87696, 15790},
                          Expect{"venus", 434, 383, 20, 147513, 150282, 10540},
                          Expect{"teddy", 450, 375, 60, 147651, 165344, 40517},
                          Expect{"cones", 450, 375, 60, 143926, 163321, 47189}}) {
    const Scene s = load_scene(v2(e.name));
    SCOPED_TRACE(e.name);
    EXPECT_EQ(s.kind, SceneKind::middlebury_v2);
    EXPECT_EQ(s.left.width, e.w);
    EXPECT_EQ(s.left.height, e.h);
    EXPECT_EQ(s.left.channels, 3);
    EXPECT_EQ(s.levels, e.levels);
    EXPECT_EQ(count_255(s.mask_nonocc), e.nonocc);
    EXPECT_EQ(count_255(s.mask_all), e.all);
    EXPECT_EQ(count_255(s.mask_disc), e.disc);
  }
}

TEST_F(SharedData, MiddleburyV2GroundTruthIsScaled) {
  const Scene t = load_scene(v2("tsukuba"));
  float lo = 1e9f, hi = 0.0f;
  for (float v : t.gt.data)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_FLOAT_EQ(lo, 5.0f);  // README: 5 .. 14 integers
  EXPECT_FLOAT_EQ(hi, 14.0f);
  EXPECT_TRUE(std::isinf(t.gt.at(0, 0)));  // the 18-pixel border has no ground truth
  const Scene v = load_scene(v2("venus"));
  hi = 0.0f;
  for (float x : v.gt.data)
    if (std::isfinite(x)) hi = std::max(hi, x);
  EXPECT_FLOAT_EQ(hi, 19.75f);
}

TEST_F(SharedData, MiddEval3SceneUsesCalibAndMask) {
  const Scene s = load_scene(v3("Adirondack"));
  EXPECT_EQ(s.kind, SceneKind::middlebury_v3);
  EXPECT_EQ(s.left.width, 718);
  EXPECT_EQ(s.left.height, 496);
  EXPECT_EQ(s.levels, 73);
  EXPECT_TRUE(s.mask_disc.empty());
  const std::size_t nonocc = count_255(s.mask_nonocc), all = count_255(s.mask_all);
  EXPECT_GT(nonocc, 0u);
  EXPECT_GT(all, nonocc);  // occluded pixels with ground truth are in "all" only
  for (std::size_t i = 0; i < s.gt.data.size(); ++i)
    if (s.mask_all.data[i] == 255) ASSERT_TRUE(std::isfinite(s.gt.data[i]));
}

TEST_F(SharedData, AFolderOfScenesIsADataset) {
  const auto scenes = load_dataset(data_root() / "middlebury-v2");
  ASSERT_EQ(scenes.size(), 4u);
  EXPECT_EQ(scenes[0].name, "cones");  // sorted by name
  EXPECT_EQ(scenes[3].name, "venus");
  EXPECT_EQ(load_dataset(v2("venus")).size(), 1u);
}

TEST(Dataset, UserErrorsNameTheProblem) {
  EXPECT_THROW(load_scene("/nonexistent/scene"), Error);
  EXPECT_THROW(load_dataset(fs::temp_directory_path() / "stereo_no_such_dataset"), Error);
  ImageU8 a(10, 5, 3), b(11, 5, 3);
  EXPECT_THROW(validate_pair(a, b, 4, "t"), Error);
  EXPECT_THROW(validate_pair(a, a, 0, "t"), Error);
  EXPECT_THROW(validate_pair(a, a, 10, "t"), Error);
  EXPECT_NO_THROW(validate_pair(a, a, 9, "t"));
  try {
    validate_pair(a, a, 10, "salap/cpu");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("salap/cpu"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("10"), std::string::npos);
  }
}

TEST(Dataset, V2TableKnowsTheFourScenes) {
  EXPECT_EQ(middlebury_v2_info("Tsukuba")->scale, 16);
  EXPECT_EQ(middlebury_v2_info("teddy")->levels, 60);
  EXPECT_FALSE(middlebury_v2_info("aloe").has_value());
}
