// salap's gl entry in the registry: its summary, its backend's own knobs (never the paper's
// parameters), and a matcher that binds them. Skips, saying why, without an OpenGL 4.5 context.

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/matcher.h"
#include "core/registry.h"
#include "methods/salap/register.h"

namespace stereo {
namespace {

TEST(GlRegistry, SalapGlEntry) {
  Registry registry;
  register_salap_gl(registry);
  const BackendEntry& entry = registry.find("salap", "gl");
  EXPECT_FALSE(entry.summary.empty());
  // The backend's knobs and the shell's, never the paper's parameters.
  ASSERT_TRUE(entry.describe_options);
  const std::string options = entry.describe_options();
  for (const char* key : {"gl_format =", "gl_taps =", "gl_depth =", "gl_upload ="})
    EXPECT_NE(options.find(key), std::string::npos) << key << " missing from:\n" << options;
  EXPECT_EQ(options.find("window ="), std::string::npos) << options;
  const auto reason = entry.unavailable();
  if (reason) {
    EXPECT_EQ(reason->rfind("no OpenGL 4.5 context: ", 0), 0u) << *reason;
    GTEST_SKIP() << *reason;
  }
  auto matcher = entry.create({{"gl_format", "rgba16f"}});
  EXPECT_EQ(matcher->params().at("gl_format"), "rgba16f");
  EXPECT_EQ(matcher->params().at("window"), 33);
  EXPECT_FALSE(matcher->device().empty());
  EXPECT_THROW(entry.create({{"gl_format", "rgb565"}}), Error);
  EXPECT_THROW(entry.create({{"window", "31"}}), Error) << "W = 15 is odd";
}

}  // namespace
}  // namespace stereo
