// Each SA-LAP stage on the GPU (methods/salap/cuda/stages.h) against its reference/ twin, on odd
// sizes, by relative L2 error: 1e-5 for TAD (float vs double of the same formula), 1e-5 for
// the direct-sum filters and eq. 3-4. Outputs are poisoned (NaN) before every launch.

#include <gtest/gtest.h>

#include <string>

#include "methods/salap/cuda/stages.h"
#include "methods/salap/reference/salap.h"
#include "tests/test_cuda_util.h"

namespace stereo {
namespace {

namespace cs = cu::salap;
namespace ref = reference;
using cuda_test::all_finite;
using cuda_test::random_f;
using cuda_test::random_u8;
using cuda_test::relative_l2;

constexpr double TAD_TOLERANCE = 1e-5;
constexpr double FILTER_TOLERANCE = 1e-5;
constexpr double WINDOW_TOLERANCE = 1e-5;

struct Size {
  int width, height;
};
constexpr Size SIZES[] = {{631, 479}, {37, 29}};

ImageF run_tad(const ImageU8& left, const ImageU8& right, int d, const SalapParams& p) {
  const cs::DevicePair pair = cs::upload_pair(left, right, p);
  cu::DeviceImage<float> out(left.width, left.height, "test", "tad");
  cu::poison(out);
  cs::tad_cost(pair, d, p, out);
  return cu::download(out);
}

TEST(CudaSalapStages, TadMatchesReference) {
  STEREO_REQUIRE_CUDA();
  for (const Size s : SIZES)
    for (const std::string cost : {"rgb_mean", "luma"})
      for (const int channels : {3, 1, 4}) {
        SalapParams p;
        p.cost = cost;
        const ImageU8 left = random_u8(s.width, s.height, channels, 11);
        const ImageU8 right = random_u8(s.width, s.height, channels, 12);
        for (const int d : {0, 7, s.width - 1}) {
          const ImageF got = run_tad(left, right, d, p);
          const ImageF want = ref::tad_cost(left, right, d, p);
          ASSERT_TRUE(all_finite(got));
          EXPECT_LE(relative_l2(got, want), TAD_TOLERANCE)
              << s.width << "x" << s.height << " cost " << cost << " channels " << channels << " d " << d;
        }
      }
}

TEST(CudaSalapStages, FiltersMatchReference) {
  STEREO_REQUIRE_CUDA();
  for (const Size s : SIZES)
    for (const int window : {33, 9, 65}) {
      SalapParams p;
      p.window = window;
      const ImageF in = random_f(s.width, s.height, 21);
      const cu::DeviceImage<float> d_in = cu::upload(in);
      cu::DeviceImage<float> out(s.width, s.height, "test", "filter");
      const std::pair<cs::Side, ref::Side> horizontal[] = {{cs::Side::left, ref::Side::left},
                                                           {cs::Side::right, ref::Side::right}};
      const std::pair<cs::Side, ref::Side> vertical[] = {{cs::Side::up, ref::Side::up},
                                                         {cs::Side::down, ref::Side::down}};
      for (const auto& [gs, rs] : horizontal) {
        cu::poison(out);
        cs::filter_horizontal(d_in, gs, p, out);
        const ImageF got = cu::download(out);
        ASSERT_TRUE(all_finite(got));
        EXPECT_LE(relative_l2(got, ref::filter_horizontal(in, rs, p)), FILTER_TOLERANCE)
            << s.width << "x" << s.height << " N " << window << " side " << int(rs);
      }
      for (const auto& [gs, rs] : vertical) {
        cu::poison(out);
        cs::filter_vertical(d_in, gs, p, out);
        const ImageF got = cu::download(out);
        ASSERT_TRUE(all_finite(got));
        EXPECT_LE(relative_l2(got, ref::filter_vertical(in, rs, p)), FILTER_TOLERANCE)
            << s.width << "x" << s.height << " N " << window << " side " << int(rs);
      }
    }
}

TEST(CudaSalapStages, WindowCostMatchesReference) {
  STEREO_REQUIRE_CUDA();
  for (const Size s : SIZES)
    for (const std::string windows : {"9", "4"}) {
      SalapParams p;
      p.windows = windows;
      const ImageF c0 = random_f(s.width, s.height, 31), c1 = random_f(s.width, s.height, 32);
      const ImageF c2 = random_f(s.width, s.height, 33), c3 = random_f(s.width, s.height, 34);
      cu::DeviceImage<float> out(s.width, s.height, "test", "window");
      cu::poison(out);
      cs::window_cost(cu::upload(c0), cu::upload(c1), cu::upload(c2), cu::upload(c3), p, out);
      const ImageF got = cu::download(out);
      ASSERT_TRUE(all_finite(got));
      EXPECT_LE(relative_l2(got, ref::window_cost(c0, c1, c2, c3, p)), WINDOW_TOLERANCE) << "windows " << windows;
    }
}

// The whole chain for one d, every intermediate checked (not just the end).
TEST(CudaSalapStages, ChainedIntermediatesMatchReference) {
  STEREO_REQUIRE_CUDA();
  const SalapParams p;
  const ImageU8 left = random_u8(631, 479, 3, 41);
  const ImageU8 right = random_u8(631, 479, 3, 42);
  const int d = 13;
  const cs::DevicePair pair = cs::upload_pair(left, right, p);
  cs::StageBuffers b(left.width, left.height);
  for (cu::DeviceImage<float>* img : {&b.tad, &b.cl, &b.cr, &b.c0, &b.c1, &b.c2, &b.c3, &b.cost}) cu::poison(*img);
  cs::tad_cost(pair, d, p, b.tad);
  cs::filter_horizontal(b.tad, cs::Side::left, p, b.cl);
  cs::filter_horizontal(b.tad, cs::Side::right, p, b.cr);
  cs::filter_vertical(b.cl, cs::Side::down, p, b.c0);
  cs::filter_vertical(b.cl, cs::Side::up, p, b.c1);
  cs::filter_vertical(b.cr, cs::Side::down, p, b.c2);
  cs::filter_vertical(b.cr, cs::Side::up, p, b.c3);
  cs::window_cost(b.c0, b.c1, b.c2, b.c3, p, b.cost);

  const ImageF tad = ref::tad_cost(left, right, d, p);
  const ImageF cl = ref::filter_horizontal(tad, ref::Side::left, p);
  const ImageF cr = ref::filter_horizontal(tad, ref::Side::right, p);
  const ImageF c0 = ref::filter_vertical(cl, ref::Side::down, p);
  const ImageF c1 = ref::filter_vertical(cl, ref::Side::up, p);
  const ImageF c2 = ref::filter_vertical(cr, ref::Side::down, p);
  const ImageF c3 = ref::filter_vertical(cr, ref::Side::up, p);
  const ImageF cost = ref::window_cost(c0, c1, c2, c3, p);
  const std::pair<const char*, std::pair<const cu::DeviceImage<float>*, const ImageF*>> checks[] = {
      {"tad", {&b.tad, &tad}}, {"C_L", {&b.cl, &cl}}, {"C_R", {&b.cr, &cr}}, {"C0", {&b.c0, &c0}},
      {"C1", {&b.c1, &c1}},    {"C2", {&b.c2, &c2}},  {"C3", {&b.c3, &c3}},  {"Cmin", {&b.cost, &cost}}};
  for (const auto& [name, pairs] : checks) {
    const ImageF got = cu::download(*pairs.first);
    ASSERT_TRUE(all_finite(got)) << name;
    const double err = relative_l2(got, *pairs.second);
    EXPECT_LE(err, FILTER_TOLERANCE) << name;
    std::printf("  chained %-5s relative L2 error %.2e\n", name, err);
  }
}

TEST(CudaSalapStages, OutOfMemoryIsAClearError) {
  STEREO_REQUIRE_CUDA();
  try {
    auto huge = cu::make_device_buffer<float>(std::size_t(1) << 42, "salap/cuda", "a test buffer");  // 16 TiB
    FAIL() << "a 16 TiB allocation succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("salap/cuda: out of GPU memory allocating"), std::string::npos) << e.what();
  }
  // The context stays usable afterwards.
  cu::DeviceImage<float> ok(8, 8, "test", "after OOM");
  cu::poison(ok);
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace stereo
