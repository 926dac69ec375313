// Every ESAW/ESMP CUDA kernel (methods/esaw/cuda/stages.h) against the reference stage of the same name
// (reference/esaw.h with Storage::fp16). The kernels use the reference's operations in its
// order with round-to-nearest intrinsics and weight tables from the model's functions (the ones
// the reference's weights evaluate, methods/esaw/model.h),
// so every comparison here is bit-exact; a failure prints the first differing cell. The stages
// that weigh samples run under both colour readings the CUDA backend has (max_rgb, lab8).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/params.h"
#include "methods/esaw/reference/esaw.h"
#include "methods/esaw/tests/cuda_stage_util.h"
#include "tests/test_cuda_util.h"

namespace stereo {
namespace {

namespace ce = cu::esaw;
namespace ref = reference;
using cuda_test::esaw::download_volume;
using cuda_test::esaw::upload_volume;

// Odd sizes on purpose (no multiple of the 64 x 4 blocks).
constexpr int W = 67;
constexpr int H = 29;

ImageU8 random_rgb(int w, int h, unsigned seed) { return cuda_test::random_u8(w, h, 3, seed); }

ref::CostVolume random_half_volume(int w, int h, DisparityRange range, unsigned seed, float scale) {
  ref::CostVolume v(w, h, range);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, scale);
  for (float& x : v.data) x = ref::round_to_half(u(rng));
  return v;
}

void expect_same_volume(const ref::CostVolume& got, const ref::CostVolume& want, const std::string& what) {
  ASSERT_EQ(got.data.size(), want.data.size()) << what;
  std::size_t differ = 0;
  for (int y = 0; y < want.height; ++y)
    for (int x = 0; x < want.width; ++x)
      for (int k = 0; k < want.range.count; ++k)
        if (got.at(x, y, k) != want.at(x, y, k)) {
          if (differ == 0)
            ADD_FAILURE() << what << ": first difference at x " << x << " y " << y << " k " << k << ": gpu "
                          << got.at(x, y, k) << " reference " << want.at(x, y, k);
          ++differ;
        }
  EXPECT_EQ(differ, 0u) << what << ": " << differ << " of " << want.data.size() << " cells differ";
}

ce::Winner make_winner(int w, int h) {
  ce::Winner winner;
  winner.cost = {w, h, "test", "winner costs"};
  winner.disparity = {w, h, "test", "winner disparities"};
  return winner;
}

// A grey image on the device (rgb2grey's output form), for the kernels that compute eq. 3.
cu::DeviceImage<std::uint8_t> upload_grey(const ImageU8& img) {
  cu::DeviceImage<std::uint8_t> d(img.width, img.height, "test", "grey");
  CUDA_CHECK(cudaMemcpy(d.get(), img.data.data(), img.data.size(), cudaMemcpyHostToDevice));
  return d;
}

ImageF download_map(const cu::DeviceImage<float>& map) {
  ImageF out(map.width, map.height, 1);
  CUDA_CHECK(cudaMemcpy(out.data.data(), map.get(), map.count() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

// rgb2grey's RGBA image of an RGB image: the max_rgb guide, and rgb2lab8's input.
cu::DeviceImage<uchar4> upload_rgba(const ImageU8& rgb) {
  auto d_raw = cu::make_device_buffer<std::uint8_t>(rgb.data.size(), "test", "raw");
  CUDA_CHECK(cudaMemcpy(d_raw.get(), rgb.data.data(), rgb.data.size(), cudaMemcpyHostToDevice));
  cu::DeviceImage<uchar4> rgba(rgb.width, rgb.height, "test", "rgba");
  cu::DeviceImage<std::uint8_t> grey(rgb.width, rgb.height, "test", "grey");
  ce::rgb2grey(d_raw.get(), rgb.channels, rgba, grey, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return rgba;
}

ImageU8 download_rgb(const cu::DeviceImage<uchar4>& image) {
  std::vector<uchar4> host(image.count());
  CUDA_CHECK(cudaMemcpy(host.data(), image.get(), host.size() * sizeof(uchar4), cudaMemcpyDeviceToHost));
  ImageU8 out(image.width, image.height, 3);
  for (std::size_t i = 0; i < host.size(); ++i) {
    out.data[3 * i] = host[i].x;
    out.data[3 * i + 1] = host[i].y;
    out.data[3 * i + 2] = host[i].z;
  }
  return out;
}

// What the weights of one colour reading read, on both sides: the device guide image (RGBA, or
// rgb2lab8 of it) with lab8's colour table, and the reference's WeightGuide.
struct Guide {
  std::string name;
  cu::DeviceImage<uchar4> image;
  cu::DeviceBuffer<float> lab8_colour;  // lab8 only
  ref::WeightGuide reference;
  float gamma_c;

  [[nodiscard]] ce::WeightTable table(float gamma_p, int step) const {
    return ce::weight_table(gamma_c, gamma_p, step, lab8_colour.get());
  }
};

Guide make_guide(const ImageU8& rgb, ref::ColourDistance colour, float gamma_c) {
  Guide g{colour == ref::ColourDistance::lab8 ? "lab8" : "max_rgb", upload_rgba(rgb), nullptr,
          ref::WeightGuide(rgb, colour), gamma_c};
  if (colour == ref::ColourDistance::lab8) {
    cu::DeviceImage<uchar4> lab8(rgb.width, rgb.height, "test", "lab8");
    ce::rgb2lab8(g.image, lab8, nullptr);
    g.image = std::move(lab8);
    g.lab8_colour = ce::lab8_colour_table(gamma_c, "test");
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return g;
}

constexpr ref::ColourDistance CUDA_COLOURS[] = {ref::ColourDistance::max_rgb, ref::ColourDistance::lab8};

TEST(CudaEsawStages, Rgb2GreyMatchesReference) {
  STEREO_REQUIRE_CUDA();
  for (const int channels : {1, 3, 4}) {
    const ImageU8 raw = cuda_test::random_u8(W, H, channels, 3u + unsigned(channels));
    auto d_raw = cu::make_device_buffer<std::uint8_t>(raw.data.size(), "test", "raw");
    CUDA_CHECK(cudaMemcpy(d_raw.get(), raw.data.data(), raw.data.size(), cudaMemcpyHostToDevice));
    cu::DeviceImage<uchar4> rgba(W, H, "test", "rgba");
    cu::DeviceImage<std::uint8_t> grey(W, H, "test", "grey");
    cu::poison(grey);
    ce::rgb2grey(d_raw.get(), channels, rgba, grey, nullptr);
    ImageU8 got(W, H, 1);
    CUDA_CHECK(cudaMemcpy(got.data.data(), grey.get(), grey.count(), cudaMemcpyDeviceToHost));
    const ImageU8 want = ref::rgb2grey(to_rgb(raw));
    EXPECT_EQ(got.data, want.data) << channels << " channels";
  }
}

// lab8's guide, byte for byte (the x, y, z of the output; w = 255), on a random image of odd size
// and on the colours where the conversion changes course: black, white, the cube's corners,
// greys, every code alone in each channel (the sRGB curve's linear piece ends at code 10, CIE's
// f(t) at Y = (6/29)^3), and mixtures of the extremes.
TEST(CudaEsawStages, Rgb2Lab8MatchesReference) {
  STEREO_REQUIRE_CUDA();
  ImageU8 edges(256, 12, 3);
  for (int v = 0; v < 256; ++v) {
    const std::uint8_t c = std::uint8_t(v), z = 0, f = 255;
    const std::uint8_t rows[12][3] = {{c, c, c}, {c, z, z}, {z, c, z}, {z, z, c}, {c, c, z}, {c, z, c},
                                      {z, c, c}, {f, c, z}, {z, f, c}, {c, z, f}, {f, f, c}, {c, f, f}};
    for (int y = 0; y < 12; ++y)
      for (int ch = 0; ch < 3; ++ch) edges.at(v, y, ch) = rows[y][ch];
  }
  for (const ImageU8& rgb : {random_rgb(W, H, 101), edges}) {
    const cu::DeviceImage<uchar4> rgba = upload_rgba(rgb);
    cu::DeviceImage<uchar4> lab8(rgb.width, rgb.height, "test", "lab8");
    cu::poison(lab8);
    ce::rgb2lab8(rgba, lab8, nullptr);
    const ImageU8 got = download_rgb(lab8), want = ref::rgb2lab8(rgb);
    std::size_t differ = 0;
    for (int y = 0; y < rgb.height; ++y)
      for (int x = 0; x < rgb.width; ++x)
        for (int ch = 0; ch < 3; ++ch)
          if (got.at(x, y, ch) != want.at(x, y, ch)) {
            if (differ++ == 0)
              ADD_FAILURE() << rgb.width << "x" << rgb.height << ": first difference at x " << x << " y " << y
                            << " channel " << ch << " (rgb " << int(rgb.at(x, y, 0)) << " " << int(rgb.at(x, y, 1))
                            << " " << int(rgb.at(x, y, 2)) << "): gpu " << int(got.at(x, y, ch)) << " reference "
                            << int(want.at(x, y, ch));
          }
    EXPECT_EQ(differ, 0u) << rgb.width << "x" << rgb.height;
  }
  const cu::DeviceImage<uchar4> rgba = upload_rgba(random_rgb(W, H, 102));
  cu::DeviceImage<uchar4> smaller(W - 1, H, "test", "lab8");
  EXPECT_THROW(ce::rgb2lab8(rgba, smaller, nullptr), Error);
}

// Every one of the 2^24 colours once (a 4096 x 4096 image): what the CPU test
// NoColourHasAnUnroundedLab8ValueNearARoundingTie proves for any cbrt within an ulp or two, checked
// on this GPU directly. A few seconds of CPU for the reference.
TEST(CudaEsawStages, Rgb2Lab8MatchesReferenceOnEveryColour) {
  STEREO_REQUIRE_CUDA();
  ImageU8 all(4096, 4096, 3);
  for (std::size_t i = 0; i < std::size_t(1) << 24; ++i) {
    all.data[3 * i] = std::uint8_t(i >> 16);
    all.data[3 * i + 1] = std::uint8_t(i >> 8);
    all.data[3 * i + 2] = std::uint8_t(i);
  }
  const cu::DeviceImage<uchar4> rgba = upload_rgba(all);
  cu::DeviceImage<uchar4> lab8(all.width, all.height, "test", "lab8");
  ce::rgb2lab8(rgba, lab8, nullptr);
  const ImageU8 got = download_rgb(lab8), want = ref::rgb2lab8(all);
  std::size_t differ = 0, first = 0;
  for (std::size_t i = 0; i < want.data.size(); ++i)
    if (got.data[i] != want.data[i] && differ++ == 0) first = i;
  EXPECT_EQ(differ, 0u) << "first at colour " << (first / 3) << " channel " << (first % 3) << ": gpu "
                        << int(got.data[first]) << " reference " << int(want.data[first]);
}

// lab8's colour table holds the reference's factor of every squared distance (a host function;
// the device copy is what the stage tests below read).
TEST(CudaEsawStages, Lab8ColourFactorsAreTheReferences) {
  const std::vector<float> factors = ce::lab8_colour_factors(18.0f);
  ASSERT_EQ(factors.size(), std::size_t(ce::LAB8_SQUARED_DISTANCES));
  EXPECT_EQ(factors[0], 1.0f);
  for (const int d : {1, 2, 3, 255 * 255, 3 * 255 * 255})
    EXPECT_EQ(factors[std::size_t(d)], std::exp(-std::sqrt(float(d)) / 18.0f)) << d;
  for (std::size_t d = 1; d < factors.size(); ++d) ASSERT_LE(factors[d], factors[d - 1]) << d;
}

TEST(CudaEsawStages, InitCostMatchesReferenceOnEverySlab) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 left = cuda_test::random_u8(W, H, 1, 11), right = cuda_test::random_u8(W, H, 1, 12);
  const auto d_left = upload_grey(left), d_right = upload_grey(right);
  for (const float lambda : {1.0f, 0.15f}) {
    const DisparityRange range{-2, 13};
    const ref::CostVolume want = ref::init_cost(left, right, range, lambda, 12.0f, ref::Storage::fp16);
    ce::DeviceVolume got(W, H, range.count, "test", "cost");
    CUDA_CHECK(cudaMemset(got.data.get(), 0xFF, got.plane_cells() * 2 * std::size_t(got.planes)));
    // Two slabs of 5 and 8 planes, as the matcher would run them.
    ce::init_cost({d_left, d_right, range.min, 5, lambda, 12.0f}, got.plane(0), nullptr);
    ce::init_cost({d_left, d_right, range.min + 5, 8, lambda, 12.0f}, got.plane(5), nullptr);
    expect_same_volume(download_volume(got, range), want, "init_cost lambda " + std::to_string(lambda));
  }
}

TEST(CudaEsawStages, AggrHAndAggrVMatchReference) {
  STEREO_REQUIRE_CUDA();
  // 19 planes: groups of planes in flight and a tail of 3. The odd width runs one pixel a
  // thread, the even one two (aggr_pair.cuh).
  const DisparityRange range{0, 19};
  for (const int w : {W, W + 1}) {
    const ImageU8 rgb = random_rgb(w, H, 21);
    const ref::CostVolume centre = random_half_volume(w, H, range, 31, 12.0f);
    const ref::CostVolume side = random_half_volume(w, H, range, 32, 3.0f);
    const ce::DeviceVolume d_centre = upload_volume(centre), d_side = upload_volume(side);
    for (const ref::ColourDistance colour : CUDA_COLOURS) {
      const Guide guide = make_guide(rgb, colour, 17.0f);
      for (const ref::Border border : {ref::Border::drop, ref::Border::clamp})
        for (const int step : {1, 5, 40, 100}) {  // 40 and 100 reach past the 29 rows / 67 columns
          const ce::WeightTable table = guide.table(36.0f, step);
          const std::string what = std::to_string(w) + " wide " + guide.name +
                                   (border == ref::Border::drop ? " drop" : " clamp") + " step " + std::to_string(step);
          ce::DeviceVolume out(w, H, range.count, "test", "out");
          const ce::PassWeights weights{guide.image, step, table, border};
          const ce::PassInputs in{d_centre.plane(0), d_side.plane(0), range.count};
          ce::aggr_H(weights, in, out.plane(0), nullptr);
          expect_same_volume(download_volume(out, range),
                             ref::aggr_H(centre, side, guide.reference, step, 17.0f, 36.0f, border, ref::Storage::fp16),
                             "aggr_H " + what);
          ce::aggr_V(weights, in, out.plane(0), nullptr, 0, nullptr);
          const ref::CostVolume want_v =
              ref::aggr_V(centre, side, guide.reference, step, 17.0f, 36.0f, border, ref::Storage::fp16);
          expect_same_volume(download_volume(out, range), want_v, "aggr_V " + what);

          // The fused WTA: the winner of the stored values, the volume not written.
          ce::Winner winner = make_winner(w, H);
          ce::wta_reset(winner, nullptr);
          ce::aggr_V(weights, in, nullptr, &winner, 4, nullptr);
          ref::CostVolume shifted = want_v;
          shifted.range = DisparityRange{4, range.count};
          EXPECT_EQ(download_map(winner.disparity).data, ref::select_disparity(shifted).data) << "fused WTA " << what;
        }
    }
  }
}

// ESAW's first pass with eq. 3 computed inside it equals aggr_H over init_cost's stored planes,
// on two slabs (5 and 8 planes, a negative first disparity), both borders and steps past the
// image width.
TEST(CudaEsawStages, InitAggrHMatchesInitCostThenAggrH) {
  STEREO_REQUIRE_CUDA();
  for (const int w : {W, W + 1}) {  // one pixel a thread, two (a pair's shared samples at step 1)
    const ImageU8 left = cuda_test::random_u8(w, H, 1, 91), right = cuda_test::random_u8(w, H, 1, 92);
    const ImageU8 rgb = random_rgb(w, H, 93);
    const auto d_left = upload_grey(left), d_right = upload_grey(right);
    const DisparityRange range{-2, 13};
    for (const ref::ColourDistance colour : CUDA_COLOURS) {
      const Guide guide = make_guide(rgb, colour, 17.0f);
      for (const float lambda : {1.0f, 0.15f})
        for (const ref::Border border : {ref::Border::drop, ref::Border::clamp})
          for (const int step : {1, 5, 100}) {  // 100 reaches past the 67 columns
            const std::string what = std::to_string(w) + " wide " + guide.name + " lambda " +
                                     std::to_string(lambda) + (border == ref::Border::drop ? " drop" : " clamp") +
                                     " step " + std::to_string(step);
            const ref::CostVolume c0 = ref::init_cost(left, right, range, lambda, 12.0f, ref::Storage::fp16);
            const ref::CostVolume want =
                ref::aggr_H(c0, c0, guide.reference, step, 17.0f, 36.0f, border, ref::Storage::fp16);
            const ce::WeightTable table = guide.table(36.0f, step);
            ce::DeviceVolume got(w, H, range.count, "test", "out");
            const ce::PassWeights weights{guide.image, step, table, border};
            ce::init_aggr_H({d_left, d_right, range.min, 5, lambda, 12.0f}, weights, got.plane(0), nullptr);
            ce::init_aggr_H({d_left, d_right, range.min + 5, 8, lambda, 12.0f}, weights, got.plane(5), nullptr);
            expect_same_volume(download_volume(got, range), want, "init_cost+aggr_H " + what);
          }
    }
  }
}

// One iteration in one kernel (aggr_hv.cu) equals the reference's aggr_H then aggr_V: on 3 x 5
// of its 64 x 16 tiles with odd tails, 7 planes (a group of 4 and a tail) in two slabs, both
// borders, every step from 1 to the device's largest (each needs its own amount of shared memory,
// some past the default 48 KB; 16 reaches across a tile); and with init_cost computed inside it
// (iteration 1), a negative first disparity.
TEST(CudaEsawStages, AggrHVMatchesAggrHThenAggrV) {
  STEREO_REQUIRE_CUDA();
  constexpr int TW = 150, TH = 77;
  const DisparityRange range{-2, 7};
  const ImageU8 rgb = random_rgb(TW, TH, 71);
  const ImageU8 left = cuda_test::random_u8(TW, TH, 1, 72), right = cuda_test::random_u8(TW, TH, 1, 73);
  const auto d_left = upload_grey(left), d_right = upload_grey(right);
  const ref::CostVolume volume = random_half_volume(TW, TH, range, 74, 12.0f);
  const ref::CostVolume c0 = ref::init_cost(left, right, range, 0.15f, 12.0f, ref::Storage::fp16);
  const ce::DeviceVolume d_volume = upload_volume(volume);
  for (const ref::ColourDistance colour : CUDA_COLOURS) {
    const Guide guide = make_guide(rgb, colour, 17.0f);
    for (const ref::Border border : {ref::Border::drop, ref::Border::clamp})
      for (int step = 1; step <= ce::aggr_hv_max_step(); ++step) {  // each size of shared memory
        const std::string what = guide.name + (border == ref::Border::drop ? " drop" : " clamp") + " step " +
                                 std::to_string(step);
        const ce::WeightTable table = guide.table(36.0f, step);
        auto iteration = [&](const ref::CostVolume& in) {
          const ref::CostVolume h =
              ref::aggr_H(in, in, guide.reference, step, 17.0f, 36.0f, border, ref::Storage::fp16);
          return ref::aggr_V(h, h, guide.reference, step, 17.0f, 36.0f, border, ref::Storage::fp16);
        };
        ce::DeviceVolume got(TW, TH, range.count, "test", "out");
        const ce::PassWeights weights{guide.image, step, table, border};
        ce::aggr_HV(weights, d_volume.plane(0), 3, got.plane(0), nullptr);
        ce::aggr_HV(weights, d_volume.plane(3), 4, got.plane(3), nullptr);
        expect_same_volume(download_volume(got, range), iteration(volume), "aggr_HV " + what);
        ce::init_aggr_HV({d_left, d_right, range.min, 2, 0.15f, 12.0f}, weights, got.plane(0), nullptr);
        ce::init_aggr_HV({d_left, d_right, range.min + 2, 5, 0.15f, 12.0f}, weights, got.plane(2), nullptr);
        expect_same_volume(download_volume(got, range), iteration(c0), "init_aggr_HV " + what);
      }
    const ce::WeightTable table = guide.table(36.0f, 1);
    ce::DeviceVolume out(TW, TH, range.count, "test", "out");
    const ce::WeightTable table_17 = guide.table(36.0f, 17);
    const ce::PassWeights too_far{guide.image, ce::HV_MAX_STEP + 1, table_17, ref::Border::drop};
    const ce::PassWeights step_1{guide.image, 1, table, ref::Border::drop};
    EXPECT_THROW(ce::aggr_HV(too_far, d_volume.plane(0), 7, out.plane(0), nullptr), Error);
    EXPECT_THROW(ce::aggr_HV(step_1, out.plane(0), 7, out.plane(0), nullptr), Error);
    EXPECT_THROW(ce::aggr_HV(step_1, d_volume.plane(0), 0, out.plane(0), nullptr), Error);
  }
}

// An iteration's aggr_V and the next iteration's aggr_H in one kernel (aggr_vh.cu) equal the
// reference's aggr_V then aggr_H: even widths of one pair a thread (68) and two (2100: 1050
// pairs), 19 planes (groups of 4 and a tail), both borders, steps within and past the 29 rows /
// 68 columns; odd widths do not fit it.
TEST(CudaEsawStages, AggrVHMatchesAggrVThenAggrH) {
  STEREO_REQUIRE_CUDA();
  const DisparityRange range{0, 19};
  for (const int w : {W + 1, 2100}) {
    const ImageU8 rgb = random_rgb(w, H, 121);
    const ref::CostVolume volume = random_half_volume(w, H, range, 122, 12.0f);
    const ce::DeviceVolume d_volume = upload_volume(volume);
    for (const ref::ColourDistance colour : CUDA_COLOURS) {
      const Guide guide = make_guide(rgb, colour, 17.0f);
      for (const ref::Border border : {ref::Border::drop, ref::Border::clamp})
        for (const auto& [step_v, step_h] : {std::pair{1, 2}, std::pair{7, 13}, std::pair{40, 75}}) {
          const std::string what = std::to_string(w) + " wide " + guide.name +
                                   (border == ref::Border::drop ? " drop" : " clamp") + " steps " +
                                   std::to_string(step_v) + ", " + std::to_string(step_h);
          const ce::WeightTable table_v = guide.table(36.0f, step_v), table_h = guide.table(36.0f, step_h);
          const ref::CostVolume v =
              ref::aggr_V(volume, volume, guide.reference, step_v, 17.0f, 36.0f, border, ref::Storage::fp16);
          const ref::CostVolume want =
              ref::aggr_H(v, v, guide.reference, step_h, 17.0f, 36.0f, border, ref::Storage::fp16);
          ASSERT_TRUE(ce::aggr_VH_fits(w, H, range.count)) << what;
          ce::DeviceVolume got(w, H, range.count, "test", "out");
          ce::aggr_VH({guide.image, step_v, table_v, border}, {guide.image, step_h, table_h, border},
                      d_volume.plane(0), range.count, got.plane(0), nullptr);
          expect_same_volume(download_volume(got, range), want, "aggr_VH " + what);
        }
    }
  }
  EXPECT_FALSE(ce::aggr_VH_fits(W, H, range.count));
}

TEST(CudaEsawStages, SelectDisparityOverSlabsMatchesReference) {
  STEREO_REQUIRE_CUDA();
  const DisparityRange range{3, 11};
  ref::CostVolume v = random_half_volume(W, H, range, 41, 4.0f);
  for (int x = 0; x < W; ++x) v.at(x, 0, 2) = v.at(x, 0, 7) = -1.0f;  // ties: the first must win
  const ce::DeviceVolume d = upload_volume(v);
  ce::Winner winner = make_winner(W, H);
  ce::wta_reset(winner, nullptr);
  ce::select_disparity(d.plane(0), W, H, 6, range.min, winner, nullptr);
  ce::select_disparity(d.plane(6), W, H, 5, range.min + 6, winner, nullptr);
  EXPECT_EQ(download_map(winner.disparity).data, ref::select_disparity(v).data);
}

TEST(CudaEsawStages, Cost2MsgMatchesReference) {
  STEREO_REQUIRE_CUDA();
  // 400 levels need 51 KB of shared memory per block: the opt-in path.
  for (const int levels : {1, 16, 60, 400}) {
    const DisparityRange range{0, levels};
    const ref::CostVolume cost = random_half_volume(W, H, range, 51u + unsigned(levels), 2.55f);
    const float eta = 0.0375f * float(levels - 1);
    const ce::DeviceVolume d = upload_volume(cost);
    ce::DeviceVolume out(W, H, levels, "test", "messages");
    ce::cost2msg(d.plane(0), W, H, levels, 1.0f, eta, out.plane(0), nullptr);
    expect_same_volume(download_volume(out, range), ref::cost2msg(cost, 1.0f, eta, ref::Storage::fp16),
                       "cost2msg levels " + std::to_string(levels));
  }
}

// ESMP's first messages with eq. 3 inside cost2msg equal cost2msg(init_cost(...)), at 1 level,
// 60 and 400 (the shared-memory opt-in path), with a negative first disparity; at an odd width
// one pixel a thread, at an even one two (and one, with pairs off); c = 1 (a half: the pairs'
// forward min-sum in half2) and c = 0.3 (not a half: in fp32).
TEST(CudaEsawStages, InitCost2MsgMatchesInitCostThenCost2Msg) {
  STEREO_REQUIRE_CUDA();
  for (const int w : {W, W + 1}) {
    const ImageU8 left = cuda_test::random_u8(w, H, 1, 95), right = cuda_test::random_u8(w, H, 1, 96);
    const auto d_left = upload_grey(left), d_right = upload_grey(right);
    for (const int levels : {1, 60, 400}) {
      for (const float c : {1.0f, 0.3f}) {
        const DisparityRange range{-3, levels};
        const float lambda = 0.15f, tau = 17.0f, eta = 0.0375f * float(levels - 1);
        const ref::CostVolume want = ref::cost2msg(
            ref::init_cost(left, right, range, lambda, tau, ref::Storage::fp16), c, eta, ref::Storage::fp16);
        for (const bool pairs : {true, false}) {
          ce::DeviceVolume got(w, H, levels, "test", "messages");
          ce::init_cost2msg({d_left, d_right, range.min, levels, lambda, tau}, c, eta, got.plane(0), nullptr, pairs);
          expect_same_volume(download_volume(got, range), want,
                             "init_cost+cost2msg " + std::to_string(w) + " wide, levels " + std::to_string(levels) +
                                 ", c " + std::to_string(c) + (pairs ? ", pairs" : ""));
        }
      }
    }
  }
}

TEST(CudaEsawStages, FusedForwardAndCost2MsgBackwardMatchReference) {
  STEREO_REQUIRE_CUDA();
  // ESMP's aggr_H+ / aggr_V+ then cost2msg- against reference cost2msg(aggr_*(...)); 37 levels:
  // groups of levels in flight and a tail.
  const int levels = 37;
  const DisparityRange range{0, levels};
  for (const int w : {W, W + 1}) {  // one pixel a thread, two (aggr_pair.cuh)
    const ImageU8 rgb = random_rgb(w, H, 71);
    const ref::CostVolume msg = random_half_volume(w, H, range, 72, 2.5f);
    const ce::DeviceVolume d_msg = upload_volume(msg);
    cu::DeviceImage<float> truncation(w, H, "test", "truncation");
    const float c = 1.0f, eta = 0.0375f * float(levels - 1);
    const ce::ForwardMinSum forward{c, eta, &truncation};
    for (const ref::ColourDistance colour : CUDA_COLOURS) {
      const Guide guide = make_guide(rgb, colour, 18.0f);
      for (const int step : {1, 6, 40}) {  // 40 reaches past the 29 rows
        const std::string what = std::to_string(w) + " wide " + guide.name + " step " + std::to_string(step);
        const ce::WeightTable table = guide.table(29.0f, step);
        ce::DeviceVolume fwd(w, H, levels, "test", "forward"), out(w, H, levels, "test", "messages");
        const ce::PassWeights weights{guide.image, step, table, ref::Border::drop};
        ce::aggr_H(weights, {d_msg.plane(0), d_msg.plane(0), levels}, fwd.plane(0), nullptr, &forward);
        ce::cost2msg_backward(fwd.plane(0), truncation, levels, c, out.plane(0), nullptr);
        const ref::CostVolume want_h = ref::cost2msg(
            ref::aggr_H(msg, msg, guide.reference, step, 18.0f, 29.0f, ref::Border::drop, ref::Storage::fp16), c, eta,
            ref::Storage::fp16);
        expect_same_volume(download_volume(out, range), want_h, "aggr_H+ / cost2msg- " + what);
        ce::aggr_V(weights, {d_msg.plane(0), d_msg.plane(0), levels}, fwd.plane(0), nullptr, 0, nullptr, &forward);
        ce::cost2msg_backward(fwd.plane(0), truncation, levels, c, out.plane(0), nullptr);
        const ref::CostVolume want_v = ref::cost2msg(
            ref::aggr_V(msg, msg, guide.reference, step, 18.0f, 29.0f, ref::Border::drop, ref::Storage::fp16), c, eta,
            ref::Storage::fp16);
        expect_same_volume(download_volume(out, range), want_v, "aggr_V+ / cost2msg- " + what);
        // Both in one kernel (aggr_cost2msg.cu), where the width is even.
        const ce::PassInputs in{d_msg.plane(0), d_msg.plane(0), levels};
        if (w % 2 != 0) {
          EXPECT_FALSE(ce::aggr_cost2msg_fits(w, H, levels));
          EXPECT_THROW(ce::aggr_cost2msg(weights, false, in, c, eta, out.plane(0), nullptr), Error);
          continue;
        }
        ASSERT_TRUE(ce::aggr_cost2msg_fits(w, H, levels));
        // The forward min-sum in fp32 and in half2 (c = 1 is a half).
        for (const bool half_forward : {false, true}) {
          const std::string how = what + (half_forward ? " half" : "");
          ce::aggr_cost2msg(weights, false, in, c, eta, out.plane(0), nullptr, half_forward);
          expect_same_volume(download_volume(out, range), want_h, "aggr_H+cost2msg- " + how);
          ce::aggr_cost2msg(weights, true, in, c, eta, out.plane(0), nullptr, half_forward);
          expect_same_volume(download_volume(out, range), want_v, "aggr_V+cost2msg- " + how);
        }
      }
    }
  }
}

// ESMP with cost2msg- folded into the next pass: aggr_msg on the forward values of an aggr_H+
// (or of an aggr_msg) equals the reference's cost2msg(aggr_*(messages)), pass after pass, and
// its fused WTA equals select_disparity of the aggregated messages.
TEST(CudaEsawStages, AggrMsgMatchesCost2MsgThenAggregation) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 rgb = random_rgb(W, H, 81);
  const cu::DeviceImage<uchar4> rgba = upload_rgba(rgb);
  const float c = 1.0f;
  const auto fp16 = ref::Storage::fp16;
  for (const ref::ColourDistance colour : CUDA_COLOURS) {
    const Guide guide = make_guide(rgb, colour, 18.0f);
    const ref::WeightGuide& weights = guide.reference;
    // 37 levels: four groups of 8 loaded ahead and a tail of 5; 400: 51 KB of shared memory, the
    // opt-in path; 1: the top level only.
    for (const int levels : {37, 400, 1}) {
      const DisparityRange range{0, levels};
      const float eta = 0.0375f * float(levels - 1);
      const ref::CostVolume msg0 = random_half_volume(W, H, range, 82u + unsigned(levels), 2.5f);
      const ce::DeviceVolume d_msg0 = upload_volume(msg0);
      for (const ref::Border border : {ref::Border::drop, ref::Border::clamp})
        for (const int step : {1, 6, 40}) {  // 40 reaches past the 29 rows
          const std::string what = guide.name + (border == ref::Border::drop ? " drop" : " clamp") + " step " +
                                   std::to_string(step) + " levels " + std::to_string(levels);
          const ce::WeightTable table = guide.table(29.0f, step);
          cu::DeviceImage<float> h1(W, H, "test", "h1"), h2(W, H, "test", "h2"), h3(W, H, "test", "h3");
          ce::DeviceVolume f1(W, H, levels, "test", "f1"), f2(W, H, levels, "test", "f2"),
              f3(W, H, levels, "test", "f3");
          ce::DeviceVolume msg(W, H, levels, "test", "messages");
          const ce::ForwardMinSum forward{c, eta, &h1};
          const ce::PassWeights pass{guide.image, step, table, border};
          ce::aggr_H(pass, {d_msg0.plane(0), d_msg0.plane(0), levels}, f1.plane(0), nullptr, &forward);
          const ref::CostVolume msg1 =
              ref::cost2msg(ref::aggr_H(msg0, msg0, weights, step, 18.0f, 29.0f, border, fp16), c, eta, fp16);

          // Vertical, from aggr_H+'s output.
          ce::aggr_msg(pass, true, {f1.plane(0), h1, levels}, c, eta, {f2.plane(0), &h2}, nullptr);
          ce::cost2msg_backward(f2.plane(0), h2, levels, c, msg.plane(0), nullptr);
          const ref::CostVolume agg2 = ref::aggr_V(msg1, msg1, weights, step, 18.0f, 29.0f, border, fp16);
          const ref::CostVolume msg2 = ref::cost2msg(agg2, c, eta, fp16);
          expect_same_volume(download_volume(msg, range), msg2, "aggr_msg V " + what);

          // Horizontal, from aggr_msg's own output (the chain the matcher runs).
          ce::aggr_msg(pass, false, {f2.plane(0), h2, levels}, c, eta, {f3.plane(0), &h3}, nullptr);
          ce::cost2msg_backward(f3.plane(0), h3, levels, c, msg.plane(0), nullptr);
          expect_same_volume(
              download_volume(msg, range),
              ref::cost2msg(ref::aggr_H(msg2, msg2, weights, step, 18.0f, 29.0f, border, fp16), c, eta, fp16),
              "aggr_msg H " + what);

          // The fused WTA over all levels, the first disparity 4.
          ce::Winner winner = make_winner(W, H);
          ce::aggr_msg(pass, true, {f1.plane(0), h1, levels}, c, eta, {nullptr, nullptr, &winner, 4}, nullptr);
          ref::CostVolume shifted = agg2;
          shifted.range = DisparityRange{4, levels};
          EXPECT_EQ(download_map(winner.disparity).data, ref::select_disparity(shifted).data)
              << "aggr_msg WTA " << what;
        }
    }
  }
  // Misuse: an output aliasing its input.
  const int levels = 4;
  const float eta = 1.0f;
  cu::DeviceImage<float> h(W, H, "test", "h");
  ce::DeviceVolume f(W, H, levels, "test", "f");
  const ce::WeightTable table = ce::weight_table(18.0f, 29.0f, 1);
  const ce::PassWeights weights{rgba, 1, table, ref::Border::drop};
  EXPECT_THROW(ce::aggr_msg(weights, true, {f.plane(0), h, levels}, c, eta, {f.plane(0), &h}, nullptr), Error);
}

TEST(CudaEsawStages, MisuseIsAClearError) {
  STEREO_REQUIRE_CUDA();
  const DisparityRange range{0, 4};
  ce::DeviceVolume v = upload_volume(random_half_volume(W, H, range, 61, 1.0f));
  cu::DeviceImage<uchar4> rgba(W, H, "test", "rgba");
  const ce::WeightTable table = ce::weight_table(17.0f, 36.0f, 1);
  const ce::PassWeights step_1{rgba, 1, table, ref::Border::drop}, step_0{rgba, 0, table, ref::Border::drop};
  EXPECT_THROW(ce::aggr_H(step_1, {v.plane(0), v.plane(0), 4}, v.plane(0), nullptr), Error);
  EXPECT_THROW(ce::aggr_H(step_0, {v.plane(0), v.plane(0), 4}, nullptr, nullptr), Error);
  EXPECT_THROW(ce::cost2msg(v.plane(0), W, H, 4, 1.0f, 1.0f, v.plane(0), nullptr), Error);
  try {
    ce::DeviceVolume out(W, H, 1, "test", "out");
    ce::cost2msg(v.plane(0), W, 1, 100000, 1.0f, 1.0f, out.plane(0), nullptr);
    FAIL() << "100000 levels of shared memory were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("esaw/cuda: cost2msg: 100000 levels need"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace stereo
