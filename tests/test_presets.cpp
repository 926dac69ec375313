// Presets: named parameter sets that are not the paper's. `--set preset=NAME` expands in place
// in Registry::create (later --set keys win), an unknown name is one error naming the method's
// presets, `params` lists them, and every result on one carries its note.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>

#include "app/listing.h"
#include "core/error.h"
#include "core/params.h"
#include "core/registry.h"

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

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

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
