// The parameter binder (core/params.h) on a test-only Params struct, and the registry
// (core/registry.h): what every method's parameters and registration go through.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "methods/builtin.h"

using namespace stereo;

namespace {

// A stand-in for a method's Params: one field of each kind the binder knows.
struct Knobs {
  float gamma = 5.0f;
  int window = 33;
  bool subpixel = true;
  std::string cost = "rgb_mean";

  template <class B>
  void describe(B& b) {
    b.field("gamma", gamma, "fall-off");
    b.field("window", window, "window side");
    b.field("subpixel", subpixel, "sub-pixel step");
    b.choice("cost", cost, {"rgb_mean", "luma"}, "cost input");
  }
};

}  // namespace

TEST(Params, DefaultsAreTheStructs) {
  Knobs k;
  const auto j = bind_params("stand-in/test", {}, k);
  EXPECT_FLOAT_EQ(j["gamma"].get<float>(), 5.0f);
  EXPECT_EQ(j["window"].get<int>(), 33);
  EXPECT_EQ(j["subpixel"].get<bool>(), true);
  EXPECT_EQ(j["cost"].get<std::string>(), "rgb_mean");
}

TEST(Params, OverridesApplyInOrder) {
  Knobs k;
  bind_params("stand-in/test", {{"gamma", "7.5"}, {"cost", "luma"}, {"gamma", "6"}}, k);
  EXPECT_FLOAT_EQ(k.gamma, 6.0f);
  EXPECT_EQ(k.cost, "luma");
}

TEST(Params, UnknownKeysAndBadValuesAreRejectedWithTheirNames) {
  Knobs k;
  try {
    bind_params("stand-in/test", {{"gama", "5"}}, k);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gama"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("gamma"), std::string::npos);  // lists the known keys
    EXPECT_NE(std::string(e.what()).find("stand-in/test"), std::string::npos) << e.what();
  }
  EXPECT_THROW(bind_params("stand-in/test", {{"window", "33.5"}}, k), Error);
  EXPECT_THROW(bind_params("stand-in/test", {{"gamma", "abc"}}, k), Error);
  EXPECT_THROW(bind_params("stand-in/test", {{"cost", "census"}}, k), Error);
  EXPECT_THROW(parse_override("novalue"), Error);
  EXPECT_EQ(parse_override("a=b=c").second, "b=c");
}

// ---- the registry ------------------------------------------------------------------------

TEST(Registry, EveryBuiltinBackendHasItsMethodInfo) {
  const Registry& r = builtin_registry();
  ASSERT_FALSE(r.entries().empty());
  std::set<std::string> with_backend;
  for (const BackendEntry& e : r.entries()) {
    EXPECT_EQ(r.method(e.method).name, e.method);
    with_backend.insert(e.method);
  }
  for (const MethodInfo& m : r.methods()) EXPECT_TRUE(with_backend.count(m.name)) << m.name;
  try {
    (void)r.method("nosuch");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nosuch"), std::string::npos);
    for (const MethodInfo& m : r.methods())  // names the known methods
      EXPECT_NE(std::string(e.what()).find(m.name), std::string::npos) << e.what();
  }
}

TEST(Registry, RefusesTwoRegistrations) {
  MethodInfo info;
  info.name = "stand-in";
  BackendEntry entry;
  entry.method = "stand-in";
  entry.backend = "cpu";
  Registry r;
  r.add_method(info);
  EXPECT_THROW(r.add_method(info), Error);
  r.add(entry);
  EXPECT_THROW(r.add(entry), Error);
  EXPECT_EQ(r.backends("stand-in"), std::vector<std::string>{"cpu"});
}
