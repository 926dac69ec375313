#include <gtest/gtest.h>


#include <cmath>
#include <filesystem>
#include <fstream>

#include "app/dataset.h"
#include "app/image_io.h"
#include "tests/cli_util.h"
#include "tests/test_util.h"
#include "core/validate.h"

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
      GTEST_SKIP() << missing_data_hint("middlebury-v2");
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
    if (s.mask_all.data[i] == 255) {
      ASSERT_TRUE(std::isfinite(s.gt.data[i]));
    }
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
    validate_pair(a, a, 10, "method/cpu");
    ADD_FAILURE() << "10 levels accepted on a 10-wide pair";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("method/cpu"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("10"), std::string::npos);
  }
}

TEST(Dataset, V2TableKnowsTheFourScenes) {
  EXPECT_EQ(middlebury_v2_info("Tsukuba")->scale, 16);
  EXPECT_EQ(middlebury_v2_info("teddy")->levels, 60);
  EXPECT_FALSE(middlebury_v2_info("aloe").has_value());
}

// ---- synthetic folders written by the tests ------------------------------------------------

namespace {

// A fresh folder under the temp directory, removed with the fixture.
class TempFolder : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_test_dir("stereo_dataset_"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

struct KittiNames {
  const char* left;
  const char* right;
  const char* occ;
  const char* noc;
};

// Frames 000000 and 000001 (and a _11 frame, which is not a pair at the reference time), 23 x 7,
// with 16-bit ground truth: raw = 256 * d, 0 = unknown; the noc map drops column 0.
void write_kitti(const fs::path& dir, const KittiNames& n) {
  for (const char* sub : {n.left, n.right, n.occ, n.noc}) fs::create_directories(dir / sub);
  for (int frame = 0; frame < 2; ++frame) {
    const std::string file = "00000" + std::to_string(frame) + "_10.png";
    const ImageU8 left = test::random_texture(23, 7, 40u + unsigned(frame));
    write_png(dir / n.left / file, left);
    write_png(dir / n.right / file, test::shifted(left, 2));
    ImageU16 occ(23, 7, 1), noc(23, 7, 1);
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 23; ++x) {
        // d = 2 + x / 4 + frame (quarter pixels), unknown on row 3.
        occ.at(x, y) = y == 3 ? 0 : std::uint16_t(256 * (2 + frame) + 64 * x);
        noc.at(x, y) = x == 0 ? 0 : occ.at(x, y);
      }
    write_png16(dir / n.occ / file, occ);
    write_png16(dir / n.noc / file, noc);
  }
  write_png(dir / n.left / "000000_11.png", test::random_texture(23, 7, 9));
}

}  // namespace

class KittiLayouts : public TempFolder, public ::testing::WithParamInterface<KittiNames> {};

TEST_P(KittiLayouts, ReadTheFramesAndTheSixteenBitGroundTruth) {
  write_kitti(dir_, GetParam());
  ASSERT_TRUE(is_scene_folder(dir_));
  const std::vector<Scene> scenes = load_dataset(dir_);
  ASSERT_EQ(scenes.size(), 2u);  // the _11 frame is not a pair
  for (int frame = 0; frame < 2; ++frame) {
    const Scene& s = scenes[std::size_t(frame)];
    SCOPED_TRACE(s.name);
    EXPECT_EQ(s.name, "00000" + std::to_string(frame) + "_10");
    EXPECT_EQ(s.kind, SceneKind::kitti);
    EXPECT_EQ(s.levels, 256);
    EXPECT_EQ(s.default_threshold, 3.0);
    ASSERT_TRUE(s.left.same_size(23, 7));
    EXPECT_EQ(s.left.channels, 3);
    EXPECT_EQ(s.left.data, test::random_texture(23, 7, 40u + unsigned(frame)).data);
    EXPECT_EQ(s.right.data, test::shifted(s.left, 2).data);
    ASSERT_TRUE(s.gt.same_size(23, 7));
    EXPECT_FLOAT_EQ(s.gt.at(0, 0), 2.0f + float(frame));
    EXPECT_FLOAT_EQ(s.gt.at(5, 6), 2.0f + float(frame) + 5 * 0.25f);
    EXPECT_TRUE(std::isinf(s.gt.at(4, 3)));  // raw 0 = unknown
    EXPECT_EQ(count_255(s.mask_all), std::size_t(23 * 6));
    EXPECT_EQ(count_255(s.mask_nonocc), std::size_t(22 * 6));
    EXPECT_EQ(s.mask_nonocc.at(0, 0), 0);
    EXPECT_EQ(s.mask_nonocc.at(1, 0), 255);
  }
  // One scene folder holds one pair; two frames are a dataset.
  EXPECT_THROW(load_scene(dir_), Error);
  fs::remove(dir_ / GetParam().left / "000001_10.png");
  EXPECT_EQ(load_scene(dir_).name, "000000_10");
}

// The non-occluded map is read as a mask of the views' size: one of another size is refused
// by name (the bounded fuzz run found it passing through to the metrics).
TEST_P(KittiLayouts, RefuseANonOccludedMapOfAnotherSize) {
  write_kitti(dir_, GetParam());
  write_png16(dir_ / GetParam().noc / "000001_10.png", ImageU16(22, 7, 1));
  try {
    load_dataset(dir_);
    FAIL() << "a 22x7 noc map beside 23x7 views was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("000001_10.png is 22x7, the images are 23x7"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Kitti, KittiLayouts,
                         ::testing::Values(KittiNames{"image_2", "image_3", "disp_occ_0", "disp_noc_0"},
                                           KittiNames{"colored_0", "colored_1", "disp_occ", "disp_noc"}),
                         [](const auto& param_info) {
                           return std::string(param_info.param.left) == "image_2" ? "2015" : "2012";
                         });

using DatasetThresholds = TempFolder;

// The bad-pixel threshold of each format's own evaluation: Middlebury v2 1.0, MiddEval3 2.0,
// KITTI 3.0 (D1).
TEST_F(DatasetThresholds, EachLoaderSetsItsFormatsThreshold) {
  const ImageU8 img = test::random_texture(30, 10, 1);
  fs::create_directories(dir_ / "tsukuba");
  write_png(dir_ / "tsukuba" / "left.png", img);
  write_png(dir_ / "tsukuba" / "right.png", img);
  const Scene v2 = load_scene(dir_ / "tsukuba");
  EXPECT_EQ(v2.kind, SceneKind::middlebury_v2);
  EXPECT_EQ(v2.default_threshold, 1.0);

  fs::create_directories(dir_ / "v3");
  write_png(dir_ / "v3" / "im0.png", img);
  write_png(dir_ / "v3" / "im1.png", img);
  std::ofstream(dir_ / "v3" / "calib.txt") << "ndisp=12\n";
  const Scene v3 = load_scene(dir_ / "v3");
  EXPECT_EQ(v3.kind, SceneKind::middlebury_v3);
  EXPECT_EQ(v3.levels, 12);
  EXPECT_EQ(v3.default_threshold, 2.0);

  write_kitti(dir_ / "kitti", {"colored_0", "colored_1", "disp_occ", "disp_noc"});
  for (const Scene& s : load_dataset(dir_ / "kitti")) EXPECT_EQ(s.default_threshold, 3.0) << s.name;
}

// MiddEval3's calib.txt: a negative vmin (a verging rig) starts the search there and keeps
// ndisp - 1 as the top; negative ground truth is then valid. vmin >= 0 leaves 0 .. ndisp - 1.
TEST_F(DatasetThresholds, MiddEval3NegativeVminWidensTheRange) {
  const ImageU8 img = test::random_texture(40, 6, 2);
  for (const auto& [name, calib] : {std::pair<std::string, std::string>{"neg", "ndisp=12\nvmin=-3.5\nvmax=9\n"},
                                    std::pair<std::string, std::string>{"pos", "ndisp=12\nvmin=2.25\nvmax=9\n"}}) {
    fs::create_directories(dir_ / name);
    write_png(dir_ / name / "im0.png", img);
    write_png(dir_ / name / "im1.png", img);
    std::ofstream(dir_ / name / "calib.txt") << calib;
    ImageF gt(40, 6, 1, 5.0f);
    gt.at(1, 1) = -2.0f;
    write_pfm(dir_ / name / "disp0GT.pfm", gt);
  }
  const Scene neg = load_scene(dir_ / "neg");
  EXPECT_EQ(neg.range().min, -4);
  EXPECT_EQ(neg.range().max(), 11);
  EXPECT_EQ(neg.gt.at(1, 1), -2.0f);
  const Scene pos = load_scene(dir_ / "pos");
  EXPECT_EQ(pos.range().min, 0);
  EXPECT_EQ(pos.range().count, 12);
  EXPECT_FALSE(std::isfinite(pos.gt.at(1, 1)));  // below the range: unknown, as before
  std::ofstream(dir_ / "neg" / "calib.txt") << "ndisp=12\nvmin=abc\n";
  EXPECT_THROW(load_scene(dir_ / "neg"), Error);
}
