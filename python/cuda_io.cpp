// The module's CUDA memory (python/cuda_io.h): DeviceMemory, the dense device copy of an input
// no view expresses, and DeviceArray, the out="cuda" map, exported through DLPack and the CUDA
// Array Interface. CUDA runtime calls, with the CUDA backend's device scope and allocation
// (cuda/common.h); the image-copy counts the tests read (stereo._testing.image_copies) come
// through the library's public testing header (stereo/testing.h).

#include "python/cuda_io.h"

#include <cuda_runtime.h>

#include <Python.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/error.h"
#include "cuda/common.h"
#include "python/dlpack.h"
#include "stereo/testing.h"

namespace stereo::python {
namespace {

void check(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  throw Error("stereo: " + what + ": " + cudaGetErrorString(status),
              status == cudaErrorMemoryAllocation ? ErrorKind::out_of_memory : ErrorKind::failure);
}

using cu::DeviceScope;

/// A DLPack export of a DeviceArray: the tensor, its shape, and the Python object it keeps alive.
struct Export {
  DLManagedTensor managed{};
  std::int64_t shape[2]{};
  PyObject* owner = nullptr;  // a strong reference to the DeviceArray
};

void delete_export(DLManagedTensor* managed) {
  auto* e = static_cast<Export*>(managed->manager_ctx);
  // The consumer may call this from any thread, with or without the GIL.
  const PyGILState_STATE gil = PyGILState_Ensure();
  Py_XDECREF(e->owner);
  PyGILState_Release(gil);
  delete e;
}

void delete_unused_capsule(PyObject* capsule) {
  // Never consumed (a consumer renames it "used_dltensor" and calls the deleter itself).
  if (PyCapsule_IsValid(capsule, "dltensor") == 0) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

py::capsule export_dlpack(const py::object& self) {
  const DeviceArray& a = self.cast<const DeviceArray&>();
  auto e = std::make_unique<Export>();
  e->shape[0] = a.height();
  e->shape[1] = a.width();
  DLTensor& t = e->managed.dl_tensor;
  t.data = a.data();
  t.device = DLDevice{kDLCUDA, a.ordinal()};
  t.ndim = 2;
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = e->shape;
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 0;
  e->managed.manager_ctx = e.get();
  e->managed.deleter = delete_export;
  PyObject* capsule = PyCapsule_New(&e->managed, "dltensor", delete_unused_capsule);
  if (capsule == nullptr) throw py::error_already_set();
  e->owner = self.ptr();
  Py_INCREF(e->owner);
  e.release();  // owned by the capsule (or its consumer) from here on
  return py::reinterpret_steal<py::capsule>(capsule);
}

}  // namespace

bool cuda_built() { return true; }

DeviceMemory::DeviceMemory(std::size_t bytes, int ordinal, const char* what) : bytes_(bytes), ordinal_(ordinal) {
  if (bytes_ == 0) return;
  const DeviceScope scope(ordinal_);
  // A map per call: cudaMalloc and cudaFree (which waits for the whole device) cost ~0.2 ms at
  // 1080p, 5-10 % of a crossrt frame, so the memory comes from the device's stream-ordered pool,
  // kept (release threshold: no limit) so that the next map of the size reuses it. Allocated
  // and freed on the legacy default stream, which orders both against every blocking stream a
  // consumer (PyTorch, CuPy) uses; the synchronize makes it usable on the matcher's own stream.
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetDefaultMemPool(&pool, ordinal_) == cudaSuccess) {
    std::uint64_t keep = ~std::uint64_t{0};
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  }
  if (cudaMallocAsync(&data_, bytes_, cudaStreamLegacy) == cudaSuccess &&
      cudaStreamSynchronize(cudaStreamLegacy) == cudaSuccess) {
    pooled_ = true;
    return;
  }
  (void)cudaGetLastError();
  if (data_ != nullptr) (void)cudaFreeAsync(data_, cudaStreamLegacy);
  data_ = cu::device_alloc(bytes_, "stereo", what);  // its out-of-memory error names the size
}

DeviceMemory::~DeviceMemory() {
  if (data_ == nullptr) return;
  const DeviceScope scope(ordinal_);
  if (pooled_)
    (void)cudaFreeAsync(data_, cudaStreamLegacy);
  else
    (void)cudaFree(data_);
}

int cuda_device_of(const void* pointer, const std::string& what) {
  cudaPointerAttributes a{};
  check(cudaPointerGetAttributes(&a, pointer), what + ": cudaPointerGetAttributes");
  require(a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged,
          [&] { return what + " has a __cuda_array_interface__ whose pointer is not CUDA device memory"; },
          ErrorKind::invalid_argument);
  return a.device;
}

std::unique_ptr<DeviceMemory> gather_on_device(const Pixels& in, const std::string& what) {
  require(in.pixel_stride > 0 && in.channel_stride > 0, [&] {
    return what + " is a CUDA array with " + in.layout() +
           ": negative or zero steps are not read on the device; give a copy (tensor.contiguous(), "
           "cupy.ascontiguousarray)";
  }, ErrorKind::invalid_argument);
  auto dense = std::make_unique<DeviceMemory>(in.bytes(), in.device, "a dense copy of a CUDA input");
  if (in.bytes() == 0) return dense;
  const DeviceScope scope(in.device);
  auto* dst = static_cast<std::uint8_t*>(dense->data());
  const auto stream = reinterpret_cast<cudaStream_t>(in.stream);
  const auto channels = std::size_t(in.channels), width = std::size_t(in.width);
  const std::size_t row = width * channels;
  const auto copy = [&](std::uint8_t* d, std::size_t d_pitch, const std::uint8_t* s, std::ptrdiff_t s_pitch,
                        std::size_t bytes, std::size_t count) {
    check(cudaMemcpy2DAsync(d, d_pitch, s, std::size_t(s_pitch), bytes, count, cudaMemcpyDeviceToDevice, stream),
          what + ": the dense device copy (cudaMemcpy2DAsync)");
  };
  // The copy engine walks the steps: pixels of `channels` adjacent bytes at the column step,
  // in one call where each row continues the previous one's step, else one per row; channels
  // apart (a channel-first tensor seen channel-last) one byte at a time, per row and channel.
  if (in.channel_stride == 1 && in.pixel_stride >= in.channels) {
    if (in.row_stride == in.width * in.pixel_stride)
      copy(dst, channels, in.data, in.pixel_stride, channels, width * std::size_t(in.height));
    else
      for (int y = 0; y < in.height; ++y)
        copy(dst + std::size_t(y) * row, channels, in.data + std::ptrdiff_t(y) * in.row_stride, in.pixel_stride,
             channels, width);
  } else {
    for (int y = 0; y < in.height; ++y)
      for (int c = 0; c < in.channels; ++c)
        copy(dst + std::size_t(y) * row + std::size_t(c), channels,
             in.data + std::ptrdiff_t(y) * in.row_stride + std::ptrdiff_t(c) * in.channel_stride, in.pixel_stride, 1,
             width);
  }
  return dense;
}

py::object frame_image_copies() {
  const std::optional<testing::ImageCopies> copies = testing::image_copies();
  if (!copies) return py::none();
  const testing::ImageCopies& n = *copies;
  py::dict d;
  d["host_to_device"] = n.host_to_device;
  d["device_to_device"] = n.device_to_device;
  return d;
}

void bind_cuda_io(py::module_& m) {
  py::class_<DeviceArray>(m, "DeviceArray", R"doc(
A float32 disparity map in CUDA memory, as compute(..., out="cuda") returns it.

Hand it to PyTorch with torch.from_dlpack(a) or to CuPy with cupy.from_dlpack(a) /
cupy.asarray(a) (__cuda_array_interface__, version 3); both share its memory, which lives as
long as any of them does. The map is complete when compute() returns, so no stream needs to
wait for it. a.numpy() copies it to the host.)doc")
      .def_property_readonly("shape", [](const DeviceArray& a) { return py::make_tuple(a.height(), a.width()); },
                             "(height, width)")
      .def_property_readonly("dtype", [](const DeviceArray&) { return py::dtype::of<float>(); }, "float32")
      .def_property_readonly("device", &DeviceArray::ordinal, "the CUDA device ordinal")
      .def_property_readonly(
          "__cuda_array_interface__",
          [](const DeviceArray& a) {
            py::dict d;
            d["shape"] = py::make_tuple(a.height(), a.width());
            d["typestr"] = "<f4";
            d["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(a.data()), false);
            d["strides"] = py::none();
            d["version"] = 3;
            return d;
          })
      .def("__dlpack_device__", [](const DeviceArray& a) { return py::make_tuple(int(kDLCUDA), a.ordinal()); })
      .def(
          "__dlpack__",
          [](const py::object& self, const py::object& /*stream*/, const py::kwargs& /*more*/) {
            // The map was complete before compute() returned: any consumer stream may read it.
            return export_dlpack(self);
          },
          py::arg("stream") = py::none(),
          "A DLPack capsule of the map (no copy); the legacy, unversioned form.")
      .def(
          "numpy",
          [](const DeviceArray& a) {
            ImageF host(a.width(), a.height(), 1);
            {
              const DeviceScope scope(a.ordinal());
              check(cudaMemcpy(host.data.data(), a.data(), a.bytes(), cudaMemcpyDeviceToHost),
                    "copying the disparity map to the host");
            }
            return to_numpy(std::move(host));
          },
          "A host copy as a NumPy float32 array.")
      .def("__repr__", [](const DeviceArray& a) {
        return "<stereo.DeviceArray float32 " + std::to_string(a.height()) + "x" + std::to_string(a.width()) +
               " on cuda:" + std::to_string(a.ordinal()) + ">";
      });
}

}  // namespace stereo::python
