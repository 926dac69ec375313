// salap's cases for the generic tests under tests/ (tests/method_cases.h).

#include "tests/method_cases.h"

namespace stereo::test {

void declare_salap_cases(MethodCases& cases) {
  using F = DisparityMap::Form;
  SequenceCase c{"salap", "salap", {}, {0, 48}, 203, 71, 3, F::index_u8};
  c.own_timing = "salap/cuda times its own three-slot stream (test_cuda_salap_stream.cpp)";
  cases.sequences.push_back(c);
  // salap/cuda uploads a frame of at least 2 x 4 bands of rows in 4 row slabs (salap_submit.cpp),
  // and widens a 16-bit index map beyond 256 levels.
  cases.cuda_views.push_back({"salap", "4 row slabs", 333, 301, 23, 6, {0, 32}});
  cases.cuda_views.push_back({"salap", "16-bit indices", 611, 37, 24, 7, {-10, 300}});
  // The grid the CUDA matcher's test printed before it became benchmarks (d_chunk 0: no chunking).
  cases.option_grids.push_back(
      {"salap", "cuda", {{"arithmetic", {"float", "half"}}, {"d_chunk", {"0", "32", "64", "128", "256"}}}});
  // Float intermediates, so that the GL backends can be held to the float reference.
  for (const char* backend : {"gl", "glcompute"})
    cases.range_options.push_back({"salap", backend, {{"gl_format", "rgba32f"}}, "float intermediates, as the reference"});
}

}  // namespace stereo::test
