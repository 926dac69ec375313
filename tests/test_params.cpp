#include <gtest/gtest.h>

#include "host/params.h"
#include "host/methods/salap.h"

using namespace stereo;

TEST(Params, DefaultsFollowThePaper) {
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

TEST(Params, OverridesApplyInOrder) {
  SalapParams p;
  bind_params("salap/test", {{"gamma", "7.5"}, {"windows", "4"}, {"gamma", "6"}}, p);
  EXPECT_FLOAT_EQ(p.gamma, 6.0f);
  EXPECT_EQ(p.windows, "4");
}

TEST(Params, UnknownKeysAndBadValuesAreRejectedWithTheirNames) {
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

TEST(Params, ValidateRejectsImpossibleWindows) {
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
