#pragma once
// Shared by the CUDA test files: the device check, random images, relative L2 error.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cuda/common.h"
#include "core/image.h"
#include "core/registry.h"
#include "methods/builtin.h"

/// Every CUDA test starts with this: no device means skip, with the runtime's reason.
#define STEREO_REQUIRE_CUDA()                                                       \
  do {                                                                              \
    if (const auto why = ::stereo::cu::device_unavailable())                        \
      GTEST_SKIP() << *why << " (CUDA tests run on the GPU machine)";               \
  } while (0)

namespace stereo::cuda_test {

/// The methods that register a cuda backend, in the registry's order (what the tests that run
/// every CUDA method take as their parameters).
inline std::vector<std::string> cuda_methods() {
  std::vector<std::string> out;
  for (const BackendEntry& e : builtin_registry().entries())
    if (e.backend == "cuda") out.push_back(e.method);
  return out;
}

/// Uniform random 8-bit image (i.i.d. pixels): every window is distinct, so matching is sharp.
inline ImageU8 random_u8(int width, int height, int channels, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(0, 255);
  ImageU8 img(width, height, channels);
  for (auto& v : img.data) v = static_cast<std::uint8_t>(u(rng));
  return img;
}

/// Uniform random float image in [0, 1].
inline ImageF random_f(int width, int height, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  ImageF img(width, height, 1);
  for (auto& v : img.data) v = u(rng);
  return img;
}

/// ||a - b|| / ||b|| (absolute L2 when b is all zero).
inline double relative_l2(const ImageF& a, const ImageF& b) {
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < a.data.size() && i < b.data.size(); ++i) {
    const double d = double(a.data[i]) - double(b.data[i]);
    num += d * d;
    den += double(b.data[i]) * double(b.data[i]);
  }
  return den > 0.0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// Pixels whose values differ (exact float comparison; +inf equals +inf). -1 for a size mismatch.
inline long count_differences(const ImageF& a, const ImageF& b) {
  if (a.width != b.width || a.height != b.height || a.data.size() != b.data.size()) return -1;
  long n = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) n += a.data[i] != b.data[i] ? 1 : 0;
  return n;
}

/// Sets (or, with nullptr, unsets) an environment variable for a scope and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { old_ ? setenv(name_.c_str(), old_->c_str(), 1) : unsetenv(name_.c_str()); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

/// Injects device_alloc failures after `n` allocations for a scope; always turns them off
/// again, so a failed assertion cannot leave later tests allocating nothing.
class ScopedAllocationFailure {
 public:
  explicit ScopedAllocationFailure(long n) { cu::testing::fail_allocations_after(n); }
  ~ScopedAllocationFailure() { cu::testing::fail_allocations_after(-1); }
  ScopedAllocationFailure(const ScopedAllocationFailure&) = delete;
  ScopedAllocationFailure& operator=(const ScopedAllocationFailure&) = delete;
};

inline bool all_finite(const ImageF& img) {
  for (float v : img.data)
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace stereo::cuda_test
