// Host-side helpers: the weight tables (from the reference's own functions) and the
// synchronous volume transfers the tests use (disparity-fastest <-> planes, float <-> half).

#include <cuda_fp16.h>

#include <cmath>
#include <vector>

#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {

WeightTable weight_table(float gamma_c, float gamma_p, int step, const float* lab8_colour) {
  WeightTable table{};
  // reference/esaw.cpp sample_weights: colour_factor of the largest channel difference (an
  // integer), and the same float expression for the spatial factor, evaluated by the same libm.
  for (int dc = 0; dc < 256; ++dc) table.colour[dc] = reference::colour_factor(float(dc), gamma_c);
  table.spatial = std::exp(-float(step) / gamma_p);
  table.lab8_colour = lab8_colour;
  return table;
}

std::vector<float> lab8_colour_factors(float gamma_c) {
  std::vector<float> factors(LAB8_SQUARED_DISTANCES);
  for (int d = 0; d < LAB8_SQUARED_DISTANCES; ++d)
    factors[std::size_t(d)] = reference::colour_factor(reference::lab8_distance(d), gamma_c);
  return factors;
}

DeviceBuffer<float> lab8_colour_table(float gamma_c, const std::string& component) {
  const std::vector<float> factors = lab8_colour_factors(gamma_c);
  auto table = make_device_buffer<float>(factors.size(), component, "the lab8 colour factors");
  // Read by the matcher's kernels on a non-blocking stream: the copy must have landed (without
  // the wait, esaw/esmp maps differed from run to run under GPU load, 20 of 117 TwoThreads runs).
  copy_to_device(table.get(), factors.data(), factors.size() * sizeof(float));
  return table;
}

DeviceVolume upload_volume(const reference::CostVolume& volume) {
  DeviceVolume out(volume.width, volume.height, volume.range.count, "esaw/cuda", "an uploaded volume");
  std::vector<__half> host(out.data ? DeviceVolume::cells(volume.width, volume.height, volume.range.count) : 0);
  const std::size_t plane = out.plane_cells();
  for (int y = 0; y < volume.height; ++y)
    for (int x = 0; x < volume.width; ++x)
      for (int k = 0; k < volume.range.count; ++k) {
        const float v = volume.at(x, y, k);
        const __half h = __float2half_rn(v);
        require(__half2float(h) == v, "esaw/cuda: upload_volume: " + std::to_string(v) + " is not a half value");
        host[std::size_t(k) * plane + std::size_t(y) * std::size_t(volume.width) + std::size_t(x)] = h;
      }
  copy_to_device(out.data.get(), host.data(), host.size() * sizeof(__half));
  return out;
}

reference::CostVolume download_volume(const DeviceVolume& volume, DisparityRange range) {
  require(range.count == volume.planes, "esaw/cuda: download_volume: range has " + std::to_string(range.count) +
                                            " levels, the volume " + std::to_string(volume.planes) + " planes");
  std::vector<__half> host(DeviceVolume::cells(volume.width, volume.height, volume.planes));
  CUDA_CHECK(cudaMemcpy(host.data(), volume.data.get(), host.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  reference::CostVolume out(volume.width, volume.height, range);
  const std::size_t plane = volume.plane_cells();
  for (int y = 0; y < volume.height; ++y)
    for (int x = 0; x < volume.width; ++x)
      for (int k = 0; k < volume.planes; ++k)
        out.at(x, y, k) =
            __half2float(host[std::size_t(k) * plane + std::size_t(y) * std::size_t(volume.width) + std::size_t(x)]);
  return out;
}

}  // namespace stereo::cu::esaw
