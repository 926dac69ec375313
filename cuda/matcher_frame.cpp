#include "cuda/matcher_frame.h"

#include <atomic>

#include "cuda/copy_ceiling.h"
#include "cuda/nvml_energy.h"

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

EnergyReading CudaMatcherBase::energy_counter() { return read_energy_mj(ordinal_); }

namespace {

std::atomic<std::uint64_t> host_to_device_copies{0};
std::atomic<std::uint64_t> device_to_device_copies{0};

/// Device memory of device `ordinal`, or the reason it is not.
void require_device_pointer(const void* p, int ordinal, const std::string& component, const char* what) {
  cudaPointerAttributes a{};
  CUDA_CHECK(cudaPointerGetAttributes(&a, p));
  require(a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged, [&] {
    return component + ": " + what + " is marked as CUDA memory but is " +
           (a.type == cudaMemoryTypeHost ? std::string("page-locked host memory") : std::string("not CUDA memory")) +
           " (pass it as a host view)";
  });
  require(a.device == ordinal, [&] {
    return component + ": " + what + " is on CUDA device " + std::to_string(a.device) + ", the matcher runs on device " +
           std::to_string(ordinal);
  });
}

}  // namespace

void CudaMatcherBase::accept_views(const ImageView& left, const ImageView& right, cudaStream_t s) {
  if (left.memory != Memory::cuda) return;
  require(left.device == ordinal_, [&] {
    return component_ + ": the views are on CUDA device " + std::to_string(left.device) + ", the matcher runs on device " +
           std::to_string(ordinal_) + " (--device / STEREO_DEVICE)";
  });
  require_device_pointer(left.data, ordinal_, component_, "the left view");
  require_device_pointer(right.data, ordinal_, component_, "the right view");
  // The caller's writes may still be queued on its stream; the wait is on the device, so the
  // host returns at once and nothing is counted as upload.
  if (!producer_) producer_ = make_event();
  // cudaStreamWaitEvent takes the event as recorded at the call, so one event serves both.
  const auto wait_for = [&](std::uintptr_t producer) {
    CUDA_CHECK(cudaEventRecord(producer_.get(), reinterpret_cast<cudaStream_t>(producer)));
    CUDA_CHECK(cudaStreamWaitEvent(s, producer_.get(), 0));
  };
  wait_for(left.stream);
  if (right.stream != left.stream) wait_for(right.stream);
}

void CudaMatcherBase::accept_output(const DisparityView& out) const {
  require(out.device == ordinal_, [&] {
    return component_ + ": the disparity view is on CUDA device " + std::to_string(out.device) +
           ", the matcher runs on device " + std::to_string(ordinal_);
  });
  require_device_pointer(out.data, ordinal_, component_, "the disparity view");
}

void input_copy(std::uint8_t* d_dst, const ImageView& image, cudaStream_t stream) {
  const bool device = image.memory == Memory::cuda;
  const cudaMemcpyKind kind = device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
  const std::size_t row = image.row_bytes();
  if (image.dense())
    CUDA_CHECK(cudaMemcpyAsync(d_dst, image.data, row * static_cast<std::size_t>(image.height), kind, stream));
  else
    CUDA_CHECK(cudaMemcpy2DAsync(d_dst, row, image.data, image.pitch, row, static_cast<std::size_t>(image.height), kind,
                                 stream));
  testing::count_image_copy(image.memory);
}

void upload_pair(InputPair& inputs, const ImageView& left, const ImageView& right, cudaStream_t stream) {
  input_copy(inputs.raw_left.get(), left, stream);
  input_copy(inputs.raw_right.get(), right, stream);
}

void upload_rows(InputPair& inputs, const ImageView& left, const ImageView& right, RowSpan rows,
                 const Staging* staging, cudaStream_t stream) {
  const auto fits = [&](const ImageView& image) {
    return image.width == inputs.width && image.channels == inputs.channels && rows.end <= image.height;
  };
  require(fits(left) && fits(right) && rows.first >= 0 && rows.first <= rows.end && rows.end <= inputs.height, [&] {
    return "cuda upload: rows " + std::to_string(rows.first) + ".." + std::to_string(rows.end) + " of " +
           std::to_string(left.width) + "x" + std::to_string(left.height) + "x" + std::to_string(left.channels) +
           " views into " + std::to_string(inputs.width) + "x" + std::to_string(inputs.height) + "x" +
           std::to_string(inputs.channels) + " images";
  });
  const std::size_t row_bytes = left.row_bytes();
  const std::size_t offset = static_cast<std::size_t>(rows.first) * row_bytes;
  if (staging == nullptr || left.memory == Memory::cuda || right.memory == Memory::cuda) {
    const auto rows_of = [&](const ImageView& image) {
      ImageView part = image;
      part.data = image.row(rows.first);
      part.height = rows.end - rows.first;
      return part;
    };
    input_copy(inputs.raw_left.get() + offset, rows_of(left), stream);
    input_copy(inputs.raw_right.get() + offset, rows_of(right), stream);
    return;
  }
  const std::size_t bytes = static_cast<std::size_t>(rows.end - rows.first) * row_bytes;
  staged_upload({{inputs.raw_left.get() + offset, left.row(rows.first), bytes, row_bytes, left.pitch},
                 {inputs.raw_right.get() + offset, right.row(rows.first), bytes, row_bytes, right.pitch}},
                staging->buffer, stream, staging->pool);
  testing::count_image_copy(Memory::host);
  testing::count_image_copy(Memory::host);
}

void read_back(const DeviceImage<float>& map, ImageF& out, cudaStream_t stream) {
  out = ImageF(map.width, map.height, 1);
  CUDA_CHECK(cudaMemcpyAsync(out.data.data(), map.get(), map.count() * sizeof(float), cudaMemcpyDeviceToHost, stream));
}

void read_back(const float* d_map, int width, int height, const DisparityView& out, cudaStream_t stream) {
  require(out.width == width && out.height == height, [&] {
    return "cuda read-back: a " + std::to_string(width) + "x" + std::to_string(height) + " map into a " +
           std::to_string(out.width) + "x" + std::to_string(out.height) + " view";
  });
  const cudaMemcpyKind kind = out.memory == Memory::cuda ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
  const std::size_t row = static_cast<std::size_t>(width) * sizeof(float);
  CUDA_CHECK(cudaMemcpy2DAsync(out.data, out.pitch, d_map, row, row, static_cast<std::size_t>(height), kind, stream));
}

namespace testing {
ImageCopies image_copies() { return ImageCopies{host_to_device_copies.load(), device_to_device_copies.load()}; }
void count_image_copy(Memory from) {
  (from == Memory::cuda ? device_to_device_copies : host_to_device_copies).fetch_add(1);
}
}  // namespace testing

}  // namespace stereo::cu
