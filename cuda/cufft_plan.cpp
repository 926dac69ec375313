// cuFFT plans as owned objects (cuda/cufft_plan.h).

#include "cuda/cufft_plan.h"

#include <sstream>
#include <utility>

namespace stereo::cu {

const char* cufft_result_name(cufftResult result) {
  switch (result) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return nullptr;
  }
}

void throw_cufft_error(cufftResult result, const char* expression, const char* file, int line) {
  std::ostringstream s;
  const char* name = cufft_result_name(result);
  s << "cuFFT error " << (name ? std::string(name) : "cufftResult " + std::to_string(int(result))) << " in " << expression
    << " at " << file << ":" << line;
  throw Error(s.str());
}

namespace {
cufftType type_of(CufftPlan::Kind kind) { return kind == CufftPlan::Kind::r2c ? CUFFT_R2C : CUFFT_C2C; }
}  // namespace

std::size_t CufftPlan::estimate_work_bytes(Kind kind, int length, int batch) {
  std::size_t bytes = 0;
  CUFFT_CHECK(cufftEstimate1d(length, type_of(kind), batch, &bytes));
  return bytes;
}

CufftPlan::CufftPlan(Kind kind, int length, int batch, cudaStream_t stream, const std::string& component)
    : kind_(kind), length_(length), batch_(batch), component_(component) {
  require(length >= 2 && batch >= 1, component + ": cuFFT plan needs length >= 2 and batch >= 1, got " +
                                         std::to_string(length) + " x " + std::to_string(batch));
  CUFFT_CHECK(cufftCreate(&handle_));
  owns_ = true;
  try {
    // The work area is ours (device_alloc), so its out-of-memory error names the plan.
    CUFFT_CHECK(cufftSetAutoAllocation(handle_, 0));
    int n = length;
    const int in_dist = length;
    const int out_dist = kind == Kind::r2c ? length / 2 + 1 : length;
    CUFFT_CHECK(cufftMakePlanMany(handle_, 1, &n, nullptr, 1, in_dist, nullptr, 1, out_dist, type_of(kind), batch,
                                  &work_bytes_));
    if (work_bytes_ > 0) {
      work_ = make_device_buffer<std::byte>(work_bytes_, component,
                                            "the cuFFT work area of " + std::to_string(batch) + " rows of " +
                                                std::to_string(length));
      CUFFT_CHECK(cufftSetWorkArea(handle_, work_.get()));
    }
    CUFFT_CHECK(cufftSetStream(handle_, stream));
  } catch (...) {
    release();
    throw;
  }
}

void CufftPlan::release() noexcept {
  if (owns_) cufftDestroy(handle_);  // errors at teardown are moot
  owns_ = false;
  handle_ = 0;
}

CufftPlan::~CufftPlan() { release(); }

CufftPlan::CufftPlan(CufftPlan&& other) noexcept
    : kind_(other.kind_), length_(other.length_), batch_(other.batch_), handle_(other.handle_), owns_(other.owns_),
      work_bytes_(other.work_bytes_), work_(std::move(other.work_)), component_(std::move(other.component_)) {
  other.owns_ = false;
  other.handle_ = 0;
}

CufftPlan& CufftPlan::operator=(CufftPlan&& other) noexcept {
  if (this != &other) {
    release();
    kind_ = other.kind_;
    length_ = other.length_;
    batch_ = other.batch_;
    handle_ = other.handle_;
    owns_ = other.owns_;
    work_bytes_ = other.work_bytes_;
    work_ = std::move(other.work_);
    component_ = std::move(other.component_);
    other.owns_ = false;
    other.handle_ = 0;
  }
  return *this;
}

void CufftPlan::forward(const float* in, cufftComplex* out) const {
  require(kind_ == Kind::r2c, component_ + ": forward() on a C2C plan");
  // cuFFT's R2C takes a non-const input pointer but does not write it out of place.
  CUFFT_CHECK(cufftExecR2C(handle_, const_cast<float*>(in), out));
}

void CufftPlan::execute(cufftComplex* in, cufftComplex* out, bool inverse) const {
  require(kind_ == Kind::c2c, component_ + ": execute() on an R2C plan");
  CUFFT_CHECK(cufftExecC2C(handle_, in, out, inverse ? CUFFT_INVERSE : CUFFT_FORWARD));
}

}  // namespace stereo::cu
