#pragma once
/// \file cuda/cufft_plan.h
/// cuFFT behind RAII: CUFFT_CHECK (throws stereo::Error with the cufftResult's name) and
/// CufftPlan, a batched 1-D plan that owns its handle and its work area. The work area is
/// allocated through cu::device_alloc (auto-allocation off), so running out of GPU memory
/// there gives the suite's usual "out of GPU memory allocating N MiB for ..." message, and
/// cu::testing::fail_allocations_after reaches it.

#include <cufft.h>

#include <cstddef>
#include <memory>
#include <string>

#include "cuda/common.h"

namespace stereo::cu {

/// "CUFFT_ALLOC_FAILED", "CUFFT_INVALID_SIZE", ... ("cufftResult 99" for one it does not know).
const char* cufft_result_name(cufftResult result);

/// Throws stereo::Error naming the failing expression, file:line and the cufftResult.
[[noreturn]] void throw_cufft_error(cufftResult result, const char* expression, const char* file, int line);

}  // namespace stereo::cu

/// Checks a cuFFT call; throws stereo::Error.
#define CUFFT_CHECK(expr)                                                               \
  do {                                                                                  \
    const cufftResult stereo_cufft_status_ = (expr);                                    \
    if (stereo_cufft_status_ != CUFFT_SUCCESS)                                          \
      ::stereo::cu::throw_cufft_error(stereo_cufft_status_, #expr, __FILE__, __LINE__); \
  } while (0)

namespace stereo::cu {

/// One batched 1-D single-precision transform over `batch` contiguous rows of `length`
/// samples: R2C (rows of `length` floats -> rows of length/2 + 1 complex) or C2C (rows of
/// `length` complex). Made once per size and reused; move-only.
class CufftPlan {
 public:
  enum class Kind { r2c, c2c };

  /// Plans on `stream`; throws stereo::Error naming `component` when cuFFT refuses or the
  /// work area does not fit.
  CufftPlan(Kind kind, int length, int batch, cudaStream_t stream, const std::string& component);
  ~CufftPlan();
  CufftPlan(CufftPlan&& other) noexcept;
  CufftPlan& operator=(CufftPlan&& other) noexcept;
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] int length() const { return length_; }
  [[nodiscard]] int batch() const { return batch_; }
  /// Bytes of the work area this plan owns.
  [[nodiscard]] std::size_t work_bytes() const { return work_bytes_; }
  /// The work area cuFFT would ask for such a plan, without making one (for memory checks).
  static std::size_t estimate_work_bytes(Kind kind, int length, int batch);

  /// Forward R2C (kind r2c) on `in` -> `out`.
  void forward(const float* in, cufftComplex* out) const;
  /// Unnormalised C2C transform (kind c2c), in place when in == out; `inverse` chooses the sign.
  void execute(cufftComplex* in, cufftComplex* out, bool inverse) const;

 private:
  void release() noexcept;
  Kind kind_ = Kind::r2c;
  int length_ = 0;
  int batch_ = 0;
  cufftHandle handle_ = 0;
  bool owns_ = false;
  std::size_t work_bytes_ = 0;
  DeviceBuffer<std::byte> work_;
  std::string component_;
};

}  // namespace stereo::cu
