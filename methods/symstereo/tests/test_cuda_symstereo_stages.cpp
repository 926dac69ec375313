// Each SymStereo CUDA stage (methods/symstereo/cuda/stages.h) against the reference stage of the same
// name (reference/symstereo.h), on the reference's own inputs so a failure names one stage.
// Tolerances: integer-valued stages (grey + flip, wta) bit-exact; the bank within 1e-6 relative
// (double in both, one float rounding); the filter product within 1e-6 relative L2; the FFTs
// (cuFFT against FFTW, both fp32) within 1e-5 relative L2; the energy (fp32 sums against
// double) within 1e-5 relative L2. Odd sizes throughout (131 x 37: not a power of two, no
// Nyquist bin; 96 x 20 for the even case).

#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <vector>

#include "cuda/common.h"
#include "cuda/cufft_plan.h"
#include "methods/symstereo/cuda/stages.h"
#include "methods/symstereo/model.h"
#include "methods/symstereo/params.h"
#include "methods/symstereo/reference/symstereo.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

namespace ref = reference;

template <class T>
cu::DeviceBuffer<T> to_device(const std::vector<T>& host) {
  auto d = cu::make_device_buffer<T>(host.size(), "test", "a test buffer");
  CUDA_CHECK(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  // A copy from pageable memory may return before its DMA has landed, and the stages below run
  // on non-blocking streams, which do not wait for the legacy default stream.
  CUDA_CHECK(cudaDeviceSynchronize());
  return d;
}
template <class T>
std::vector<T> to_host(const cu::DeviceBuffer<T>& d, std::size_t count) {
  std::vector<T> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), d.get(), count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}
cu::DeviceBuffer<cufftComplex> complex_to_device(const std::vector<ref::Complex>& host) {
  std::vector<cufftComplex> c(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) c[i] = {host[i].real(), host[i].imag()};
  return to_device(c);
}
std::vector<ref::Complex> complex_to_host(const cu::DeviceBuffer<cufftComplex>& d, std::size_t count) {
  const std::vector<cufftComplex> c = to_host(d, count);
  std::vector<ref::Complex> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = {c[i].x, c[i].y};
  return out;
}
double rel_l2(const std::vector<ref::Complex>& a, const std::vector<ref::Complex>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += std::norm(std::complex<double>(a[i]) - std::complex<double>(b[i]));
    den += std::norm(std::complex<double>(b[i]));
  }
  return std::sqrt(num / den);
}
double rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
    den += double(b[i]) * double(b[i]);
  }
  return std::sqrt(num / den);
}

SymStereoParams small_params(int wavelets) {
  SymStereoParams p;
  p.wavelets = wavelets;
  return p;
}

TEST(CudaSymStereoStages, LogGaborBank) {
  STEREO_REQUIRE_CUDA();
  for (int width : {131, 96}) {
    const SymStereoParams params = small_params(20);
    const ref::FilterBank expect = ref::log_gabor_bank(width, params);
    auto d = cu::make_device_buffer<float>(expect.data.size(), "test", "bank");
    cu::symstereo::log_gabor_bank(width, params, d.get(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = to_host(d, expect.data.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], expect.data[i], 1e-6 * std::abs(expect.data[i]) + 1e-12) << "width " << width << " i " << i;
  }
}

TEST(CudaSymStereoStages, FlipRowsIsGreyAndMirrorBitExact) {
  STEREO_REQUIRE_CUDA();
  for (int channels : {1, 3, 4}) {
    const ImageU8 img = cuda_test::random_u8(131, 37, channels, 7);
    const int padded = symstereo_padded_length(img.width, SymStereoParams{});
    ASSERT_GT(padded, img.width);
    const std::size_t count = std::size_t(padded) * std::size_t(img.height);
    auto raw = to_device(img.data);
    auto d = cu::make_device_buffer<float>(count, "test", "grey");
    for (bool mirror : {false, true}) {
      cu::symstereo::flip_rows(raw.get(), img.width, img.height, channels, mirror, padded, d.get(), nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const ImageF grey = ref::grey_float(channels == 4 ? to_rgb(img) : img);
      const ImageF expect = ref::pad_rows(mirror ? ref::flip_rows(grey) : grey, padded);
      EXPECT_EQ(to_host(d, count), expect.data) << channels << " channels, mirror " << mirror;
    }
  }
}

TEST(CudaSymStereoStages, RowFftFilterInverse) {
  STEREO_REQUIRE_CUDA();
  for (int width : {131, 96}) {
    const int height = 37, n = 12;
    const ImageF grey = ref::grey_float(test::random_texture(width, height, 3));
    ref::FftwPlan plan(width, height);
    const ref::FilterBank bank = ref::log_gabor_bank(width, small_params(n));
    const ref::ComplexRows spec = ref::row_fft(grey, plan);
    const ref::ComplexRows filtered = ref::filter(spec, bank);
    const ref::Responses resp = ref::inverse(filtered, plan);

    const cu::Stream stream = cu::make_stream();
    const cu::CufftPlan forward(cu::CufftPlan::Kind::r2c, width, height, stream.get(), "test");
    const cu::CufftPlan backward(cu::CufftPlan::Kind::c2c, width, n * height, stream.get(), "test");
    auto d_grey = to_device(grey.data);
    auto d_spec = cu::make_device_buffer<cufftComplex>(spec.data.size(), "test", "spectrum");
    cu::symstereo::row_fft(forward, d_grey.get(), d_spec.get());
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    EXPECT_LT(rel_l2(complex_to_host(d_spec, spec.data.size()), spec.data), 1e-5) << "row_fft, width " << width;

    // filter on the reference spectrum, so only the product is tested; poisoned output.
    auto d_ref_spec = complex_to_device(spec.data);
    auto d_bank = to_device(bank.data);
    auto d_resp = cu::make_device_buffer<cufftComplex>(filtered.data.size(), "test", "responses");
    CUDA_CHECK(cudaMemset(d_resp.get(), 0xFF, filtered.data.size() * sizeof(cufftComplex)));
    // The poison goes on the legacy default stream, `stream` is non-blocking: without this the
    // memset could land after the filter and leave NaNs (seen once on the H100 under ctest -j4).
    CUDA_CHECK(cudaDeviceSynchronize());
    cu::symstereo::filter(d_ref_spec.get(), d_bank.get(), width, height, n, d_resp.get(), stream.get());
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    const std::vector<ref::Complex> got_filtered = complex_to_host(d_resp, filtered.data.size());
    EXPECT_LT(rel_l2(got_filtered, filtered.data), 1e-6) << "filter, width " << width;
    for (int r = 0; r < filtered.count; ++r)
      for (int j = width / 2 + 1; j < width; ++j)
        ASSERT_EQ(got_filtered[std::size_t(r) * std::size_t(width) + std::size_t(j)], ref::Complex(0, 0))
            << "negative frequency " << j << " of row " << r;

    // inverse on the reference's filtered rows.
    auto d_filtered = complex_to_device(filtered.data);
    cu::symstereo::inverse(backward, d_filtered.get());
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    EXPECT_LT(rel_l2(complex_to_host(d_filtered, resp.data.size()), resp.data), 1e-5) << "inverse, width " << width;
  }
}

TEST(CudaSymStereoStages, EnergyAndWta) {
  STEREO_REQUIRE_CUDA();
  // 131 wide (not a multiple of the 64-pixel tile), 37 levels (not a multiple of 32), and a
  // range with negative disparities, so both out-of-image sides are exercised. Level counts
  // whose last tile is 8, 16, 24 and 32 levels high (7, 37, 15, 20, 70, 110), and tiles wholly
  // outside the right image on either side (110 levels: x < 64 at d >= 64; min -100: x >= 64
  // at x - d >= 155), which the kernel fills without computing.
  const int width = 131, height = 9, n = 21;
  const ImageU8 left = test::random_texture(width, height, 4);
  const ImageU8 right = test::shifted(left, 3);
  // Rows padded as the matcher pads them, so the energy reads with a row pitch > W.
  const int wp = symstereo_padded_length(width, small_params(n));
  ref::FftwPlan plan(wp, height);
  const ref::FilterBank bank = ref::log_gabor_bank(wp, small_params(n));
  const ref::Responses rl =
      ref::inverse(ref::filter(ref::row_fft(ref::pad_rows(ref::grey_float(left), wp), plan), bank), plan);
  const ref::Responses rr_mirrored = ref::inverse(
      ref::filter(ref::row_fft(ref::pad_rows(ref::flip_rows(ref::grey_float(right)), wp), plan), bank), plan);
  const ref::Responses rr = ref::flip_rows(rr_mirrored, width);
  auto d_left = complex_to_device(rl.data);
  auto d_right = complex_to_device(rr_mirrored.data);
  for (const DisparityRange range : {DisparityRange{0, 37}, DisparityRange{-5, 70}, DisparityRange{0, 7},
                                     DisparityRange{2, 15}, DisparityRange{0, 20}, DisparityRange{0, 110},
                                     DisparityRange{-100, 10}, DisparityRange{-20, 64}}) {
    const ref::Dsi expect = ref::energy(rl, rr, width, height, range);
    auto d_dsi = cu::make_device_buffer<float>(expect.data.size(), "test", "dsi");
    CUDA_CHECK(cudaMemset(d_dsi.get(), 0xFF, expect.data.size() * sizeof(float)));
    const cu::symstereo::DeviceResponses responses{
        d_left.get(), d_right.get(), width, height, wp, std::size_t(wp) * std::size_t(height), n};
    cu::symstereo::energy(responses, range, d_dsi.get(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = to_host(d_dsi, expect.data.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i] == SYMSTEREO_OUT_OF_IMAGE, expect.data[i] == SYMSTEREO_OUT_OF_IMAGE) << "cell " << i;
    EXPECT_LT(rel_l2(got, expect.data), 1e-5) << "energy, range min " << range.min << " count " << range.count;

    // wta on the reference DSI: bit-exact.
    auto d_ref_dsi = to_device(expect.data);
    auto d_disp = cu::make_device_buffer<float>(std::size_t(width) * std::size_t(height), "test", "disparity");
    cu::symstereo::wta(d_ref_dsi.get(), width, height, range, d_disp.get(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(to_host(d_disp, std::size_t(width) * std::size_t(height)), ref::wta(expect).data);
  }
}

TEST(CudaSymStereoStages, CufftErrorsAreNamed) {
  STEREO_REQUIRE_CUDA();
  EXPECT_STREQ(cu::cufft_result_name(CUFFT_INVALID_SIZE), "CUFFT_INVALID_SIZE");
  try {
    CUFFT_CHECK(CUFFT_ALLOC_FAILED);
    FAIL() << "CUFFT_CHECK did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUFFT_ALLOC_FAILED"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cu::CufftPlan(cu::CufftPlan::Kind::c2c, 1, 4, nullptr, "test"), Error);
}

}  // namespace
}  // namespace stereo
