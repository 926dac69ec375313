#include "cuda/copy_ceiling.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "cuda/common.h"

namespace stereo::cu {

double measure_copy_gb_s(std::size_t bytes, int repeat, cudaStream_t stream) {
  static std::mutex mutex;
  static std::map<std::pair<int, std::size_t>, double> cache;  // (device, bytes) -> GB/s
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = cache.find({device, bytes}); it != cache.end()) return it->second;

  auto src = make_device_buffer<std::uint8_t>(bytes, "copy ceiling", "the copy source");
  auto dst = make_device_buffer<std::uint8_t>(bytes, "copy ceiling", "the copy target");
  // Real data, not zeros (compressible memory can copy faster than what stages see).
  CUDA_CHECK(cudaMemsetAsync(src.get(), 0x5A, bytes, stream));
  const Event start = make_event(), stop = make_event();
  std::vector<float> ms;
  for (int i = 0; i <= repeat; ++i) {
    CUDA_CHECK(cudaEventRecord(start.get(), stream));
    CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    if (i > 0) ms.push_back(elapsed_ms(start, stop));  // the first copy is the warm-up
  }
  std::sort(ms.begin(), ms.end());
  const double median_ms = ms[ms.size() / 2];
  const double gb_s = 2.0 * double(bytes) / (median_ms * 1e-3) / 1e9;
  cache[{device, bytes}] = gb_s;
  return gb_s;
}

}  // namespace stereo::cu
