// Synchronous uploads and downloads of images and arms for tests and set-up (core image types
// only: the conversions from the reference's volumes live with the tests,
// methods/crossrt/tests/cuda_stage_util.h).

#include <string>

#include "methods/crossrt/cuda/stages.h"

namespace stereo::cu::crossrt {
namespace {

constexpr const char* COMPONENT = "crossrt/cuda";

}  // namespace

DeviceImage<std::uint8_t> upload_u8(const ImageU8& image) {
  require(image.channels == 1, [&] { return std::string(COMPONENT) + ": upload_u8 needs one channel"; });
  DeviceImage<std::uint8_t> d(image.width, image.height, COMPONENT, "a test image");
  copy_to_device(d.get(), image.data.data(), d.count());
  return d;
}

ImageU8 download_u8(const DeviceImage<std::uint8_t>& image) {
  ImageU8 h(image.width, image.height, 1);
  CUDA_CHECK(cudaMemcpy(h.data.data(), image.get(), image.count(), cudaMemcpyDeviceToHost));
  return h;
}

DeviceImage<uchar2> upload_arms(const Image<std::uint8_t>& arms) {
  require(arms.channels == 2, [&] { return std::string(COMPONENT) + ": upload_arms needs two channels"; });
  DeviceImage<uchar2> d(arms.width, arms.height, COMPONENT, "test arms");
  static_assert(sizeof(uchar2) == 2);
  copy_to_device(d.get(), arms.data.data(), arms.data.size());
  return d;
}

Image<std::uint8_t> download_arms(const DeviceImage<uchar2>& arms) {
  Image<std::uint8_t> h(arms.width, arms.height, 2);
  CUDA_CHECK(cudaMemcpy(h.data.data(), arms.get(), h.data.size(), cudaMemcpyDeviceToHost));
  return h;
}

ImageF download_f32(const DeviceImage<float>& image) {
  ImageF h(image.width, image.height, 1);
  CUDA_CHECK(cudaMemcpy(h.data.data(), image.get(), image.count() * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace stereo::cu::crossrt
