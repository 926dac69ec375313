// The salap/cpu pass inspector: its stages are the reference functions, one level per slice.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/inspect.h"
#include "core/matcher.h"
#include "methods/builtin.h"
#include "methods/salap/params.h"
#include "methods/salap/reference/salap.h"
#include "tests/kept_run.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

constexpr int W = test::KEPT_W, H = test::KEPT_H;
const DisparityRange SALAP_RANGE = test::KEPT_RANGE;
using Pair = test::KeptPair;
using test::kept_cpu_run;
Pair make_pair() { return test::make_kept_pair(); }

TEST(SalapCpuInspector, StagesAreTheReferenceFunctions) {
  const Pair pair = make_pair();
  auto m = kept_cpu_run(pair);
  PassInspector& in = *m->inspector();
  std::vector<std::string> names;
  for (const PassLayout& l : in.passes()) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"tad", "horizontal.c_left", "horizontal.c_right", "vertical.c0",
                                             "vertical.c1", "vertical.c2", "vertical.c3", "window_cost", "select"}));
  SalapParams params;
  params.window = 9;
  for (int k = 0; k < SALAP_RANGE.count; ++k) {
    const int d = SALAP_RANGE.min + k;
    const ImageF tad = reference::tad_cost(pair.left, pair.right, d, params);
    EXPECT_EQ(in.read("tad", k).data, tad.data) << d;
    const ImageF cr = reference::filter_horizontal(tad, reference::Side::right, params);
    EXPECT_EQ(in.read("horizontal.c_right", k).data, cr.data) << d;
    EXPECT_EQ(in.read("vertical.c3", k).data, reference::filter_vertical(cr, reference::Side::up, params).data) << d;
    EXPECT_EQ(in.read("window_cost", k).data, reference::level_cost(pair.left, pair.right, d, params).data) << d;
  }
  const ImageF map = reference::salap_disparity(pair.left, pair.right, SALAP_RANGE, params);
  const ImageF select = in.read("select", 0);
  for (std::size_t i = 0; i < map.data.size(); ++i) ASSERT_EQ(select.data[i] + float(SALAP_RANGE.min), map.data[i]);
  EXPECT_THROW((void)in.read("tad", SALAP_RANGE.count), Error);
  EXPECT_THROW((void)in.read("aggregate_h", 0), Error);
}

}  // namespace
}  // namespace stereo
