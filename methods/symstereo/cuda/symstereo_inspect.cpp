#include "methods/symstereo/cuda/symstereo_inspect.h"

#include <cstddef>

#include "cuda/shared/inspect_reads.h"

namespace stereo::cu::symstereo {
namespace {

// `rows` rows of `width` floats, `pitch` floats apart, from device memory.
ImageF rows_of(const float* d_first, int width, int rows, int pitch, int ordinal) {
  const DeviceScope scope(ordinal);
  CUDA_CHECK(cudaDeviceSynchronize());
  ImageF out(width, rows, 1);
  CUDA_CHECK(cudaMemcpy2D(out.data.data(), std::size_t(width) * sizeof(float), d_first,
                          std::size_t(pitch) * sizeof(float), std::size_t(width) * sizeof(float), std::size_t(rows),
                          cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace

void show_frame(PassTable& table, const KeptFrame& f, int ordinal) {
  table.clear();
  const int w = f.disparity->width, h = f.disparity->height;
  const char* side[2] = {"left", "right"};
  for (int v = 0; v < 2; ++v) {
    const float* first = f.d_grey + std::size_t(v) * std::size_t(h) * std::size_t(f.padded);
    table.add(image_layout(std::string("flip + grey.") + side[v],
                            v == 0 ? "the float grey image (step 4)" : "the float grey image, mirrored (step 4)",
                            "float device rows, padded", w, h),
               [first, w, h, padded = f.padded, ordinal](int) { return rows_of(first, w, h, padded, ordinal); });
  }
  const float* dsi = f.d_dsi;
  table.add(level_layout("energy", "the joint energy E = E_A x E_S (Mota et al. eq. 7), higher is better",
                          "float device volume, level slowest", w, h, f.range),
             [dsi, w, h, ordinal](int k) {
               return rows_of(dsi + std::size_t(k) * std::size_t(w) * std::size_t(h), w, h, w, ordinal);
             });
  const DeviceImage<float>* map = f.disparity;
  table.add(image_layout("wta", "the winner-takes-all of the energy, disparity in pixels", "float device image", w, h),
             [map, ordinal](int) { return host_image(*map, ordinal); });
}

}  // namespace stereo::cu::symstereo
