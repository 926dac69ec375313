// Uploads, downloads and poisoning for tests and set-up: the fp16 <-> float conversion of
// cost volumes lives here so that host code never needs cuda_fp16.h. Core types only: the
// tests convert the reference's volumes (methods/adcensus/tests/cuda_stage_util.h).

#include <cuda_fp16.h>

#include <vector>

#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {
namespace {

constexpr const char* COMPONENT = "adcensus/cuda";

}  // namespace

DeviceVolume upload_volume(int width, int height, DisparityRange range, const std::vector<float>& cells) {
  require(cells.size() == DeviceVolume::cells(width, height, range.count), [&] {
    return std::string(COMPONENT) + ": cost volume of " + std::to_string(width) + "x" + std::to_string(height) + "x" +
           std::to_string(range.count) + " holds " + std::to_string(cells.size()) + " values";
  });
  std::vector<__half> bits(cells.size());
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = __float2half_rn(cells[i]);
  DeviceVolume out(width, height, range, COMPONENT, "an uploaded cost volume");
  copy_to_device(out.get(), bits.data(), bits.size() * sizeof(__half));
  return out;
}

std::vector<float> download_cells(const DeviceVolume& volume) {
  std::vector<__half> bits(volume.count());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(bits.data(), volume.get(), bits.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) out[i] = __half2float(bits[i]);
  return out;
}

std::vector<float> round_to_half(std::vector<float> cells) {
  for (float& v : cells) v = __half2float(__float2half_rn(v));
  return cells;
}

void poison(DeviceVolume& volume) {
  CUDA_CHECK(cudaMemset(volume.get(), 0xFF, volume.count() * sizeof(std::uint16_t)));
}

DeviceImage<uchar4> upload_rgb(const ImageU8& image) {
  require(image.channels == 1 || image.channels == 3 || image.channels == 4, [&] {
    return std::string(COMPONENT) + ": images must have 1, 3 or 4 channels, got " + std::to_string(image.channels);
  });
  auto raw = make_device_buffer<std::uint8_t>(image.data.size(), COMPONENT, "an uploaded image");
  copy_to_device(raw.get(), image.data.data(), image.data.size());
  DeviceImage<uchar4> out(image.width, image.height, COMPONENT, "a packed RGB image");
  pack_rgb(raw.get(), image.width, image.height, image.channels, out);
  CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

DeviceImage<std::uint8_t> upload_u8(const ImageU8& image) {
  require(image.channels == 1, [&] {
    return std::string(COMPONENT) + ": upload_u8 takes one channel, got " + std::to_string(image.channels);
  });
  DeviceImage<std::uint8_t> out(image.width, image.height, COMPONENT, "an uploaded 8-bit image");
  copy_to_device(out.get(), image.data.data(), out.count());
  return out;
}

DeviceImage<std::uint64_t> upload_census(const Image<std::uint64_t>& image) {
  require(image.channels == 1, [&] { return std::string(COMPONENT) + ": a census image has one channel"; });
  DeviceImage<std::uint64_t> out(image.width, image.height, COMPONENT, "an uploaded census image");
  copy_to_device(out.get(), image.data.data(), out.count() * sizeof(std::uint64_t));
  return out;
}

DeviceImage<uchar4> upload_arms(const Image<std::uint8_t>& arms) {
  require(arms.channels == 4, [&] {
    return std::string(COMPONENT) + ": cross arms have 4 channels, got " + std::to_string(arms.channels);
  });
  DeviceImage<uchar4> out(arms.width, arms.height, COMPONENT, "uploaded cross arms");
  copy_to_device(out.get(), arms.data.data(), out.count() * sizeof(uchar4));
  return out;
}

ImageU8 download_u8(const DeviceImage<std::uint8_t>& image) {
  ImageU8 out(image.width, image.height, 1);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(out.data.data(), image.get(), image.count(), cudaMemcpyDeviceToHost));
  return out;
}

Image<std::uint64_t> download_census(const DeviceImage<std::uint64_t>& image) {
  Image<std::uint64_t> out(image.width, image.height, 1);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(out.data.data(), image.get(), image.count() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  return out;
}

Image<std::uint8_t> download_arms(const DeviceImage<uchar4>& arms) {
  Image<std::uint8_t> out(arms.width, arms.height, 4);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(out.data.data(), arms.get(), arms.count() * sizeof(uchar4), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace stereo::cu::adcensus
