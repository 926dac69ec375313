// Input images from NumPy arrays, DLPack tensors and CUDA Array Interface objects, NumPy arrays
// out, JSON to Python.

#include "python/arrays.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "python/cuda_io.h"
#include "python/dlpack.h"

namespace stereo::python {
namespace {

constexpr ErrorKind INPUT = ErrorKind::invalid_argument;
/// CUDA's legacy default stream as DLPack's `stream` argument, the CUDA Array Interface's
/// `stream` and ImageView::stream write it (the value of CUDA's cudaStreamLegacy handle).
constexpr std::uintptr_t LEGACY_DEFAULT_STREAM = 1;

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// Shape and byte strides (the element is one byte) into `in`, after the checks every source shares.
void set_geometry(Pixels& in, const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
                  const std::string& component, const char* which) {
  // The messages are made only on failure (lambdas): a call reads two images, and building the
  // text of every check each time cost microseconds (measured: ~10 us of a call's binding work).
  const auto name = [&] { return component + ": " + which; };
  require(shape.size() == 2 || shape.size() == 3,
          [&] { return name() + " must be H x W (grey) or H x W x 3 (RGB), got shape " + shape_text(shape); }, INPUT);
  for (const std::int64_t n : shape)
    require(n >= 0 && n <= INT_MAX,
            [&] { return name() + " has shape " + shape_text(shape) + ", beyond 2^31 - 1 in a dimension"; }, INPUT);
  in.height = int(shape[0]);
  in.width = int(shape[1]);
  in.channels = shape.size() == 3 ? int(shape[2]) : 1;
  in.row_stride = std::ptrdiff_t(strides[0]);
  in.pixel_stride = std::ptrdiff_t(strides[1]);
  in.channel_stride = shape.size() == 3 ? std::ptrdiff_t(strides[2]) : 1;
  // A dimension of one element has no step (NumPy and PyTorch write any, 0 after a newaxis):
  // the interleaved one, so such an array reads in place like its dense twin.
  if (in.channels == 1) in.channel_stride = 1;
  if (in.width == 1) in.pixel_stride = in.channels * in.channel_stride;
  if (in.height == 1) in.row_stride = std::ptrdiff_t(in.width) * in.channels;
}

InputImage from_numpy(const py::array& array, const std::string& component, const char* which) {
  require(array.dtype().kind() == 'u' && array.itemsize() == 1, [&] {
    return component + ": " + which + " must be uint8, got " + std::string(py::str(array.dtype()));
  }, INPUT);
  std::vector<std::int64_t> shape, strides;
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    shape.push_back(std::int64_t(array.shape(i)));
    strides.push_back(std::int64_t(array.strides(i)));
  }
  InputImage in;
  set_geometry(in, shape, strides, component, which);
  in.data = static_cast<const std::uint8_t*>(array.data());
  in.source = "numpy";
  in.owner = array;
  return in;
}

std::string dlpack_dtype_text(const DLDataType& t) {
  const char* code = t.code == kDLInt       ? "int"
                     : t.code == kDLUInt    ? "uint"
                     : t.code == kDLFloat   ? "float"
                     : t.code == kDLBfloat  ? "bfloat"
                     : t.code == kDLComplex ? "complex"
                     : t.code == kDLBool    ? "bool"
                                            : "code ";
  std::string s = std::string(code) + std::to_string(t.bits);
  if (t.code == kDLBool) s = "bool";
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

// One call of an input's producer (__dlpack__ and the like), its wall time added to `ms`: the
// overhead benchmark tells the producer's time from the binding's (InputImage::producer_ms).
template <class Call>
auto producer_call(double& ms, const Call& call) {
  const auto start = std::chrono::steady_clock::now();
  auto result = call();
  ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// The DLPack protocol: the producer makes a capsule named "dltensor"; a consumer that takes
// the tensor renames it "used_dltensor" (so the capsule's destructor leaves it alone) and
// calls the tensor's deleter when done.
InputImage from_dlpack(py::handle object, const std::string& component, const char* which) {
  const std::string name = component + ": " + which;
  double producer_ms = 0.0;
  const auto timed = [&](auto&& call) { return producer_call(producer_ms, call); };
  std::int32_t device_type = kDLCPU, device_id = 0;
  if (py::hasattr(object, "__dlpack_device__")) {
    const py::tuple device = timed([&] { return py::tuple(object.attr("__dlpack_device__")()); });
    device_type = device[0].cast<std::int32_t>();
    device_id = device[1].cast<std::int32_t>();
  }
  const bool cuda = device_type == kDLCUDA || device_type == kDLCUDAManaged;
  require(cuda || device_type == kDLCPU || device_type == kDLCUDAHost, [&] {
    return name + " is on DLPack device type " + std::to_string(device_type) +
           "; the module reads host (CPU) memory, or CUDA memory on a cuda backend";
  }, INPUT);
  // stream=1: the producer orders its pending writes before CUDA's legacy default stream,
  // which the view names, so the matcher's stream waits for them there (an event, not the host).
  const py::object capsule = timed([&] {
    return cuda ? object.attr("__dlpack__")(py::arg("stream") = LEGACY_DEFAULT_STREAM) : object.attr("__dlpack__")();
  });
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (managed == nullptr) throw py::error_already_set();
  if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) throw py::error_already_set();
  InputImage in;
  in.dlpack = std::shared_ptr<void>(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter != nullptr) m->deleter(m);
  });
  const DLTensor& t = managed->dl_tensor;
  require(t.dtype.code == kDLUInt && t.dtype.bits == 8 && t.dtype.lanes == 1,
          [&] { return name + " must be uint8, got " + dlpack_dtype_text(t.dtype); }, INPUT);
  std::vector<std::int64_t> shape(t.shape, t.shape + std::max(t.ndim, 0)), strides(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;)
    strides[i] = t.strides != nullptr ? t.strides[i] : (i + 1 < shape.size() ? strides[i + 1] * shape[i + 1] : 1);
  set_geometry(in, shape, strides, component, which);
  in.data = static_cast<const std::uint8_t*>(t.data) + t.byte_offset;
  in.residence = cuda ? Residence::cuda : Residence::host;
  in.device = int(device_id);
  in.stream = cuda ? LEGACY_DEFAULT_STREAM : 0;
  in.source = "dlpack";
  in.owner = py::reinterpret_borrow<py::object>(object);
  in.producer_ms = producer_ms;
  return in;
}

// The CUDA Array Interface (version 3, Numba's spec; CuPy, PyTorch and Numba export it):
// shape, typestr, data = (pointer, read-only), strides in bytes or None (C order), an optional
// mask (refused) and an optional stream the consumer must order its reads after.
InputImage from_cuda_array_interface(py::handle object, const std::string& component, const char* which) {
  const std::string name = component + ": " + which;
  double producer_ms = 0.0;
  const py::dict cai = producer_call(producer_ms, [&] { return py::dict(object.attr("__cuda_array_interface__")); });
  const std::string typestr = cai["typestr"].cast<std::string>();
  require(typestr.size() == 3 && typestr[1] == 'u' && typestr[2] == '1', [&] {
    return name + " must be uint8, got " +
           py::str(py::module_::import("numpy").attr("dtype")(typestr)).cast<std::string>();
  }, INPUT);
  require(!cai.contains("mask") || cai["mask"].is_none(),
          [&] { return name + " is a masked CUDA array; give its data"; }, INPUT);
  std::vector<std::int64_t> shape, strides;
  for (const py::handle n : cai["shape"].cast<py::tuple>()) shape.push_back(n.cast<std::int64_t>());
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    for (const py::handle n : cai["strides"].cast<py::tuple>()) strides.push_back(n.cast<std::int64_t>());
  } else {
    strides.assign(shape.size(), 1);
    for (std::size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  }
  InputImage in;
  set_geometry(in, shape, strides, component, which);
  const auto pointer = cai["data"].cast<py::tuple>()[0].cast<std::uintptr_t>();
  in.data = reinterpret_cast<const std::uint8_t*>(pointer);
  in.residence = Residence::cuda;
  in.device = in.bytes() == 0 ? 0 : cuda_device_of(in.data, name);
  // No stream (or None): the producer says no ordering is needed; 0 names the default stream.
  if (cai.contains("stream") && !cai["stream"].is_none()) in.stream = cai["stream"].cast<std::uintptr_t>();
  in.source = "cuda_array_interface";
  in.producer_ms = producer_ms;
  in.owner = py::reinterpret_borrow<py::object>(object);
  return in;
}

}  // namespace

std::string Pixels::layout() const {
  const std::ptrdiff_t row = std::ptrdiff_t(width) * channels;
  if (row_pitched() && row_stride == row) return "contiguous";
  if (row_pitched()) return "row pitch " + std::to_string(row_stride);
  return "strided (" + std::to_string(row_stride) + ", " + std::to_string(pixel_stride) + ", " +
         std::to_string(channel_stride) + " bytes)";
}

InputImage read_input(py::handle object, const std::string& component, const char* which) {
  if (py::isinstance<py::array>(object)) return from_numpy(py::reinterpret_borrow<py::array>(object), component, which);
  if (py::hasattr(object, "__dlpack__")) return from_dlpack(object, component, which);
  if (py::hasattr(object, "__cuda_array_interface__")) return from_cuda_array_interface(object, component, which);
  // Lists, PIL images and other array-likes: whatever numpy makes of them (which may copy).
  const py::object array = py::module_::import("numpy").attr("asarray")(object);
  InputImage in = from_numpy(py::reinterpret_borrow<py::array>(array), component, which);
  in.source = "numpy.asarray";
  return in;
}

ImageU8 to_image(const Pixels& in) {
  ImageU8 image(in.width, in.height, in.channels);
  const std::size_t row_bytes = std::size_t(in.width) * std::size_t(in.channels);
  if (in.row_pitched()) {
    for (int y = 0; y < in.height; ++y)
      if (row_bytes > 0) std::memcpy(image.row(y), in.data + std::ptrdiff_t(y) * in.row_stride, row_bytes);
    return image;
  }
  // Any other strides (Fortran order, a channel-first tensor's transpose, negative steps). Where
  // a row's step is the short one (Fortran order: the next pixel is a whole column away), in
  // tiles of 32 x 32 pixels walked down their columns, so the source is read along its short
  // step and the tile's destination rows stay in cache; else row by row. The channel count is
  // a constant of the loop (grey or RGB). Pixel by pixel along rows, a Fortran-order 1080p image
  // took 13-15 ms.
  const auto gather = [&](auto channels_constant) {
    // C: the channel count as a constant, 0 for any other count (the validation that follows
    // refuses it with the core's line; it is copied as it is until then).
    constexpr int C = decltype(channels_constant)::value;
    const int channels = C > 0 ? C : in.channels;
    const std::ptrdiff_t cs = in.channel_stride, ps = in.pixel_stride, rs = in.row_stride;
    const auto pixel = [&](int x, int y) {
      const std::uint8_t* src = in.data + std::ptrdiff_t(y) * rs + std::ptrdiff_t(x) * ps;
      std::uint8_t* dst = image.row(y) + std::ptrdiff_t(x) * channels;
      for (int c = 0; c < (C > 0 ? C : channels); ++c) dst[c] = src[c * cs];
    };
    if (std::abs(ps) <= std::abs(rs)) {
      for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) pixel(x, y);
      return;
    }
    constexpr int TILE = 32;
    for (int y0 = 0; y0 < in.height; y0 += TILE)
      for (int x0 = 0; x0 < in.width; x0 += TILE)
        for (int x = x0; x < std::min(in.width, x0 + TILE); ++x)
          for (int y = y0; y < std::min(in.height, y0 + TILE); ++y) pixel(x, y);
  };
  if (in.channels == 3)
    gather(std::integral_constant<int, 3>{});
  else if (in.channels == 1)
    gather(std::integral_constant<int, 1>{});
  else
    gather(std::integral_constant<int, 0>{});
  return image;
}

namespace {
template <class T>
py::array owning_array(std::vector<T>&& data, std::vector<py::ssize_t> shape) {
  auto* held = new std::vector<T>(std::move(data));
  const py::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(std::move(shape), held->data(), owner);
}
}  // namespace

py::array to_numpy(ImageF&& image) {
  require(image.channels == 1, "disparity map: expected one channel, got " + std::to_string(image.channels));
  return owning_array(std::move(image.data), {image.height, image.width});
}

py::array to_numpy(ImageU8&& image) {
  if (image.channels == 1) return owning_array(std::move(image.data), {image.height, image.width});
  return owning_array(std::move(image.data), {image.height, image.width, image.channels});
}

ImageF to_image_f(py::handle object, const std::string& what) {
  const auto array = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(object);
  if (!array) {
    PyErr_Clear();
    throw Error(what + " must be a 2-D array of numbers, got " + std::string(py::str(py::type::of(object))), INPUT);
  }
  std::vector<std::int64_t> shape;
  for (py::ssize_t i = 0; i < array.ndim(); ++i) shape.push_back(std::int64_t(array.shape(i)));
  require(array.ndim() == 2, what + " must be 2-D (H x W), got shape " + shape_text(shape), INPUT);
  ImageF out(int(array.shape(1)), int(array.shape(0)), 1);
  if (!out.data.empty()) std::memcpy(out.data.data(), array.data(), out.data.size() * sizeof(float));
  return out;
}

py::object to_python(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(value.get<double>());
    case nlohmann::json::value_t::string: return py::str(value.get<std::string>());
    case nlohmann::json::value_t::array: {
      py::list list;
      for (const auto& v : value) list.append(to_python(v));
      return list;
    }
    case nlohmann::json::value_t::object: {
      py::dict dict;
      for (const auto& [k, v] : value.items()) dict[py::str(k)] = to_python(v);
      return dict;
    }
    default: return py::none();
  }
}

}  // namespace stereo::python
