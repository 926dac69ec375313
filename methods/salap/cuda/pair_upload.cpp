// stages.h upload_pair: a host pair on the device, packed, for the stage tests and set-up. The
// images go up by the CUDA frame's upload (cuda/matcher_frame.h), the one path every image of
// salap/cuda takes to the device (the matcher's frames: salap_submit.cpp).

#include "cuda/matcher_frame.h"
#include "methods/salap/cuda/stages.h"

namespace stereo::cu::salap {

DevicePair upload_pair(const ImageU8& left, const ImageU8& right, const SalapParams& params) {
  require(left.width == right.width && left.height == right.height && left.channels == right.channels,
          "salap/cuda: left and right images differ in size or channels");
  DevicePair pair;
  pair.width = left.width;
  pair.height = left.height;
  pair.code = pixel_code(params, left.channels);
  const std::size_t pixels = left.pixel_count();
  pair.left = make_device_buffer<std::uint32_t>(pixels, "salap/cuda", "the packed left image");
  pair.right = make_device_buffer<std::uint32_t>(pixels, "salap/cuda", "the packed right image");
  InputPair raw;
  raw.width = left.width;
  raw.height = left.height;
  raw.channels = left.channels;
  raw.raw_left = make_device_buffer<std::uint8_t>(left.data.size(), "salap/cuda", "the left image");
  raw.raw_right = make_device_buffer<std::uint8_t>(right.data.size(), "salap/cuda", "the right image");
  cu::upload_pair(raw, ImageView(left), ImageView(right), nullptr);
  pack_pair(RawPair{raw.raw_left.get(), raw.raw_right.get(), pair.width, pair.height, left.channels}, pair.code,
            pair.left.get(), pair.right.get(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return pair;
}

}  // namespace stereo::cu::salap
