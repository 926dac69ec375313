#pragma once
/// \file python/dlpack.h
/// The DLPack exchange structs (DLPack 0.x ABI, as dmlc/dlpack's include/dlpack/dlpack.h
/// defines them and as `__dlpack__` capsules named "dltensor" carry them): NumPy >= 1.22,
/// PyTorch and CuPy export and import these. Declared here because the header is no Debian
/// package; only the fields the module reads or fills.

#include <cstdint>

extern "C" {

/// DLDeviceType values the module meets.
enum : std::int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
/// DLDataTypeCode values.
enum : std::uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };

struct DLDevice {
  std::int32_t device_type;  // DLDeviceType (a C enum: int-sized)
  std::int32_t device_id;
};

struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null = compact row-major
  std::uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

}  // extern "C"
