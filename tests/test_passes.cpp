// dump_passes (app/passes.h) and `stereo passes` on salap/cpu, whose inspector is the
// reference's stages one level per slice: the files, the size announced before them, the stage
// filter (salap's own tests check its stages against its reference).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <cstdint>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/image_io.h"
#include "app/passes.h"
#include "core/error.h"
#include "methods/builtin.h"
#include "tests/cli_util.h"
#include "tests/kept_run.h"
#include "tests/test_util.h"

namespace stereo {
namespace {
namespace fs = std::filesystem;

constexpr int W = test::KEPT_W, H = test::KEPT_H;
const DisparityRange PASSES_RANGE = test::KEPT_RANGE;
using Pair = test::KeptPair;
using test::kept_cpu_run;
Pair make_pair() { return test::make_kept_pair(); }

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

TEST(DumpPasses, WritesEveryPassAndSlice) {
  const fs::path dir = test::fresh_test_dir("stereo_passes_") / "dump";
  const Pair pair = make_pair();
  auto m = kept_cpu_run(pair);
  const PassDump dump = dump_passes(*m, dir, PASSES_RANGE);
  EXPECT_EQ(dump.passes, 9);
  const std::set<std::string> files = files_in(dir);
  EXPECT_EQ(files.size(), dump.files.size());
  // 8 per-level passes x 5 levels x (PNG + PFM), the select plane's two, passes.json.
  EXPECT_EQ(files.size(), 8u * 5u * 2u + 2u + 1u);
  for (const char* f : {"tad_d-1--1.png", "tad_d-1.pfm", "tad_d3-3.png", "tad_d3.pfm", "vertical.c2_d0.pfm",
                        "window_cost_d1-1.png", "select.png", "select.pfm", "passes.json"})
    EXPECT_TRUE(files.count(f)) << f;
  // The PFM holds the stored values; the PNG is the labelled picture.
  EXPECT_EQ(read_pfm(dir / "vertical.c2_d0.pfm").data, m->inspector()->read("vertical.c2", 1).data);
  const ImageU8 png = read_image(dir / "tad_d3-3.png");
  EXPECT_GE(png.width, W);
  EXPECT_GT(png.height, H);
  std::ifstream in(dir / "passes.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["component"], "salap/cpu");
  ASSERT_EQ(j["passes"].size(), 9u);
  EXPECT_EQ(j["passes"][0]["name"], "tad");
  EXPECT_EQ(j["passes"][0]["slices"], 5);
  EXPECT_EQ(j["passes"][0]["first_disparity"], -1);
  EXPECT_LE(j["passes"][0]["value_range"][1].get<double>(), 1.0);
  fs::remove_all(dir.parent_path());
}

TEST(DumpPasses, FileNames) {
  PassLayout quad;
  quad.name = "tad";
  quad.channels = 4;
  quad.slices = 2;
  quad.disparities_per_slice = 4;
  quad.first_disparity = -3;
  EXPECT_EQ(slice_png_name(quad, 1, 4), "tad_d1-4.png");
  EXPECT_EQ(slice_png_name(quad, 1, 2), "tad_d1-2.png");  // the channels past the range left out
  EXPECT_EQ(channel_pfm_name(quad, 0, 2), "tad_d-1.pfm");
  PassLayout plane;
  plane.name = "arms x.left";  // crossrt/cuda's stage names hold spaces
  plane.channels = 2;
  EXPECT_EQ(slice_png_name(plane, 0, 2), "arms_x.left.png");
  EXPECT_EQ(channel_pfm_name(plane, 0, 1), "arms_x.left_c1.pfm");
}

TEST(DumpPasses, RefusesWithoutLeavingAnything) {
  const fs::path root = test::fresh_test_dir("stereo_passes_");
  const Pair pair = make_pair();
  // No kept passes.
  auto plain = create_matcher("salap", "cpu", Overrides{});
  (void)plain->compute(pair.left, pair.right, PASSES_RANGE);
  try {
    (void)dump_passes(*plain, root / "a");
    ADD_FAILURE() << "dumped without kept passes";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
  // A folder that holds something, a missing parent.
  auto m = kept_cpu_run(pair);
  fs::create_directories(root / "full");
  std::ofstream(root / "full" / "mine.txt") << "keep me";
  EXPECT_THROW((void)dump_passes(*m, root / "full"), Error);
  EXPECT_EQ(files_in(root / "full"), std::set<std::string>{"mine.txt"});
  EXPECT_THROW((void)dump_passes(*m, root / "missing" / "dump"), Error);
  EXPECT_EQ(files_in(root), (std::set<std::string>{"full"}));  // no temporary folder left
  // An empty folder is taken.
  fs::create_directories(root / "empty");
  EXPECT_NO_THROW((void)dump_passes(*m, root / "empty"));
  EXPECT_TRUE(fs::exists(root / "empty" / "passes.json"));
  fs::remove_all(root);
}

// Matcher's own keep_passes: a backend that shows nothing refuses, naming itself.
TEST(DumpPasses, BackendsWithoutInspectorRefuse) {
  struct Bare final : Matcher {
    [[nodiscard]] nlohmann::json params() const override { return nlohmann::json::object(); }
    [[nodiscard]] std::string component() const override { return "bare/none"; }
    [[nodiscard]] std::string device() const override { return "nothing"; }
    StereoResult match(const ImageU8& left, const ImageU8& /*right*/, DisparityRange /*range*/) override {
      return StereoResult{ImageF(left.width, left.height, 1), {}, std::nullopt};
    }
  } m;
  try {
    m.keep_passes(true);
    ADD_FAILURE() << "bare/none kept passes";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("bare/none"), std::string::npos) << e.what();
  }
  EXPECT_EQ(m.inspector(), nullptr);
}

std::uintmax_t bytes_in(const fs::path& dir) {
  std::uintmax_t bytes = 0;
  for (const auto& e : fs::directory_iterator(dir)) bytes += fs::file_size(e.path());
  return bytes;
}

// The size announced before the first write is what lands on disk, file for file and byte for
// byte, with and without a stage filter.
TEST(DumpPasses, AnnouncesWhatItWrites) {
  const fs::path root = test::fresh_test_dir("stereo_passes_size_");
  const Pair pair = make_pair();
  auto m = kept_cpu_run(pair);
  for (const std::vector<std::string>& stages :
       {std::vector<std::string>{}, std::vector<std::string>{"vertical"}, std::vector<std::string>{"t?d", "select"}}) {
    const fs::path dir = root / ("dump" + std::to_string(stages.size()));
    std::optional<PassDumpSize> announced;
    PassDumpOptions options;
    options.range = PASSES_RANGE;
    options.stages = stages;
    options.announce = [&](const PassDumpSize& size) {
      EXPECT_FALSE(fs::exists(dir)) << "announced after writing";
      announced = size;
    };
    const PassDump dump = dump_passes(*m, dir, options);
    ASSERT_TRUE(announced.has_value());
    EXPECT_EQ(announced->passes_kept, 9);
    EXPECT_EQ(announced->passes, dump.passes);
    EXPECT_EQ(announced->files, files_in(dir).size());
    EXPECT_EQ(announced->files, dump.files.size());
    EXPECT_EQ(announced->bytes, bytes_in(dir));
    EXPECT_EQ(dump.bytes, announced->bytes);
  }
  fs::remove_all(root);
}

// A stage filter writes the passes whose name or stage (up to the first '.') it matches, and
// refuses a pattern that matches none, naming the passes there are.
TEST(DumpPasses, StageFilter) {
  EXPECT_TRUE(pass_selected("SD.left", {"SD"}));
  EXPECT_TRUE(pass_selected("arms x.right", {"arms ?.*"}));
  EXPECT_TRUE(pass_selected("vertical.c2", {"*.c[0-3]"}));
  EXPECT_FALSE(pass_selected("vertical.c2", {"vert"}));
  EXPECT_FALSE(pass_selected("tad", {"select", "window*"}));
  EXPECT_TRUE(pass_selected("tad", {}));

  const fs::path root = test::fresh_test_dir("stereo_passes_filter_");
  const Pair pair = make_pair();
  auto m = kept_cpu_run(pair);
  PassDumpOptions options;
  options.range = PASSES_RANGE;
  options.stages = {"horizontal", "select"};
  const PassDump dump = dump_passes(*m, root / "some", options);
  EXPECT_EQ(dump.passes, 3);
  std::ifstream in(root / "some" / "passes.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["passes"].size(), 3u);
  EXPECT_EQ(j["passes"][0]["name"], "horizontal.c_left");
  EXPECT_EQ(j["passes"][1]["name"], "horizontal.c_right");
  EXPECT_EQ(j["passes"][2]["name"], "select");
  // 2 per-level passes x 5 levels x (PNG + PFM), the select plane's two, passes.json.
  EXPECT_EQ(files_in(root / "some").size(), 2u * 5u * 2u + 2u + 1u);

  options.stages = {"select", "aggregate_h"};
  try {
    (void)dump_passes(*m, root / "none", options);
    ADD_FAILURE() << "a pattern that matches nothing was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("aggregate_h"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("window_cost"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(root / "none"));
  fs::remove_all(root);
}

TEST(PassesCommand, WritesTheDumpAndFailsInOneLine) {
  const fs::path dir = test::fresh_test_dir("stereo_passes_cli_");
  const Pair pair = make_pair();
  write_png(dir / "l.png", pair.left);
  write_png(dir / "r.png", pair.right);
  const std::string images = (dir / "l.png").string() + " " + (dir / "r.png").string();
  const test::CliOutcome ok = test::run_stereo(dir, "passes " + images + " -m salap -d 4 --out " + (dir / "dump").string());
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(fs::exists(dir / "dump" / "tad_d3-3.png"));
  EXPECT_TRUE(fs::exists(dir / "dump" / "passes.json"));
  // The size first, then the files; a stage filter keeps the dump to its passes.
  EXPECT_NE(ok.out.find("passes: writing 9 of 9 passes, "), std::string::npos) << ok.out;
  const test::CliOutcome some = test::run_stereo(
      dir, "passes " + images + " -m salap -d 4 --stage window_cost --stage 'tad' --out " + (dir / "some").string());
  ASSERT_EQ(some.code, 0) << some.err;
  EXPECT_NE(some.out.find("passes: writing 2 of 9 passes, 17 files, "), std::string::npos) << some.out;
  EXPECT_EQ(files_in(dir / "some").size(), 17u);
  const test::CliOutcome again = test::run_stereo(dir, "passes " + images + " -m salap -d 4 --out " + (dir / "dump").string());
  EXPECT_NE(again.code, 0);
  EXPECT_NE(again.err.find("not empty"), std::string::npos) << again.err;
  EXPECT_EQ(std::count(again.err.begin(), again.err.end(), '\n'), 1) << again.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stereo
