#pragma once
// The test cases a method declares in its own folder for the generic tests under tests/, which
// run over the registry and these cases and name no method. A method folder lists its cases file,
// methods/<folder>/tests/cases.cpp, under TEST_CASES in stereo_add_method (cmake/StereoMethod.cmake); that file
// defines declare_<folder>_cases(MethodCases&), and the generated build/generated/tests/method_cases.cpp calls
// each folder's, so adding a method edits no file here.

#include <string>
#include <utility>
#include <vector>

#include "core/disparity_range.h"
#include "core/matcher.h"
#include "core/params.h"

namespace stereo::test {

/// One sequence of frames through a CUDA matcher (tests/test_cuda_sequences.cpp): every
/// registered CUDA method declares at least one.
struct SequenceCase {
  std::string name;  ///< gtest's parameter name, unique over every method
  std::string method;
  Overrides overrides;
  DisparityRange range;
  int width = 0, height = 0, channels = 3;
  /// The form every streamed map must have: indices where the map is whole levels.
  DisparityMap::Form form = DisparityMap::Form::pixels_f32;
  /// Empty when the matcher's frames carry the CUDA frame's per-frame clock ("cuda events; 3
  /// frames in flight", cuda/frame_stream.h); else where its own stream's timing is tested.
  std::string own_timing{};
};

/// What the disparity-range test (tests/test_disparity_range.cpp) must set on a method's
/// backend for its output to hold every integer disparity as the CPU reference does, and why.
struct RangeOptions {
  std::string method;
  std::string backend;  ///< empty: every backend of the method, the CPU reference included
  Overrides overrides;
  std::string why;
};

/// A frame a method's CUDA matcher takes a path of its own for (a size that splits its upload,
/// a range that widens its indices), run through every view kind by tests/test_cuda_views.cpp.
struct ViewCase {
  std::string method;
  std::string why;  ///< the path the frame takes
  int width = 0, height = 0;
  unsigned seed = 0;  ///< of the left image's texture
  int shift = 0;      ///< of the right image: the true disparity
  DisparityRange range;
};

/// Backend options a method sweeps in the benchmarks (tests/benchmarks.cpp) at 1920x1080 x
/// 256 levels, one benchmark per combination of the values, the first option varying slowest.
struct OptionGrid {
  std::string method, backend;
  std::vector<std::pair<std::string, std::vector<std::string>>> options;
};

/// Everything the method folders declared.
struct MethodCases {
  std::vector<SequenceCase> sequences;
  std::vector<ViewCase> cuda_views;
  std::vector<OptionGrid> option_grids;
  std::vector<RangeOptions> range_options;

  /// The overrides the range test sets on `method`/`backend`: the method-wide ones, then the
  /// backend's own, in declaration order.
  [[nodiscard]] Overrides range_overrides(const std::string& method, const std::string& backend) const {
    Overrides out;
    for (const RangeOptions& o : range_options)
      if (o.method == method && (o.backend.empty() || o.backend == backend))
        out.insert(out.end(), o.overrides.begin(), o.overrides.end());
    return out;
  }
};

/// The cases of every method folder of this build (generated: tests/method_cases.cpp.in).
const MethodCases& method_cases();

}  // namespace stereo::test
