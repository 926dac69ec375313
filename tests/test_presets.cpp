// Presets: named parameter sets that are not the paper's. `--set preset=NAME` expands in place
// in Registry::create (later --set keys win), an unknown name is one error naming the method's
// presets, `params` lists them, and every result on one carries its note.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "app/dataset.h"
#include "app/image_io.h"
#include "app/listing.h"
#include "core/error.h"
#include "core/params.h"
#include "core/registry.h"
#include "methods/builtin.h"
#include "tests/cli_util.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using namespace stereo;

namespace {

/// A toy method's parameters, bound as a backend binds a Params struct.
struct ToyParams {
  int radius = 3;
  int tile = 16;
  template <class B>
  void describe(B& b) {
    b.field("radius", radius, "Sec. 2: 3");
    b.field("tile", tile, "a knob: 16");
  }
};

MethodInfo toy_info() {
  MethodInfo info;
  info.name = "toy";
  info.title = "a toy method";
  info.citation = "nobody, 2026";
  info.describe_params = [] { return describe_defaults<ToyParams>("toy"); };
  info.presets = {{"small", {{"radius", "1"}, {"tile", "8"}}, "chosen on nothing; not the paper's"},
                  {"wide", {{"radius", "9"}}, "not the paper's either"}};
  return info;
}

/// A registry of the toy method whose backend records the overrides it was created with and
/// the values they bound.
struct ToyRegistry {
  Registry registry;
  Overrides received;
  nlohmann::json bound;

  ToyRegistry() {
    registry.add_method(toy_info());
    registry.add({"toy", "cpu", "host", {}, [this](const Overrides& o) {
                    received = o;
                    ToyParams p;
                    bound = bind_params("toy/cpu", o, p);
                    return std::unique_ptr<Matcher>();
                  }});
  }
};

using test::error_of;

}  // namespace

TEST(Presets, ExpandInPlaceSoLaterSetsWin) {
  ToyRegistry toy;
  (void)toy.registry.create("toy", "cpu", {{"tile", "32"}, {"preset", "small"}, {"radius", "2"}});
  const Overrides expected = {{"tile", "32"}, {"radius", "1"}, {"tile", "8"}, {"radius", "2"}};
  EXPECT_EQ(toy.received, expected);
  EXPECT_EQ(toy.bound["radius"], 2);  // the --set after the preset
  EXPECT_EQ(toy.bound["tile"], 8);    // the preset's, over the --set before it

  (void)toy.registry.create("toy", "cpu", {{"radius", "5"}});
  EXPECT_EQ(toy.received, (Overrides{{"radius", "5"}})) << "no preset: the overrides as given";
}

TEST(Presets, UnknownNameIsOneErrorNamingTheMethodsPresets) {
  ToyRegistry toy;
  const std::string unknown = error_of([&] { (void)toy.registry.create("toy", "cpu", {{"preset", "fast"}}); });
  EXPECT_NE(unknown.find("toy: unknown preset 'fast'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("small, wide"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find('\n'), std::string::npos) << unknown;

  const std::string twice =
      error_of([&] { (void)toy.registry.create("toy", "cpu", {{"preset", "small"}, {"preset", "wide"}}); });
  EXPECT_NE(twice.find("one preset per run"), std::string::npos) << twice;

  MethodInfo none = toy_info();
  none.presets.clear();
  const std::string without = error_of([&] { (void)none.expand_presets({{"preset", "small"}}); });
  EXPECT_NE(without.find("toy has none"), std::string::npos) << without;
}

TEST(Presets, PresetNamedFindsTheOneTheOverridesName) {
  const MethodInfo info = toy_info();
  EXPECT_FALSE(info.preset_named({{"radius", "4"}}).has_value());
  const auto wide = info.preset_named({{"radius", "4"}, {"preset", "wide"}});
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->name, "wide");
  EXPECT_EQ(wide->note, "not the paper's either");
}

TEST(Presets, ParamsListsEachPresetWithItsOverridesAndNote) {
  ToyRegistry toy;
  const std::string text = cli::params_text(toy.registry, "toy");
  const std::size_t radius = text.find("radius = 3");
  const std::size_t small = text.find("  small: radius=1 tile=8\n    chosen on nothing; not the paper's\n");
  const std::size_t backend = text.find("toy/cpu options");
  ASSERT_NE(small, std::string::npos) << text;
  EXPECT_NE(text.find("  wide: radius=9\n"), std::string::npos) << text;
  EXPECT_LT(radius, small);
  EXPECT_LT(small, backend);

  const nlohmann::json j = cli::params_json(toy.registry, "toy");
  ASSERT_EQ(j["presets"].size(), 2u);
  EXPECT_EQ(j["presets"][0],
            (nlohmann::json{{"name", "small"}, {"note", "chosen on nothing; not the paper's"},
                            {"overrides", {"radius=1", "tile=8"}}}));

  // A method without presets says nothing of them.
  Registry plain;
  MethodInfo info = toy_info();
  info.presets.clear();
  plain.add_method(info);
  plain.add({"toy", "cpu", "host", {}, {}});
  EXPECT_EQ(cli::params_text(plain, "toy").find("presets"), std::string::npos);
  EXPECT_TRUE(cli::params_json(plain, "toy")["presets"].empty());
}

// ---- the CLI ---------------------------------------------------------------------------

namespace {

/// A fresh folder for the test holding l.png and r.png, a textured pair 3 px apart; removed
/// when the test ends.
struct PairFolder {
  fs::path dir = test::fresh_test_dir("stereo_preset_");
  PairFolder() {
    const ImageU8 left = test::random_texture(48, 32, 5);
    write_png(dir / "l.png", left);
    write_png(dir / "r.png", test::shifted(left, 3));
  }
  ~PairFolder() { fs::remove_all(dir); }
  PairFolder(const PairFolder&) = delete;
  PairFolder& operator=(const PairFolder&) = delete;
  [[nodiscard]] test::CliOutcome stereo(const std::string& args) const { return test::run_stereo(dir, args); }
  /// "run" of the pair over 6 levels into out.pfm, with `more` arguments.
  [[nodiscard]] test::CliOutcome run(const std::string& more) const {
    return stereo("run " + (dir / "l.png").string() + " " + (dir / "r.png").string() + " -m adcensus -d 6 -o " +
                  (dir / "out.pfm").string() + " " + more);
  }
};

}  // namespace

TEST(PresetCli, ParamsListsAdCensusPreset) {
  const PairFolder f;
  const test::CliOutcome o = f.stereo("params -m adcensus");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("  middeval3: arm_l1="), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("not the paper's"), std::string::npos) << o.out;
  const auto j = nlohmann::json::parse(f.stereo("params -m adcensus --json").out);
  EXPECT_EQ(j["presets"][0]["name"], "middeval3");
}

TEST(PresetCli, RunRecordsThePresetAndALaterSetWins) {
  const PairFolder f;
  const test::CliOutcome o = f.run("--set preset=middeval3 --set arm_l1=20 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["preset"]["name"], "middeval3");
  EXPECT_NE(j["preset"]["note"].get<std::string>().find("not the paper's"), std::string::npos);
  EXPECT_EQ(j["params"]["arm_l1"], 20);  // the --set after the preset
  const ParamPreset& preset = builtin_registry().method("adcensus").presets.at(0);
  for (const auto& [key, value] : preset.overrides) {
    if (key == "arm_l1") continue;
    EXPECT_DOUBLE_EQ(j["params"][key].get<double>(), std::stod(value)) << key;
  }

  const test::CliOutcome plain = f.run("--json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_TRUE(nlohmann::json::parse(plain.out)["preset"].is_null());
}

TEST(PresetCli, BenchPrintsTheNoteUnderTheParamsAndRecordsIt) {
  const PairFolder f;
  const std::string args = "bench -m adcensus -b cpu --size 48x32 -d 6 --repeat 1 --set preset=middeval3";
  const test::CliOutcome text = f.stereo(args);
  ASSERT_EQ(text.code, 0) << text.err;
  const std::size_t params = text.out.find("\nparams: ");
  ASSERT_NE(params, std::string::npos) << text.out;
  EXPECT_EQ(text.out.find('\n', params + 1), text.out.find("\npreset middeval3: ")) << text.out;
  const test::CliOutcome j = f.stereo(args + " --json");
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["preset"]["name"], "middeval3");
}

TEST(PresetCli, UnknownPresetIsOneLineNamingThePresets) {
  const PairFolder f;
  const test::CliOutcome o = f.run("--set preset=kitti");
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("unknown preset 'kitti'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("middeval3"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(fs::exists(f.dir / "out.pfm"));
}

TEST(PresetCli, EvalPrintsTheNoteUnderTheParamsAndRecordsItInTheResult) {
  const fs::path tsukuba = data_root() / "middlebury-v2/tsukuba";
  if (!fs::exists(tsukuba)) GTEST_SKIP() << missing_data_hint("middlebury-v2/tsukuba");
  const PairFolder f;
  const test::CliOutcome o =
      f.stereo("eval " + tsukuba.string() + " -m adcensus --set preset=middeval3 --out " + (f.dir / "ev").string());
  ASSERT_EQ(o.code, 0) << o.err;
  const std::size_t params = o.out.find("\nparams: ");
  const std::size_t note = o.out.find("\npreset middeval3: ");
  ASSERT_NE(note, std::string::npos) << o.out;
  EXPECT_EQ(o.out.find('\n', params + 1), note) << "the note is the line under the params line: " << o.out;
  const auto j = nlohmann::json::parse(test::slurp(f.dir / "ev/result.json"));
  const ParamPreset& preset = builtin_registry().method("adcensus").presets.at(0);
  EXPECT_EQ(j["preset"], cli::preset_json(preset));
  EXPECT_NE(o.out.find(preset.note), std::string::npos) << o.out;
}
