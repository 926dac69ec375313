// The CUDA frames on image views (cuda/matcher_frame.h, and matchers with their own): for every CUDA
// backend, host views with a pitch, views in device memory (pitched, written on the caller's own
// stream just before the call) and maps written into the caller's host or device memory all give
// the ImageU8 map bit for bit, and device views reach the matcher without a host-to-device copy of
// an image (cu::testing::image_copies). Without a CUDA device each test skips and says so.

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "cuda/common.h"
#include "cuda/matcher_frame.h"
#include "methods/builtin.h"
#include "tests/method_cases.h"
#include "test_cuda_util.h"
#include "test_util.h"
#include "view_util.h"

namespace stereo {
namespace {

/// Pitched device memory (cudaMallocPitch), freed on scope exit.
struct DevicePitched {
  void* data = nullptr;
  std::size_t pitch = 0;
  DevicePitched(std::size_t row_bytes, int rows) {
    CUDA_CHECK(cudaMallocPitch(&data, &pitch, row_bytes, std::size_t(rows)));
  }
  ~DevicePitched() { cudaFree(data); }
  DevicePitched(const DevicePitched&) = delete;
  DevicePitched& operator=(const DevicePitched&) = delete;
};

int current_device() {
  int ordinal = 0;
  CUDA_CHECK(cudaGetDevice(&ordinal));
  return ordinal;
}

/// `image` in pitched device memory, copied on `stream` and not waited for: the matcher must
/// wait for that stream itself (ImageView::stream).
struct DeviceImageCopy {
  DevicePitched memory;
  ImageView view;
  DeviceImageCopy(const ImageU8& image, cudaStream_t stream)
      : memory(std::size_t(image.width) * std::size_t(image.channels), image.height) {
    const std::size_t row = std::size_t(image.width) * std::size_t(image.channels);
    CUDA_CHECK(cudaMemcpy2DAsync(memory.data, memory.pitch, image.data.data(), row, row, std::size_t(image.height),
                                 cudaMemcpyHostToDevice, stream));
    view = ImageView::cuda(memory.data, image.width, image.height, image.channels, memory.pitch, current_device(),
                           reinterpret_cast<std::uintptr_t>(stream));
  }
};

ImageF download(const DevicePitched& map, int width, int height) {
  ImageF out(width, height, 1);
  CUDA_CHECK(cudaMemcpy2D(out.data.data(), std::size_t(width) * sizeof(float), map.data, map.pitch,
                          std::size_t(width) * sizeof(float), std::size_t(height), cudaMemcpyDeviceToHost));
  return out;
}

void check_method(const std::string& method, const ImageU8& left, const ImageU8& right, DisparityRange range) {
  SCOPED_TRACE(method + "/cuda " + std::to_string(left.width) + "x" + std::to_string(left.height) + "x" +
               std::to_string(left.channels));
  auto matcher = create_matcher(method, "cuda", {});
  const ImageF expected = matcher->compute(left, right, range).disparity;
  test::expect_views_match_images(*matcher, left, right, range);

  // Device views, their writes still queued on the caller's stream.
  const cu::Stream producer = cu::make_stream();
  const DeviceImageCopy l(left, producer.get()), r(right, producer.get());
  const cu::testing::ImageCopies before = cu::testing::image_copies();
  const StereoResult on_device = matcher->compute(l.view, r.view, range);
  const cu::testing::ImageCopies after = cu::testing::image_copies();
  EXPECT_EQ(test::differing_pixels(on_device.disparity, expected), 0) << "compute on device views";
  EXPECT_EQ(after.host_to_device, before.host_to_device) << "an image went from the host to the device";
  EXPECT_GE(after.device_to_device, before.device_to_device + 2) << "the device views were not copied on the device";
  EXPECT_EQ(test::differing_pixels(matcher->compute_compact(l.view, r.view, range).to_float(), expected), 0)
      << "compute_compact on device views";

  // The map into the caller's device memory, with a pitch; then into its host memory.
  DevicePitched map(std::size_t(left.width) * sizeof(float), left.height);
  const cu::testing::ImageCopies before_into = cu::testing::image_copies();
  const Timing t = matcher->compute_into(l.view, r.view, range,
                                         DisparityView::cuda(static_cast<float*>(map.data), left.width, left.height,
                                                             map.pitch, current_device()));
  EXPECT_EQ(cu::testing::image_copies().host_to_device, before_into.host_to_device);
  EXPECT_EQ(test::differing_pixels(download(map, left.width, left.height), expected), 0) << "compute_into device memory";
  EXPECT_GT(t.readback_ms, 0.0);
  EXPECT_EQ(t.clock.rfind("cuda events", 0), 0u) << t.clock;
  test::PitchedMap host(left.width, left.height, 3);
  (void)matcher->compute_into(l.view, r.view, range, host.view);
  EXPECT_EQ(test::differing_pixels(host.dense(), expected), 0) << "compute_into host memory from device views";
  EXPECT_TRUE(host.padding_untouched());
  // ImageU8 calls after the device ones still give the same map (a workspace changed between).
  EXPECT_EQ(test::differing_pixels(matcher->compute(left, right, range).disparity, expected), 0);
}

TEST(CudaViews, EveryCudaBackendOnViewsAndDeviceMemory) {
  STEREO_REQUIRE_CUDA();
  const std::vector<std::string> methods = cuda_test::cuda_methods();
  ASSERT_FALSE(methods.empty());
  const ImageU8 rgb = test::random_texture(131, 67, 21), grey = test::random_texture(131, 67, 22, 1);
  for (const std::string& m : methods) {
    check_method(m, rgb, test::shifted(rgb, 5), DisparityRange{0, 16});
    check_method(m, grey, test::shifted(grey, 4), DisparityRange{-3, 12});
  }
}

// The frames a method declares its matcher takes a path of its own for
// (methods/<folder>/tests/cases.cpp).
TEST(CudaViews, EveryDeclaredFrameOfAMethodsOwnPath) {
  STEREO_REQUIRE_CUDA();
  for (const test::ViewCase& c : test::method_cases().cuda_views) {
    SCOPED_TRACE(c.method + "/cuda, " + c.why);
    const ImageU8 left = test::random_texture(c.width, c.height, c.seed);
    check_method(c.method, left, test::shifted(left, c.shift), c.range);
  }
}

// The frame's row upload (cu::upload_rows, which salap/cuda's row slabs use): a frame sent in
// row spans lands byte for byte where the whole frame goes, from host views with a pitch
// through page-locked staging or straight from their memory, and from device views on the
// device; each span counts one copy per view, and a span outside the images is refused.
TEST(CudaViews, UploadRowsInSpansIsTheWholeFrame) {
  STEREO_REQUIRE_CUDA();
  const int w = 37, h = 29, c = 3;
  const ImageU8 left = test::random_texture(w, h, 26), right = test::random_texture(w, h, 27);
  const std::size_t row = std::size_t(w) * std::size_t(c), pitch = row + 13, bytes = row * std::size_t(h);
  std::vector<std::uint8_t> left_pitched(pitch * std::size_t(h)), right_pitched(pitch * std::size_t(h));
  for (int y = 0; y < h; ++y) {
    std::copy_n(left.data.data() + row * std::size_t(y), row, left_pitched.data() + pitch * std::size_t(y));
    std::copy_n(right.data.data() + row * std::size_t(y), row, right_pitched.data() + pitch * std::size_t(y));
  }
  const ImageView host_left(left_pitched.data(), w, h, c, pitch), host_right(right_pitched.data(), w, h, c, pitch);
  const cu::Stream stream = cu::make_stream();
  const DeviceImageCopy device_left(left, stream.get()), device_right(right, stream.get());
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  cu::InputPair inputs;
  inputs.width = w;
  inputs.height = h;
  inputs.channels = c;
  inputs.raw_left = cu::make_device_buffer<std::uint8_t>(bytes, "test", "the left image");
  inputs.raw_right = cu::make_device_buffer<std::uint8_t>(bytes, "test", "the right image");
  const cu::HostBuffer<std::uint8_t> pinned = cu::make_host_buffer<std::uint8_t>(2 * bytes, "test", "the staging");
  ThreadPool pool(2);
  const cu::Staging staging{pinned.get(), &pool};

  struct Case {
    const char* name;
    ImageView l, r;
    const cu::Staging* staging;
  };
  for (const Case& k : {Case{"host views, staged", host_left, host_right, &staging},
                        Case{"host views, straight", host_left, host_right, nullptr},
                        Case{"device views", device_left.view, device_right.view, &staging}}) {
    SCOPED_TRACE(k.name);
    // On the uploads' stream: a cudaMemset on the legacy default stream is not ordered with a
    // non-blocking stream's copies, and could land after them.
    CUDA_CHECK(cudaMemsetAsync(inputs.raw_left.get(), 0, bytes, stream.get()));
    CUDA_CHECK(cudaMemsetAsync(inputs.raw_right.get(), 0, bytes, stream.get()));
    const cu::testing::ImageCopies before = cu::testing::image_copies();
    // The second span's staging follows the first one's rows, as the slabs' do.
    cu::upload_rows(inputs, k.l, k.r, cu::RowSpan{0, 10}, k.staging, stream.get());
    const cu::Staging rest{pinned.get() + 2 * row * 10, &pool};
    cu::upload_rows(inputs, k.l, k.r, cu::RowSpan{10, h}, k.staging != nullptr ? &rest : nullptr, stream.get());
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    const cu::testing::ImageCopies after = cu::testing::image_copies();
    const bool on_device = k.l.memory == Memory::cuda;
    EXPECT_EQ(after.host_to_device - before.host_to_device, on_device ? 0u : 4u);
    EXPECT_EQ(after.device_to_device - before.device_to_device, on_device ? 4u : 0u);
    std::vector<std::uint8_t> got_left(bytes), got_right(bytes);
    CUDA_CHECK(cudaMemcpy(got_left.data(), inputs.raw_left.get(), bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got_right.data(), inputs.raw_right.get(), bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got_left, left.data);
    EXPECT_EQ(got_right, right.data);
  }
  EXPECT_THROW(cu::upload_rows(inputs, host_left, host_right, cu::RowSpan{20, h + 1}, nullptr, stream.get()), Error);
  const ImageView grey(left_pitched.data(), w, h, 1, pitch);
  EXPECT_THROW(cu::upload_rows(inputs, grey, grey, cu::RowSpan{0, h}, nullptr, stream.get()), Error);
}

TEST(CudaViews, MemoryThatIsNotTheDevicesIsRefused) {
  STEREO_REQUIRE_CUDA();
  const ImageU8 image = test::random_texture(40, 20, 25);
  for (const std::string& m : cuda_test::cuda_methods()) {
    auto matcher = create_matcher(m, "cuda", {});
    // Host memory marked as device memory.
    const ImageView lie = ImageView::cuda(image.data.data(), 40, 20, 3, 0, current_device());
    try {
      (void)matcher->compute(lie, lie, DisparityRange{0, 8});
      ADD_FAILURE() << m << ": host memory passed as a device view was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(m + "/cuda: the left view is marked as CUDA memory but is"),
                std::string::npos)
          << e.what();
    }
    // A view that names another device than the matcher's.
    DevicePitched memory(120, 20);
    const ImageView elsewhere = ImageView::cuda(memory.data, 40, 20, 3, memory.pitch, current_device() + 1);
    EXPECT_THROW((void)matcher->compute(elsewhere, elsewhere, DisparityRange{0, 8}), Error) << m;
  }
}

}  // namespace
}  // namespace stereo
