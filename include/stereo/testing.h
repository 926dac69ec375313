#pragma once
/// \file include/stereo/testing.h
/// Hooks for tests of the library (the suite's own, the Python module's): counts that prove
/// what a call did not do. Not for programs; their values mean nothing outside a test.

#include <cstdint>
#include <optional>

namespace stereo::testing {

/// The image copies the CUDA backends have issued in this process, by direction.
struct ImageCopies {
  std::uint64_t host_to_device = 0;
  std::uint64_t device_to_device = 0;
};

/// The counts so far, read before and after a call on device views to prove that no image
/// went from host to device; empty in a build without the CUDA backends.
std::optional<ImageCopies> image_copies();

}  // namespace stereo::testing
