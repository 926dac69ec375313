#pragma once
// Counts the device-to-host copies the process makes through the CUDA runtime (the interposer of
// tests/view/d2h_counter.cpp, CUDA builds only), so that a test can check that a map never
// reaches the host on the CUDA-GL interop path.

#include <cstddef>

namespace stereo::view::test {

/// Starts counting afresh the bytes copied to host memory.
void reset_d2h();
/// The bytes copied to host memory since reset_d2h(), summed over every copy: a map read back
/// in bands (salap/cuda's lanes) counts as much as one read back whole.
std::size_t d2h_bytes();

}  // namespace stereo::view::test
