// Host-side helpers: the weight tables (from the model's functions, methods/esaw/model.h, which
// the reference's weights evaluate too) and the synchronous float <-> half transfers of the
// tests (in the planes' layout; the tests convert the reference's volumes).

#include <cuda_fp16.h>

#include <string>
#include <vector>

#include "methods/esaw/cuda/stages.h"

namespace stereo::cu::esaw {

WeightTable weight_table(float gamma_c, float gamma_p, int step, const float* lab8_colour) {
  WeightTable table{};
  // max_rgb: the colour factor of the largest channel difference (an integer).
  for (int dc = 0; dc < 256; ++dc) table.colour[dc] = stereo::esaw::colour_factor(float(dc), gamma_c);
  table.spatial = stereo::esaw::spatial_factor(step, gamma_p);
  table.lab8_colour = lab8_colour;
  return table;
}

std::vector<float> lab8_colour_factors(float gamma_c) {
  std::vector<float> factors(LAB8_SQUARED_DISTANCES);
  for (int d = 0; d < LAB8_SQUARED_DISTANCES; ++d)
    factors[std::size_t(d)] = stereo::esaw::colour_factor(stereo::esaw::lab8_distance(d), gamma_c);
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

DeviceVolume upload_volume(int width, int height, int planes, const std::vector<float>& cells) {
  require(cells.size() == DeviceVolume::cells(width, height, planes), [&] {
    return "esaw/cuda: upload_volume: " + std::to_string(cells.size()) + " values for " + std::to_string(width) +
           "x" + std::to_string(height) + "x" + std::to_string(planes);
  });
  DeviceVolume out(width, height, planes, "esaw/cuda", "an uploaded volume");
  std::vector<__half> host(out.data ? cells.size() : 0);
  for (std::size_t i = 0; i < host.size(); ++i) {
    const float v = cells[i];
    const __half h = __float2half_rn(v);
    require(__half2float(h) == v,
            [&] { return "esaw/cuda: upload_volume: " + std::to_string(v) + " is not a half value"; });
    host[i] = h;
  }
  copy_to_device(out.data.get(), host.data(), host.size() * sizeof(__half));
  return out;
}

std::vector<float> download_cells(const DeviceVolume& volume) {
  std::vector<__half> host(DeviceVolume::cells(volume.width, volume.height, volume.planes));
  CUDA_CHECK(cudaMemcpy(host.data(), volume.data.get(), host.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  std::vector<float> out(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) out[i] = __half2float(host[i]);
  return out;
}

}  // namespace stereo::cu::esaw
