#include "cuda/matcher_frame.h"

#include "cuda/copy_ceiling.h"

namespace stereo::cu {

nlohmann::json CudaMatcherBase::params() const {
  nlohmann::json out = bound_;
  out.update(facts());
  return out;
}

void CudaMatcherBase::open_device(nlohmann::json bound) {
  bound_ = std::move(bound);
  ordinal_ = select_device(component_);
  device_info_ = device_info_json(ordinal_);
  device_ = device_info_.at("name").get<std::string>();
}

cudaStream_t CudaMatcherBase::stream() {
  if (!stream_) stream_ = make_stream();
  return stream_.get();
}

std::optional<MemoryStats> CudaMatcherBase::memory_stats(int width, int height, DisparityRange range) {
  const double pixels = double(width) * double(height);
  std::optional<StageBytes> bytes = stage_bytes(ProblemSize{width, height, range, pixels, pixels * double(range.count)});
  if (!bytes) return std::nullopt;
  const DeviceScope device_scope(ordinal_);
  MemoryStats m;
  m.stage_bytes = std::move(*bytes);
  m.copy_gb_s = measure_copy_gb_s(std::size_t(512) << 20, 9, stream());
  return m;
}

void upload_pair(InputPair& inputs, const ImageU8& left, const ImageU8& right, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(inputs.raw_left.get(), left.data.data(), left.data.size(), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(
      cudaMemcpyAsync(inputs.raw_right.get(), right.data.data(), right.data.size(), cudaMemcpyHostToDevice, stream));
}

void read_back(const DeviceImage<float>& map, ImageF& out, cudaStream_t stream) {
  out = ImageF(map.width, map.height, 1);
  CUDA_CHECK(cudaMemcpyAsync(out.data.data(), map.get(), map.count() * sizeof(float), cudaMemcpyDeviceToHost, stream));
}

}  // namespace stereo::cu
