// CUDA-resident inputs and results (python/cuda_io.h): the device-to-host copy of a DLPack
// input and DeviceArray, the out="cuda" result, exported through DLPack and the CUDA Array
// Interface. Plain CUDA runtime calls: the module sits above the backends and includes none.

#include "python/cuda_io.h"

#include <cuda_runtime.h>

#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "python/dlpack.h"

namespace stereo::python {
namespace {

std::string mib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", double(bytes) / (1024.0 * 1024.0));
  return text;
}

void check(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  throw Error("stereo: " + what + ": " + cudaGetErrorString(status),
              status == cudaErrorMemoryAllocation ? ErrorKind::out_of_memory : ErrorKind::failure);
}

/// Makes `ordinal` current for a scope and restores the caller's device after.
class DeviceScope {
 public:
  explicit DeviceScope(int ordinal) : ordinal_(ordinal) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != ordinal_) check(cudaSetDevice(ordinal_), "cudaSetDevice(" + std::to_string(ordinal_) + ")");
  }
  ~DeviceScope() {
    if (previous_ != ordinal_) (void)cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int ordinal_ = 0;
  int previous_ = 0;
};

/// A float32 height x width map in the memory of one CUDA device, owned.
class DeviceArray {
 public:
  DeviceArray(int height, int width, int ordinal) : height_(height), width_(width), ordinal_(ordinal) {
    const DeviceScope scope(ordinal_);
    const cudaError_t status = cudaMalloc(&data_, bytes());
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw Error("stereo: out of GPU memory allocating " + mib(bytes()) + " MiB for the disparity map (out='cuda')",
                  ErrorKind::out_of_memory);
    }
    check(status, "cudaMalloc of the disparity map");
  }
  ~DeviceArray() {
    if (data_ != nullptr) (void)cudaFree(data_);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  [[nodiscard]] std::size_t bytes() const { return std::size_t(height_) * std::size_t(width_) * sizeof(float); }
  [[nodiscard]] void* data() const { return data_; }
  [[nodiscard]] int height() const { return height_; }
  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int ordinal() const { return ordinal_; }

 private:
  int height_, width_, ordinal_;
  void* data_ = nullptr;
};

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

ImageU8 download_input(const InputImage& in, InputTransfer& transfer) {
  ImageU8 image(in.width, in.height, in.channels);
  if (in.bytes() == 0) return image;
  const DeviceScope scope(in.device);
  const std::size_t row = std::size_t(in.width) * std::size_t(in.channels);
  if (in.row_pitched()) {
    check(cudaMemcpy2D(image.data.data(), row, in.data, std::size_t(in.row_stride), row, std::size_t(in.height),
                       cudaMemcpyDeviceToHost),
          "copying a CUDA-resident input to the host");
    transfer.device_to_host_bytes += in.bytes();
    return image;
  }
  // Any other layout: the bytes the strides span, then a gather on the host.
  std::ptrdiff_t lo = 0, hi = 0;
  for (const auto& [n, step] : {std::pair{in.height, in.row_stride}, std::pair{in.width, in.pixel_stride},
                               std::pair{in.channels, in.channel_stride}}) {
    const std::ptrdiff_t reach = std::ptrdiff_t(n - 1) * step;
    (reach < 0 ? lo : hi) += reach;
  }
  std::vector<std::uint8_t> span(std::size_t(hi - lo + 1));
  check(cudaMemcpy(span.data(), in.data + lo, span.size(), cudaMemcpyDeviceToHost),
        "copying a CUDA-resident input to the host");
  transfer.device_to_host_bytes += span.size();
  Pixels host = in;  // the geometry alone: no Python reference is copied without the GIL
  host.data = span.data() - lo;
  image = to_image(host);
  transfer.host_copy_bytes += in.bytes();
  return image;
}

py::object device_result(ImageF&& map, int ordinal, InputTransfer& transfer) {
  auto array = std::make_unique<DeviceArray>(map.height, map.width, ordinal);
  {
    const DeviceScope scope(ordinal);
    check(cudaMemcpy(array->data(), map.data.data(), array->bytes(), cudaMemcpyHostToDevice),
          "copying the disparity map to the device");
  }
  transfer.host_to_device_bytes += array->bytes();
  return py::cast(std::move(array));
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
