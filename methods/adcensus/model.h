#pragma once
/// \file methods/adcensus/model.h
/// What Mei et al.'s AD-Census fixes beyond its parameters, held once: the census window
/// (Sec. 2.1: the reference's census_transform and census.cu read it), the order of the cross
/// arms (Sec. 2.2: the reference's CrossArms channels; the GPU's uchar4 stores the same order as
/// x, y, z, w), the penalty divisors of the scanline optimisation (Sec. 2.3: both backends), and
/// the outlier labels and interpolation directions of the refinement (Sec. 2.4: both backends).
/// Both backends include this header and neither includes the other; only the tests see both
/// (methods/adcensus/tests/test_adcensus_model.cpp checks it against the paper).
///
/// No formula of the costs lives here: the cost of eq. 1-3 is computed twice, in double with
/// std::exp by the reference (reference/adcensus.cpp, ad_census_cost) and in float with __expf
/// and precomputed reciprocals by the kernels (cuda/cost_device.cuh, ad_census_cost_at), because a
/// reference that shared the kernel's formula could not catch a mistake in it. The map from each
/// equation to the two functions is docs/methods/adcensus.md, "Where each equation lives".

#include <cstdint>

namespace stereo::adcensus {

/// The census window of Sec. 2.1, 9 wide and 7 high around p: 62 bits (the window less the
/// centre) of the paper's "64-bit string", bit i for neighbour i in row-major order.
inline constexpr int CENSUS_HALF_WIDTH = 4;
inline constexpr int CENSUS_HALF_HEIGHT = 3;
inline constexpr int CENSUS_BITS = (2 * CENSUS_HALF_WIDTH + 1) * (2 * CENSUS_HALF_HEIGHT + 1) - 1;

/// The four arms of a pixel's cross (Sec. 2.2) in the order both backends store them: the
/// channels of the reference's CrossArms, the x, y, z, w bytes of the GPU's uchar4.
enum Arm : int { ARM_LEFT = 0, ARM_RIGHT = 1, ARM_UP = 2, ARM_DOWN = 3 };

/// Sec. 2.3: P1 = Pi1 / divisor and P2 = Pi2 / divisor, by the number of colour edges (D1 and
/// D2 >= tau_SO) between p and its predecessor on the path: none 1, one 4, both 10. (The paper's
/// case 4 prints P2 = Pi1 / 10; we read Pi2 / 10, the pattern of cases 1-3.)
constexpr float penalty_divisor(int edges) { return edges == 0 ? 1.0f : (edges == 1 ? 4.0f : 10.0f); }

/// Per-pixel label of the LR check (Sec. 2.4), one byte in both backends' outlier maps.
enum class OutlierKind : std::uint8_t {
  reliable = 0,   ///< D_L(p) == D_R(p - D_L(p)), or filled by voting / interpolation
  occlusion = 1,  ///< no disparity d of the range has D_R(p - d) == d (Hirschmueller's rule)
  mismatch = 2,   ///< some other d has D_R(p - d) == d: the epipolar line meets D_R
};

/// The 16 directions of proper interpolation (Sec. 2.4) as (dx, dy) with max(|dx|, |dy|) = 2,
/// counter-clockwise from +x; step k of a direction visits p + (k*dx/2, k*dy/2) (C++ integer
/// division, truncating toward zero), so every direction visits one new column or row per step.
/// On a tie the earlier direction wins, so the order is part of the method.
inline constexpr int INTERPOLATION_DIRECTION_COUNT = 16;
inline constexpr int INTERPOLATION_DIRECTIONS[INTERPOLATION_DIRECTION_COUNT][2] = {
    {2, 0},  {2, -1}, {2, -2}, {1, -2}, {0, -2}, {-1, -2}, {-2, -2}, {-2, -1},
    {-2, 0}, {-2, 1}, {-2, 2}, {-1, 2}, {0, 2},  {1, 2},   {2, 2},   {2, 1},
};

}  // namespace stereo::adcensus
