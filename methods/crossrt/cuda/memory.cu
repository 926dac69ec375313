// Set-up and test helpers: the cost tables, and synchronous uploads/downloads between the
// reference's host images/volumes and the stages' device buffers.

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "methods/crossrt/cuda/stages.h"

namespace stereo::cu::crossrt {
namespace {

constexpr const char* COMPONENT = "crossrt/cuda";

std::uint8_t quantise(double x, double lambda) {
  return static_cast<std::uint8_t>(
      std::lround(double(reference::crossrt::COST_SCALE) * (1.0 - std::exp(-x / lambda))));
}

}  // namespace

DeviceTables make_tables(const CrossRtParams& params) {
  DeviceTables t{};
  for (int a = 0; a < 256; ++a) t.ad[a] = quantise(double(a) / 255.0, double(params.lambda_ad));
  for (int h = 0; h <= 6; ++h) t.mc[h] = quantise(double(h), double(params.lambda_mc));
  return t;
}

DeviceImage<std::uint8_t> upload_u8(const ImageU8& image) {
  require(image.channels == 1, std::string(COMPONENT) + ": upload_u8 needs one channel");
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
  require(arms.channels == 2, std::string(COMPONENT) + ": upload_arms needs two channels");
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

DeviceVolume16 upload_volume(const reference::crossrt::Volume<std::uint16_t>& volume) {
  DeviceVolume16 d(volume.width, volume.height, volume.range, COMPONENT, "a test volume");
  copy_to_device(d.get(), volume.data.data(), volume.data.size() * sizeof(std::uint16_t));
  return d;
}

reference::crossrt::Volume<std::uint16_t> download_volume(const DeviceVolume16& volume) {
  reference::crossrt::Volume<std::uint16_t> h(volume.width, volume.height, volume.range);
  CUDA_CHECK(cudaMemcpy(h.data.data(), volume.get(), h.data.size() * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
  return h;
}

ImageF download_f32(const DeviceImage<float>& image) {
  ImageF h(image.width, image.height, 1);
  CUDA_CHECK(cudaMemcpy(h.data.data(), image.get(), image.count() * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace stereo::cu::crossrt
