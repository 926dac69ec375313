// esaw/cuda's and esmp/cuda's pass inspector (methods/esaw/cuda/esaw_inspect.h): the volumes kept
// while keep_passes(true) holds, by name, each plane read at the image's size; every volume the
// cpu backend shows under the same name compared with it bit for bit (tolerance 0: every CUDA
// stage is bit-exact with the reference's Storage::fp16, NOTES.md), which also checks that each
// slab landed in its own planes; ESMP's forward min-sum values, which the cpu backend never
// stores, for their size and finiteness, and the folded passes' against the separate ones bit
// for bit. Inspection changes neither the map nor, off, the Timing's stages.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/inspect.h"
#include "core/matcher.h"
#include "methods/builtin.h"
#include "methods/esaw/cuda/stages.h"
#include "methods/esaw/model.h"
#include "tests/test_cuda_util.h"
#include "tests/test_util.h"

namespace stereo {
namespace {

const DisparityRange ESAW_RANGE{-1, 12};
const char* const KEEP_LAP = "keep_passes copies";  // cu::esaw::StageKeeper::KEEP_LAP

struct Pair {
  ImageU8 left, right;
};

Pair scene() {
  const ImageU8 left = test::random_texture(45, 31, 11u, 3);
  return {left, test::shifted(left, 3)};
}

std::vector<std::string> names_of(PassInspector& in) {
  std::vector<std::string> names;
  for (const PassLayout& l : in.passes()) names.push_back(l.name);
  return names;
}

std::string pass(const char* name, int t) { return std::string(name) + ".t" + std::to_string(t); }
std::string messages(int n) { return "cost2msg." + std::to_string(n); }

// The names a matcher shows: the images before the passes, `volumes`, the WTA and median after.
std::vector<std::string> with_images(Matcher& m, const std::vector<std::string>& volumes) {
  const nlohmann::json p = m.params();
  std::vector<std::string> out = {"rgb2grey.left", "rgb2grey.right"};
  if (p["colour"].get<std::string>() == "lab8") out.push_back("rgb2lab8");
  out.insert(out.end(), volumes.begin(), volumes.end());
  out.push_back("select_disparity.cost");
  out.push_back("select_disparity");
  if (p["median"].get<bool>()) out.push_back("median_filter");
  return out;
}

bool has_stage(const Timing& t, const std::string& name) {
  return std::any_of(t.stages.begin(), t.stages.end(), [&](const auto& s) { return s.first == name; });
}

// Every plane of volume `l` at the image's size and finite; with `cpu`, equal to its plane there.
void read_planes(PassInspector& in, const PassLayout& l, PassInspector* cpu) {
  for (int k = 0; k < l.slices; ++k) {
    const ImageF v = in.read(l.name, k);
    ASSERT_EQ(v.width, 45);
    ASSERT_EQ(v.height, 31);
    ASSERT_EQ(v.data.size(), std::size_t(45 * 31));
    for (float x : v.data) ASSERT_TRUE(std::isfinite(x)) << "plane " << k;
    if (cpu) {
      ASSERT_EQ(v.data, cpu->read(l.name, k).data) << "plane " << k << " differs from cpu";
    }
  }
}

// Runs `method` on both backends with keep_passes(true) (`cuda_options` to the GPU only), checks
// the GPU's names, reads every plane of every volume at its size, compares each volume the
// cpu backend shows by name bit for bit, and checks that the map is the one of a plain run.
// Returns the GPU matcher for further reads.
std::unique_ptr<Matcher> check(const std::string& method, const Overrides& overrides, const Overrides& cuda_options,
                               const std::vector<std::string>& volumes, int want_compared) {
  const Pair pair = scene();
  Overrides gpu_overrides = overrides;
  gpu_overrides.insert(gpu_overrides.end(), cuda_options.begin(), cuda_options.end());
  auto plain = create_matcher(method, "cuda", gpu_overrides);
  auto gpu = create_matcher(method, "cuda", gpu_overrides);
  auto cpu = create_matcher(method, "cpu", overrides);
  gpu->keep_passes(true);
  cpu->keep_passes(true);
  const StereoResult plain_run = plain->compute(pair.left, pair.right, ESAW_RANGE);
  const StereoResult kept_run = gpu->compute(pair.left, pair.right, ESAW_RANGE);
  (void)cpu->compute(pair.left, pair.right, ESAW_RANGE);
  EXPECT_EQ(kept_run.disparity.data, plain_run.disparity.data) << method << ": keep_passes changed the map";
  EXPECT_FALSE(has_stage(plain_run.timing, KEEP_LAP)) << method << ": a plain run timed inspector copies";

  PassInspector& in = *gpu->inspector();
  EXPECT_EQ(names_of(in), with_images(*gpu, volumes)) << method;
  const std::vector<std::string> cpu_names = names_of(*cpu->inspector());
  int compared = 0;
  for (const PassLayout& l : in.passes()) {
    if (l.disparities_per_slice == 0) continue;  // the images: the inspector tests of every pair
    SCOPED_TRACE(method + " " + l.name);
    EXPECT_EQ(l.slices, ESAW_RANGE.count);
    EXPECT_EQ(l.first_disparity, ESAW_RANGE.min);
    const bool on_cpu = std::find(cpu_names.begin(), cpu_names.end(), l.name) != cpu_names.end();
    compared += on_cpu;
    read_planes(in, l, on_cpu ? cpu->inspector() : nullptr);
    EXPECT_THROW((void)in.read(l.name, l.slices), Error);
  }
  std::cout << method << "/cuda: " << volumes.size() << " kept volumes, " << compared
            << " equal to cpu's bit for bit\n";
  EXPECT_EQ(compared, want_compared) << method;
  return gpu;
}

int iterations_of(Matcher& m) { return m.params()["iterations"].get<int>(); }

TEST(CudaEsawInspect, EsawKeepsEveryPassVolume) {
  STEREO_REQUIRE_CUDA();
  const int T = iterations_of(*create_matcher("esaw", "cuda", {}));
  // defaults: eq. 3 inside the first aggr_H, each aggr_V with the next aggr_H (fuse_vh), so only
  // the last V result exists (on this odd width the separate kernels run, keeping the same)
  std::vector<std::string> rows, volumes;
  for (int t = 1; t <= T; ++t) {
    rows.push_back(pass("aggr_H", t));
    volumes.push_back(pass("aggr_H", t));
    volumes.push_back(pass("aggr_V", t));
  }
  rows.push_back(pass("aggr_V", T));
  (void)check("esaw", {}, {}, rows, T + 1);
  (void)check("esaw", {}, {{"cuda_graph", "false"}, {"fuse_vh", "false"}}, volumes, 2 * T);
  // A stored C0, slabs of 5 planes (5 + 5 + 2: each slab copied into its own planes) and the
  // fused iterations, whose H result never exists.
  auto m = create_matcher("esaw", "cuda", {});
  const float base = m->params()["base"].get<float>();
  const int hv = std::min(16, cu::esaw::aggr_hv_max_step());
  std::vector<std::string> fused = {"init_cost"};
  for (int t = 1; t <= T; ++t) {
    if (t == T || stereo::esaw::esaw_step(base, t) > hv) fused.push_back(pass("aggr_H", t));
    fused.push_back(pass("aggr_V", t));
  }
  (void)check("esaw", {}, {{"fuse_init_cost", "false"}, {"slab_planes", "5"}, {"fuse_hv_max_step", "16"}}, fused,
              int(fused.size()));
}

TEST(CudaEsawInspect, EsmpKeepsMessagesAndForwardValues) {
  STEREO_REQUIRE_CUDA();
  const int T = iterations_of(*create_matcher("esmp", "cuda", {}));
  // literal (the default), C0 computed inside the first cost2msg; each aggregation and its
  // cost2msg- in one kernel (fuse_cost2msg), so only the messages exist (on this odd width the
  // two kernels run, keeping the same volumes); with separate kernels also the forward values
  std::vector<std::string> literal = {messages(1)}, with_forward = {messages(1)};
  for (int t = 1; t <= T; ++t) {
    with_forward.push_back(pass("aggr_H+", t));
    for (auto* list : {&literal, &with_forward}) list->push_back(messages(2 * t));
    if (t < T) {
      with_forward.push_back(pass("aggr_V+", t));
      for (auto* list : {&literal, &with_forward}) list->push_back(messages(2 * t + 1));
    }
  }
  literal.push_back(pass("aggr_V", T));
  with_forward.push_back(pass("aggr_V", T));
  (void)check("esmp", {}, {}, literal, 2 * T + 1);  // every message and the last pass's costs
  const auto separate = check("esmp", {}, {{"fuse_cost2msg", "false"}}, with_forward, 2 * T + 1);
  std::vector<std::string> stored_c0 = literal;
  stored_c0.insert(stored_c0.begin(), "init_cost");
  (void)check("esmp", {}, {{"fuse_init_cost", "false"}}, stored_c0, 2 * T + 2);

  // folded: the forward values of every pass but the last, equal to the separate kernels'
  std::vector<std::string> folded = {messages(1)};
  for (int j = 0; j + 1 < 2 * T; ++j) folded.push_back(pass(j % 2 == 0 ? "aggr_H+" : "aggr_V+", j / 2 + 1));
  const auto fold = check("esmp", {}, {{"fold_cost2msg", "true"}}, folded, 1);
  for (const std::string& name : folded)
    for (int k = 0; k < ESAW_RANGE.count; ++k)
      ASSERT_EQ(fold->inspector()->read(name, k).data, separate->inspector()->read(name, k).data)
          << name << " plane " << k << ": folded and separate passes differ";

  // centre: every stage has its cpu twin
  const Overrides centre = {{"esmp_variant", "centre"}, {"iterations", "3"}};
  std::vector<std::string> all = {"init_cost"};
  for (int t = 1; t <= 3; ++t) {
    all.push_back(messages(2 * t - 1));
    all.push_back(pass("aggr_H", t));
    all.push_back(messages(2 * t));
    all.push_back(pass("aggr_V", t));
  }
  (void)check("esmp", centre, {}, all, int(all.size()));
}

// ESMP copies outside its stages: while keeping, their time is a Timing stage of its own.
TEST(CudaEsawInspect, EsmpCopiesAreTimedApart) {
  STEREO_REQUIRE_CUDA();
  const Pair pair = scene();
  auto m = create_matcher("esmp", "cuda", {});
  m->keep_passes(true);
  EXPECT_TRUE(has_stage(m->compute(pair.left, pair.right, ESAW_RANGE).timing, KEEP_LAP));
  m->keep_passes(false);
  EXPECT_FALSE(has_stage(m->compute(pair.left, pair.right, ESAW_RANGE).timing, KEEP_LAP));
  EXPECT_EQ(m->inspector(), nullptr);
}

}  // namespace
}  // namespace stereo
