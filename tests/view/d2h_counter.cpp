// The CUDA runtime's copy calls, defined in the test executable so that the project's static
// libraries linked into it call these first (the executable's definition wins at link time over
// libcudart.so's); each counts a copy into host memory and forwards to the runtime's own
// (dlsym RTLD_NEXT). Only the calls the CUDA frame and the stages use are covered:
// cudaMemcpy, cudaMemcpyAsync, cudaMemcpy2DAsync.

#include "tests/view/d2h_counter.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstdio>

namespace stereo::view::test {
namespace {

std::atomic<std::size_t> g_bytes{0};

bool to_host(void* dst, cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDeviceToHost) return true;
  if (kind != cudaMemcpyDefault) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, dst) != cudaSuccess) {
    cudaGetLastError();
    return true;  // memory CUDA does not know is host memory
  }
  return a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeUnregistered;
}

}  // namespace

void reset_d2h() { g_bytes = 0; }

std::size_t d2h_bytes() { return g_bytes.load(); }

namespace detail {

void count(void* dst, std::size_t bytes, cudaMemcpyKind kind) {
  if (to_host(dst, kind)) g_bytes += bytes;
}

// The runtime's own definition of `name`, after this executable's.
template <class Fn>
Fn next(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "d2h_counter: no %s after the test's own\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(f);
}

}  // namespace detail
}  // namespace stereo::view::test

using stereo::view::test::detail::count;
using stereo::view::test::detail::next;

cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t bytes, enum cudaMemcpyKind kind) {
  static const auto real = next<decltype(&cudaMemcpy)>("cudaMemcpy");
  count(dst, bytes, kind);
  return real(dst, src, bytes, kind);
}

cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t bytes, enum cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  static const auto real = next<decltype(&cudaMemcpyAsync)>("cudaMemcpyAsync");
  count(dst, bytes, kind);
  return real(dst, src, bytes, kind, stream);
}

cudaError_t CUDARTAPI cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                        size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  static const auto real = next<decltype(&cudaMemcpy2DAsync)>("cudaMemcpy2DAsync");
  count(dst, width * height, kind);
  return real(dst, dpitch, src, spitch, width, height, kind, stream);
}
