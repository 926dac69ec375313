// Every CUDA backend in the registry on a problem whose volume exceeds any GPU's memory: it
// either runs (a backend that holds no volume) or refuses before allocating, with one line
// that names the size and the memory it needs. The registry is iterated, so CUDA backends
// registered later are covered.

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/matcher.h"
#include "tests/test_cuda_util.h"
#include "methods/builtin.h"

using namespace stereo;

TEST(CudaHostile, AVolumeBeyondGpuMemoryNamesTheSizeAndTheMemory) {
  STEREO_REQUIRE_CUDA();
  // 16384 x 8192 pixels x 1024 levels (AD-Census's most on CUDA): 137 G cost cells, 275 GB
  // even at 2 bytes a cell, beyond an H200's 141 GB.
  const int width = 16384, height = 8192, levels = 1024;
  const ImageU8 left = cuda_test::random_u8(width, height, 3, 1);
  const ImageU8 right = cuda_test::random_u8(width, height, 3, 2);
  int tried = 0;
  for (const BackendEntry& e : builtin_registry().entries()) {
    if (e.backend != "cuda") continue;
    SCOPED_TRACE(e.method + "/cuda");
    ++tried;
    auto m = create_matcher(e.method, e.backend, {});
    try {
      const ImageF d = m->compute(left, right, {0, levels}).disparity;
      EXPECT_TRUE(d.same_size(width, height));
      std::cout << "[ cuda     ] " << e.method << "/cuda ran " << width << "x" << height << " x " << levels
                << " (holds no volume of that size)\n";
    } catch (const Error& ex) {
      const std::string msg = ex.what();
      std::cout << "[ cuda     ] " << e.method << "/cuda refused: " << msg << "\n";
      EXPECT_NE(msg.find("16384x8192"), std::string::npos) << msg;
      EXPECT_NE(msg.find("MiB"), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      // The matcher stays usable after the refusal.
      const ImageU8 small_l = cuda_test::random_u8(64, 16, 3, 3);
      EXPECT_TRUE(m->compute(small_l, small_l, {0, 8}).disparity.same_size(64, 16));
    }
  }
  EXPECT_GT(tried, 0);
}
