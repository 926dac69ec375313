#pragma once
// Counts the device-to-host copies the process makes through the CUDA runtime (the interposer of
// tests/view/d2h_counter.cpp, CUDA builds only), so that a test can check that a map never
// reaches the host on the CUDA-GL interop path.

#include <cstddef>

namespace stereo::view::test {

/// Starts counting afresh the copies to host memory of at least `min_bytes`.
void reset_d2h(std::size_t min_bytes);
/// Such copies since reset_d2h().
std::size_t d2h_copies();

}  // namespace stereo::view::test
