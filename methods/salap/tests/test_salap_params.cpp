// SA-LAP's Params bound to overrides (defaults the paper's, bad values rejected by name) and
// its MethodInfo: the paper's tables as the registry holds them.

#include <gtest/gtest.h>

#include <string>

#include "core/params.h"
#include "core/registry.h"
#include "methods/salap/params.h"
#include "methods/salap/register.h"

using namespace stereo;

TEST(SalapParams, DefaultsFollowThePaper) {
  SalapParams p;
  const auto j = bind_params("salap/test", {}, p);
  EXPECT_FLOAT_EQ(j["gamma"].get<float>(), 5.0f);
  EXPECT_EQ(j["window"].get<int>(), 33);
  EXPECT_FLOAT_EQ(j["tau"].get<float>(), 20.0f);
  EXPECT_FLOAT_EQ(j["alpha"].get<float>(), 0.02f);
  EXPECT_FLOAT_EQ(j["beta"].get<float>(), 0.04f);
  EXPECT_EQ(j["windows"].get<std::string>(), "9");
  EXPECT_EQ(p.radius(), 16);
}

TEST(SalapParams, OverridesApplyInOrder) {
  SalapParams p;
  bind_params("salap/test", {{"gamma", "7.5"}, {"windows", "4"}, {"gamma", "6"}}, p);
  EXPECT_FLOAT_EQ(p.gamma, 6.0f);
  EXPECT_EQ(p.windows, "4");
}

TEST(SalapParams, UnknownKeysAndBadValuesAreRejectedWithTheirNames) {
  SalapParams p;
  try {
    bind_params("salap/test", {{"gama", "5"}}, p);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gama"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("gamma"), std::string::npos);  // lists the known keys
  }
  EXPECT_THROW(bind_params("salap/test", {{"window", "33.5"}}, p), Error);
  EXPECT_THROW(bind_params("salap/test", {{"tau", "abc"}}, p), Error);
  EXPECT_THROW(bind_params("salap/test", {{"cost", "census"}}, p), Error);
  EXPECT_THROW(parse_override("novalue"), Error);
  EXPECT_EQ(parse_override("a=b=c").second, "b=c");
}

TEST(SalapParams, ValidateRejectsImpossibleWindows) {
  SalapParams p;
  p.window = 32;
  EXPECT_THROW(p.validate("salap"), Error);
  p.window = 31;  // W = 15 is odd: no W/2 bilinear pairs
  EXPECT_THROW(p.validate("salap"), Error);
  p.window = 9;
  EXPECT_NO_THROW(p.validate("salap"));
  p.gamma = 0.0f;
  EXPECT_THROW(p.validate("salap"), Error);
}

// ---- SA-LAP's MethodInfo: the paper's tables as the registry holds them -------------------

TEST(SalapMethodInfo, PaperAccuracyPicksTheRowForTheParameters) {
  const MethodInfo info = salap_method_info();
  EXPECT_EQ(info.name, "salap");
  EXPECT_NE(info.citation.find("ICIP 2007"), std::string::npos);
  EXPECT_DOUBLE_EQ(info.accuracy_threshold, 1.0);
  SalapParams p;
  const auto defaults = bind_params("salap/test", {}, p);
  const auto tsukuba = info.paper_accuracy("Tsukuba", defaults);  // scene names compare in lower case
  ASSERT_TRUE(tsukuba);
  EXPECT_DOUBLE_EQ(*tsukuba->nonocc, 3.95);
  EXPECT_DOUBLE_EQ(*tsukuba->disc, 14.42);
  EXPECT_FALSE(tsukuba->all) << "Table 1 has no 'all' column";
  const auto venus = info.paper_accuracy("venus", defaults);
  ASSERT_TRUE(venus);
  EXPECT_DOUBLE_EQ(*venus->nonocc, 5.04);
  EXPECT_DOUBLE_EQ(*venus->disc, 10.12);

  SalapParams q;
  const auto four = bind_params("salap/test", {{"windows", "4"}}, q);
  EXPECT_DOUBLE_EQ(*info.paper_accuracy("tsukuba", four)->nonocc, 7.63);
  EXPECT_DOUBLE_EQ(*info.paper_accuracy("tsukuba", four)->disc, 14.30);
  EXPECT_DOUBLE_EQ(*info.paper_accuracy("venus", four)->nonocc, 9.04);
  EXPECT_DOUBLE_EQ(*info.paper_accuracy("venus", four)->disc, 9.20);
  EXPECT_FALSE(info.paper_accuracy("teddy", defaults)) << "Table 1 predates Teddy and Cones";
}

TEST(SalapMethodInfo, SpeedSettingsAreTable2PlusTheSuitesFullHd) {
  const MethodInfo info = salap_method_info();
  EXPECT_NE(info.paper_gpu.find("GeForce 7900"), std::string::npos);
  ASSERT_EQ(info.speed.size(), 10u);
  int paper_rows = 0;
  for (const PaperSpeed& s : info.speed) {
    if (s.width == 1920) {
      EXPECT_EQ(s.height, 1080);
      EXPECT_TRUE(s.levels == 128 || s.levels == 256);
      EXPECT_FALSE(s.ms || s.mdes);
      EXPECT_EQ(s.note, "suite setting, not in the paper");
      continue;
    }
    ++paper_rows;
    EXPECT_TRUE(s.width == s.height && (s.width == 512 || s.width == 256));
    ASSERT_TRUE(s.ms && s.mdes);
    // The table's Mde/s is W x H x levels over its total time: a transcription check.
    const double mdes = double(s.width) * s.height * s.levels / (*s.ms * 1e-3) / 1e6;
    EXPECT_NEAR(mdes, *s.mdes, 0.005 * *s.mdes) << s.width << " at " << s.levels;
  }
  EXPECT_EQ(paper_rows, 8);
}

TEST(SalapMethodInfo, ParameterTableListsEveryKey) {
  const std::string table = salap_method_info().describe_params();
  SalapParams p;
  const auto keys = bind_params("salap/test", {}, p);
  for (const auto& [key, value] : keys.items())
    EXPECT_NE(table.find("  " + key + " = "), std::string::npos) << key << " missing from\n" << table;
  EXPECT_NE(table.find("gamma = 5.0"), std::string::npos) << table;
}
