// What ESAW's model header (methods/esaw/model.h) holds for both backends, against the paper
// (Yu et al., TCSVT 2010, eq. 5-6 with the weight "computed as in [17]", Yoon and Kweon) and the
// colour standards its lab readings follow (IEC 61966-2-1's sRGB, CIE 1976 L*a*b*).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/error.h"
#include "methods/esaw/model.h"

namespace stereo {
namespace {

TEST(EsawModel, WeightFactorsAreTheExponentialsOfEq5) {
  // A side sample's weight exp(-Delta_c / gamma_c) exp(-s / gamma_p), each factor in float.
  EXPECT_EQ(esaw::colour_factor(0.0f, 17.0f), 1.0f);
  EXPECT_EQ(esaw::colour_factor(17.0f, 17.0f), std::exp(-1.0f));
  EXPECT_EQ(esaw::spatial_factor(36, 36.0f), std::exp(-1.0f));
  // Farther colours and longer steps weigh less.
  EXPECT_LT(esaw::colour_factor(10.0f, 17.0f), esaw::colour_factor(9.0f, 17.0f));
  EXPECT_LT(esaw::spatial_factor(13, 36.0f), esaw::spatial_factor(7, 36.0f));
}

TEST(EsawModel, Lab8DistanceIsTheRootOfTheExactSquaredDistance) {
  EXPECT_EQ(esaw::lab8_distance(0), 0.0f);
  EXPECT_EQ(esaw::lab8_distance(25), 5.0f);
  EXPECT_EQ(esaw::lab8_distance(3 * 255 * 255), std::sqrt(195075.0f));  // black against the far corner
  EXPECT_EQ(esaw::LAB8_SQUARED_DISTANCES, 3 * 255 * 255 + 1);
  EXPECT_THROW((void)esaw::lab8_distance(-1), Error);
  EXPECT_THROW((void)esaw::lab8_distance(esaw::LAB8_SQUARED_DISTANCES), Error);
}

TEST(EsawModel, SrgbCurveHasItsTwoPieces) {
  // IEC 61966-2-1: linear up to code 10 (0.04045 x 255 = 10.3), the 2.4 power above.
  EXPECT_EQ(esaw::srgb_to_linear(0), 0.0);
  EXPECT_EQ(esaw::srgb_to_linear(255), 1.0);
  EXPECT_NEAR(esaw::srgb_to_linear(10), 10.0 / 255.0 / 12.92, 1e-15);
  EXPECT_NEAR(esaw::srgb_to_linear(128), 0.21586050011389926, 1e-15);
  for (int v = 1; v < 256; ++v)
    EXPECT_GT(esaw::srgb_to_linear(std::uint8_t(v)), esaw::srgb_to_linear(std::uint8_t(v - 1))) << v;
}

TEST(EsawModel, SrgbMatrixMapsWhiteToD65) {
  // The Y row sums to 1 (white has luminance 1); X and Z of white are the D65 white point
  // (0.9505, 1, 1.089), which the L*a*b* of a grey divides out to a* = b* = 0.
  EXPECT_NEAR(esaw::SRGB_YR + esaw::SRGB_YG + esaw::SRGB_YB, 1.0, 1e-12);
  EXPECT_NEAR(esaw::WHITE_X, 0.9505, 1e-12);
  EXPECT_NEAR(esaw::WHITE_Z, 1.089, 1e-12);
  EXPECT_EQ(esaw::WHITE_X, 0.4124 + 0.3576 + 0.1805) << "summed left to right, as both backends once wrote it";
  // CIE 1976: f(t) leaves the cube root at (6/29)^3 = 216/24389.
  EXPECT_NEAR(esaw::LAB_DELTA * esaw::LAB_DELTA * esaw::LAB_DELTA, 216.0 / 24389.0, 1e-15);
}

}  // namespace
}  // namespace stereo
