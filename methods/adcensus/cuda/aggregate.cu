// Stage 4: cross-based aggregation (Sec. 2.2), one iteration = two 1D arm sums (the pass and
// its fixed-point integral: arm_sum.cu), horizontal then vertical in iterations 1 and 3,
// vertical then horizontal in 2 and 4. Over p's own region the second pass divides by the
// region's size (region_sizes); over Zhang et al.'s combined region (the matcher's choice) it
// counts the region per (p, d) as it sums, and with RegionCounts iterations 3 and 4 read the
// counts iterations 1 and 2 stored.
//
// The fused variants compute the cost (eq. 1-3) while loading the first pass of iteration 1
// instead of reading a stored C: the cost volume is never written or read (4 bytes per cell
// less), and C enters the sums in fp32 rather than rounded to fp16.

#include <string>

#include "methods/adcensus/cuda/arm_sum.h"
#include "methods/adcensus/cuda/cost_device.cuh"
#include "methods/adcensus/cuda/stages.h"

namespace stereo::cu::adcensus {
namespace {

// The fused cost's inputs against the volume it fills.
void require_cost_inputs(const CostImages& images, int w, int h, int levels) {
  require(images.left_rgb.width == w && images.left_rgb.height == h && images.right_rgb.width == w &&
              images.right_rgb.height == h && images.left_census.width == w && images.left_census.height == h &&
              images.right_census.width == w && images.right_census.height == h,
          "adcensus/cuda ad_census_cost_aggregated: images, census images and volume must have one size");
  require(levels >= 1, "adcensus/cuda ad_census_cost_aggregated: disparity count must be >= 1");
}

// The scratch and output volumes of both region kinds, and the arm limit.
void require_volumes(int w, int h, int levels, const AggregationVolumes& to, int max_arm) {
  require(to.scratch.width == w && to.scratch.height == h && to.scratch.range.count == levels && to.out.width == w &&
              to.out.height == h && to.out.range.count == levels,
          "adcensus/cuda aggregate_cost: scratch and output must hold the volume");
  require(max_arm >= 0 && max_arm <= 255,
          [&] { return "adcensus/cuda aggregate_cost: max_arm must be in 0..255, got " + std::to_string(max_arm); });
  require(to.scratch.get() != to.out.get(), "adcensus/cuda aggregate_cost: scratch must differ from the output");
}

void require_aggregation_shapes(int w, int h, int levels, const OwnRegion& region, const AggregationVolumes& to) {
  require(region.arms.width == w && region.arms.height == h && region.h_then_v.width == w &&
              region.h_then_v.height == h && region.v_then_h.width == w && region.v_then_h.height == h,
          "adcensus/cuda aggregate_cost: arms and region sizes must have the volume's size");
  require_volumes(w, h, levels, to, region.max_arm);
}

void require_combined_shapes(int w, int h, int levels, const CombinedRegion& region, const AggregationVolumes& to) {
  require(region.arms.width == w && region.arms.height == h && region.other_arms.width == w &&
              region.other_arms.height == h,
          "adcensus/cuda aggregate_cost: both views' arms must have the volume's size");
  require_volumes(w, h, levels, to, region.max_arm);
}

// One iteration over the combined region: the volume it reads (`in`, or the cost computed
// while loading), where its passes write, and what the second pass does with the counts.
struct CombinedIteration {
  int width = 0;
  int height = 0;
  int levels = 0;
  int min_d = 0;
  const std::uint16_t* in = nullptr;
  const CostInputs* cost = nullptr;
  std::uint16_t* scratch = nullptr;
  std::uint16_t* out = nullptr;
  bool horizontal_first = true;
  // With `store_counts` the second pass also writes the region's counts there; with
  // `load_counts` it reads them instead of counting.
  std::uint16_t* store_counts = nullptr;
  const std::uint16_t* load_counts = nullptr;
};

// The two passes of one iteration over the combined region: the first sums along its axis
// with combined arms, the second along the other and divides by the region's count.
void combined_passes(const CombinedIteration& it, const CombinedRegion& combined, cudaStream_t stream) {
  ArmSumPass pass;
  pass.width = it.width;
  pass.height = it.height;
  pass.levels = it.levels;
  pass.arms = combined.arms.get();
  pass.max_arm = combined.max_arm;
  pass.region.other_arms = combined.other_arms.get();
  pass.region.sign = combined.right_view ? +1 : -1;  // pd = p - d for the left view, p + d for the right
  pass.region.min_d = it.min_d;
  pass.in = it.in;
  pass.cost = it.cost;
  pass.out = it.scratch;
  pass.horizontal = it.horizontal_first;
  launch_arm_sum(pass, stream);
  pass.region.count_region = it.load_counts == nullptr;
  pass.region.store_counts = it.store_counts;
  pass.region.load_counts = it.load_counts;
  pass.in = it.scratch;
  pass.cost = nullptr;
  pass.out = it.out;
  pass.horizontal = !it.horizontal_first;
  launch_arm_sum(pass, stream);
}

// The two passes of one iteration over p's own region: the second divides by the region's size
// of that order (h_then_v when the first pass is horizontal).
void own_passes(const ArmSumPass& first, const OwnRegion& own, std::uint16_t* out, cudaStream_t stream) {
  launch_arm_sum(first, stream);
  ArmSumPass second = first;
  second.in = first.out;
  second.cost = nullptr;
  second.out = out;
  second.horizontal = !first.horizontal;
  second.region.divide = first.horizontal ? own.h_then_v.get() : own.v_then_h.get();
  launch_arm_sum(second, stream);
}

}  // namespace

void aggregate_cost(const DeviceVolume& cost, const CombinedRegion& region, int iteration, const AggregationVolumes& to,
                    cudaStream_t stream) {
  const int w = cost.width;
  const int h = cost.height;
  const int levels = cost.range.count;
  require_combined_shapes(w, h, levels, region, to);
  require(iteration >= 1,
          [&] { return "adcensus/cuda aggregate_cost: iteration is 1-based, got " + std::to_string(iteration); });
  require(to.scratch.get() != cost.get(), "adcensus/cuda aggregate_cost: scratch must be a third buffer");
  CombinedIteration it;
  it.width = w;
  it.height = h;
  it.levels = levels;
  it.min_d = cost.range.min;
  it.in = cost.get();
  it.scratch = to.scratch.get();
  it.out = to.out.get();
  it.horizontal_first = iteration % 2 == 1;
  combined_passes(it, region, stream);
}

void ad_census_cost_aggregated(const CostImages& images, const AdCensusParams& params, const CombinedRegion& region,
                               int iterations, const AggregationVolumes& to, cudaStream_t stream,
                               RegionCounts* counts) {
  DeviceVolume& out = to.out;
  const int w = out.width;
  const int h = out.height;
  const int levels = out.range.count;
  require_cost_inputs(images, w, h, levels);
  require_combined_shapes(w, h, levels, region, to);
  require(iterations >= 1, [&] {
    return "adcensus/cuda ad_census_cost_aggregated: iterations must be >= 1, got " + std::to_string(iterations);
  });
  const bool keep = counts != nullptr && short_counts(region.max_arm) && iterations > 2;
  if (keep)
    require(counts->cells == out.count() && counts->h_then_v && counts->v_then_h,
            "adcensus/cuda ad_census_cost_aggregated: the region counts must have the volume's cells");
  // Iteration i sums horizontally first when odd (Sec. 2.2), over the region of that order:
  // with `keep` the first iteration of each order stores its counts and the later ones read them.
  const auto counts_of = [&](int i) { return i % 2 == 1 ? counts->h_then_v.get() : counts->v_then_h.get(); };
  const auto store = [&](int i) { return keep && i <= 2 ? counts_of(i) : nullptr; };
  const auto load = [&](int i) -> const std::uint16_t* { return keep && i > 2 ? counts_of(i) : nullptr; };
  const CostInputs cost = make_cost_inputs(images, params, region.right_view, out.range.min);
  CombinedIteration it;
  it.width = w;
  it.height = h;
  it.levels = levels;
  it.min_d = out.range.min;
  it.cost = &cost;
  it.scratch = to.scratch.get();
  it.out = out.get();
  it.horizontal_first = true;
  it.store_counts = store(1);
  it.load_counts = load(1);
  combined_passes(it, region, stream);
  // Iterations 2.. in place: each pass reads its input whole before the next launch writes.
  it.in = out.get();
  it.cost = nullptr;
  for (int i = 2; i <= iterations; ++i) {
    it.horizontal_first = i % 2 == 1;
    it.store_counts = store(i);
    it.load_counts = load(i);
    combined_passes(it, region, stream);
  }
}

bool RegionCounts::fit_16_bits(int max_arm) { return short_counts(max_arm); }

void aggregate_cost(const DeviceVolume& cost, const OwnRegion& region, int iteration, const AggregationVolumes& to,
                    cudaStream_t stream) {
  const int w = cost.width;
  const int h = cost.height;
  const int levels = cost.range.count;
  require_aggregation_shapes(w, h, levels, region, to);
  require(iteration >= 1,
          [&] { return "adcensus/cuda aggregate_cost: iteration is 1-based, got " + std::to_string(iteration); });
  require(to.scratch.get() != cost.get(), "adcensus/cuda aggregate_cost: scratch must be a third buffer");
  ArmSumPass first;
  first.width = w;
  first.height = h;
  first.levels = levels;
  first.in = cost.get();
  first.out = to.scratch.get();
  first.arms = region.arms.get();
  first.max_arm = region.max_arm;
  // Sec. 2.2: iterations 1 and 3 sum horizontally first, 2 and 4 vertically first.
  first.horizontal = iteration % 2 == 1;
  own_passes(first, region, to.out.get(), stream);
}

void ad_census_cost_aggregated(const CostImages& images, const AdCensusParams& params, bool right_view,
                               const OwnRegion& region, const AggregationVolumes& to, cudaStream_t stream) {
  const int w = to.out.width;
  const int h = to.out.height;
  const int levels = to.out.range.count;
  require_cost_inputs(images, w, h, levels);
  require_aggregation_shapes(w, h, levels, region, to);
  const CostInputs cost = make_cost_inputs(images, params, right_view, to.out.range.min);
  // Iteration 1: horizontal (from the cost itself), then vertical, divided by the H-V size.
  ArmSumPass first;
  first.width = w;
  first.height = h;
  first.levels = levels;
  first.cost = &cost;
  first.out = to.scratch.get();
  first.arms = region.arms.get();
  first.max_arm = region.max_arm;
  first.horizontal = true;
  own_passes(first, region, to.out.get(), stream);
}

}  // namespace stereo::cu::adcensus
