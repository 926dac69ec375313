// AD-Census on CUDA: the matcher the registry creates. The frame (cuda/matcher_frame.h) binds,
// uploads, times and reads back; this file declares the method's buffers and runs the stages of
// methods/adcensus/cuda/stages.h in the order of the reference matcher, stage by stage across both
// views, a lap after each. Only the left view is aggregated: the right view's aggregated volume
// is the left one's, skewed (right_view_from_left). Where a second set of path volumes fits
// (views=auto, choose), the right view's census, arms and scanline run on a second stream beside
// the left view's, joined at each stage's lap: a single view's launches leave part of the GPU
// idle (Teddy: one view's scanline is 1,650 warps, a latency-bound walk; 1080p: its last walks
// run as a tail).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "cuda/common.h"
#include "cuda/matcher_frame.h"
#include "cuda/shared/median.h"
#include "methods/adcensus/cuda/adcensus_inspect.h"
#include "methods/adcensus/cuda/stages.h"
#include "methods/adcensus/params.h"
#include "methods/adcensus/register.h"

namespace stereo {
namespace {

constexpr const char* COMPONENT = "adcensus/cuda";
namespace ca = cu::adcensus;

/// Every device buffer of one problem (cuda/workspace.h).
struct AdCensusBuffers : cu::InputPair {
  struct Key {
    int width = 0, height = 0, channels = 0, levels = 0;
    // Chosen for a new set from the free memory (AdCensusCudaMatcher::choose); a held set
    // serves its size whatever they are, so they stay out of the comparison.
    bool concurrent = false;   // the second path set, for the right view's scanline
    bool keep_counts = false;  // the region counts of iterations 1 and 2 (RegionCounts)
    bool operator==(const Key& o) const {
      return width == o.width && height == o.height && channels == o.channels && levels == o.levels;
    }
  };
  cu::DeviceImage<uchar4> rgb_left, rgb_right, arms_left, arms_right;
  cu::DeviceImage<std::uint8_t> grey_left, grey_right;
  cu::DeviceImage<std::uint64_t> census_left, census_right;
  ca::DeviceVolume cost_left, cost_right;  // C of each view (C -> C1 -> C2 in place)
  ca::PathVolumes paths;        // paths.lr doubles as the aggregation scratch
  ca::PathVolumes paths_right;  // the right view's scanline paths, when `concurrent`
  bool concurrent = false;
  // The region counts of iterations 1 and 2, read by 3 and 4, when `keep_counts` (the left
  // view's: the right view's volume is the left one's, skewed).
  ca::RegionCounts counts;
  bool keep_counts = false;
  cu::DeviceImage<float> disparity_left, disparity_right, map_a, map_b;
  cu::DeviceImage<std::uint8_t> outliers_a, outliers_b;

  static std::string describe(const Key& k) {
    return std::to_string(k.width) + "x" + std::to_string(k.height) + " with " + std::to_string(k.levels) +
           " levels" + (k.concurrent ? " (views=concurrent: a second set of path volumes)" : "");
  }

  void declare(cu::BufferList& list, const Key& k) {
    declare_inputs(list, k.width, k.height, k.channels);
    const int w = k.width, h = k.height;
    list.views(rgb_left, rgb_right, w, h, "packed image");
    list.views(arms_left, arms_right, w, h, "cross arms");
    list.views(grey_left, grey_right, w, h, "grey image");
    list.views(census_left, census_right, w, h, "census image");
    volume(list, cost_left, k, "the left cost volume");
    volume(list, cost_right, k, "the right cost volume");
    path_set(list, paths, k, "a scanline path volume", "the scanline edge bits");
    concurrent = k.concurrent;
    if (concurrent)
      path_set(list, paths_right, k, "a right-view scanline path volume", "the right view's scanline edge bits");
    keep_counts = k.keep_counts;
    if (keep_counts) {
      counts.cells = ca::DeviceVolume::cells(w, h, k.levels);
      list.buffer(counts.h_then_v, counts.cells, "the H-V region counts");
      list.buffer(counts.v_then_h, counts.cells, "the V-H region counts");
    }
    list.views(disparity_left, disparity_right, w, h, "disparity map");
    for (cu::DeviceImage<float>* map : {&map_a, &map_b}) list.image(*map, w, h, "a refinement map");
    for (cu::DeviceImage<std::uint8_t>* map : {&outliers_a, &outliers_b}) list.image(*map, w, h, "an outlier map");
  }

  static void volume(cu::BufferList& list, ca::DeviceVolume& v, const Key& k, const char* what) {
    v.width = k.width;
    v.height = k.height;
    v.range = DisparityRange{0, k.levels};  // its minimum: set_range, every frame
    list.buffer(v.data, v.count(), what);
  }

  static void path_set(cu::BufferList& list, ca::PathVolumes& p, const Key& k, const char* what,
                       const char* edges) {
    for (ca::DeviceVolume* v : {&p.lr, &p.rl, &p.tb, &p.bt}) volume(list, *v, k, what);
    list.image(p.edges, ca::edge_words_per_row(k.width), 2 * k.height, edges);
  }

  void set_range(DisparityRange range) {
    for (ca::DeviceVolume* v : {&cost_left, &cost_right, &paths.lr, &paths.rl, &paths.tb, &paths.bt, &paths_right.lr,
                                &paths_right.rl, &paths_right.tb, &paths_right.bt})
      v->range = range;
  }
};

/// Options of this backend only (bound beside AdCensusParams).
struct AdCensusCudaOptions {
  std::string views = "auto";  // the right view beside the left within a stage (see choose)
  std::string graph = "on";    // the algorithm as one CUDA graph, replayed while size and range stay

  template <class B>
  void describe(B& b) {
    b.choice("views", views, {"auto", "concurrent", "serial"},
             "the two views' census, arms and scanline (the right view's aggregated volume is the left one's, "
             "skewed): on two streams at once (needs a second set of four path volumes), one after the other, or "
             "auto (at once where the second set fits in the device's free memory); the maps are the same");
    b.choice("graph", graph, {"on", "off"},
             "launch everything after the upload as one CUDA graph (captured on the first call for a size and "
             "range, replayed after) or kernel by kernel; the maps are the same");
  }
};

class AdCensusCudaMatcher final : public cu::FrameMatcher<AdCensusParams, AdCensusCudaOptions, AdCensusBuffers> {
 public:
  explicit AdCensusCudaMatcher(const Overrides& overrides) : FrameMatcher(COMPONENT, overrides) {
    side_ = cu::make_stream();
    fork_ = cu::make_event();
    join_ = cu::make_event();
  }

 private:
  // What the workspace holds after the last frame (adcensus_inspect.h); nothing else is kept.
  void show_stages(cu::StageShow& show, const AdCensusBuffers& w, DisparityRange /*range*/) const override {
    const bool right = params_.refine != "none";  // else nothing computed the right view's volume and map
    ca::show_frame(show.table(),
                   {{&w.census_left, &w.census_right}, {&w.arms_left, &w.arms_right},
                    right ? &w.cost_right : nullptr, &w.paths, &w.cost_left,
                    {&w.disparity_left, right ? &w.disparity_right : nullptr}},
                   show.ordinal());
  }

  [[nodiscard]] nlohmann::json facts() const override {
    return {{"cost_storage", "fp16"}};  // what the volumes hold (methods/adcensus/cuda/NOTES.md)
  }

  Key key_for(const ImageView& left, DisparityRange range) const override {
    require(range.count <= ca::MAX_LEVELS, [&] {
      return std::string(COMPONENT) + ": " + std::to_string(range.count) +
             " disparity levels; this backend handles up to " + std::to_string(ca::MAX_LEVELS);
    });
    return Key{left.width, left.height, left.channels, range.count};
  }

  // The region counts where iterations 3.. can read them and they fit beside the rest (without
  // them every iteration counts again: the same maps, ~9 % more aggregation time); then, with
  // views=auto, the second path set where it fits beside those (views=concurrent: always, so
  // that the memory check names it). The right view's census, arms and scanline then run on a
  // second stream beside the left's: the two views' walks fill the GPU's resident warps where
  // one view's leave a tail (methods/adcensus/cuda/NOTES.md: 1080p x 256 and Teddy); without
  // the set the same maps come from one path set used by the views in turn.
  void choose(Key& key, std::size_t free_bytes) const override {
    const auto fits = [&](const Key& k) { return workspace_.bytes(k) <= free_bytes; };
    key.concurrent = options_.views == "concurrent";
    Key with_counts = key;
    with_counts.keep_counts = true;
    key.keep_counts =
        params_.aggregation_iterations > 2 && ca::RegionCounts::fit_16_bits(params_.arm_l1 - 1) && fits(with_counts);
    if (options_.views == "auto") {
      Key with_second = key;
      with_second.concurrent = true;
      key.concurrent = fits(with_second);
    }
  }

  // Without refinement the map is the scanline WTA's range.min + k; every refinement step
  // marks outliers +inf or refines to fractions.
  [[nodiscard]] bool whole_levels(DisparityRange /*range*/) const override { return params_.refine == "none"; }

  void before_frame(AdCensusBuffers& w, DisparityRange range, cudaStream_t /*stream*/) override {
    w.set_range(range);  // the same buffers serve any range.min
  }

  // Everything after the upload: launched directly, or (graph=on) as one CUDA graph captured on
  // the first call for this workspace and range and replayed after, which removes the gaps
  // between ~50 dependent launches (the stage laps are event nodes of the graph).
  const cu::DeviceImage<float>& run_stages(AdCensusBuffers& w, DisparityRange range, cu::StageClock& clock,
                                           cudaStream_t s) override {
    if (options_.graph != "on") return enqueue_algorithm(w, range, clock, s);
    if (!graph_ || graph_generation_ != workspace_.generation() || graph_range_min_ != range.min) {
      graph_ = cu::TimedGraph{};
      graph_ = clock.capture([&] { graph_result_ = &enqueue_algorithm(w, range, clock, s); });
      graph_generation_ = workspace_.generation();
      graph_range_min_ = range.min;
    }
    clock.replay(graph_);
    return *graph_result_;
  }

  // One stage for the views: `stage(right_view, stream)` for the right view (when `right`),
  // then the left, on `s`; with `side` the right view's on the side stream, which starts after
  // everything queued on `s` so far, and `s` waits for it before the next stage.
  template <class Stage>
  void for_views(cudaStream_t s, bool side, bool right, Stage&& stage) {
    side = side && right;
    if (side) {
      CUDA_CHECK(cudaEventRecord(fork_.get(), s));
      CUDA_CHECK(cudaStreamWaitEvent(side_.get(), fork_.get(), 0));
    }
    if (right) stage(true, side ? side_.get() : s);
    stage(false, s);
    if (side) {
      CUDA_CHECK(cudaEventRecord(join_.get(), side_.get()));
      CUDA_CHECK(cudaStreamWaitEvent(s, join_.get(), 0));
    }
  }

  // Enqueues census to refinement on `s` (and the side stream), marking each stage; returns the
  // map to read back.
  const cu::DeviceImage<float>& enqueue_algorithm(AdCensusBuffers& w, DisparityRange range, cu::StageClock& clock,
                                                  cudaStream_t s) {
    const std::string& stop = params_.refine;
    const bool both_views = stop != "none";  // nothing reads the right view without refinement
    // Per view: pack, grey, census, then the arms; with `concurrent` the right view's on the
    // side stream (each stage joined before its timing mark).
    const bool side = w.concurrent;
    const auto census_of = [&](bool right_view, cudaStream_t on) {
      cu::DeviceImage<uchar4>& rgb = right_view ? w.rgb_right : w.rgb_left;
      cu::DeviceImage<std::uint8_t>& grey = right_view ? w.grey_right : w.grey_left;
      ca::pack_rgb((right_view ? w.raw_right : w.raw_left).get(), w.width, w.height, w.channels, rgb, on);
      ca::grey_image(rgb, grey, on);
      ca::census_transform(grey, right_view ? w.census_right : w.census_left, on);
    };
    for_views(s, side, true, [&](bool right_view, cudaStream_t on) { census_of(right_view, on); });
    clock.lap("census");

    // Both views' arms: each view's region at d combines p's cross with pd's (Zhang et al.),
    // whose pixel count the aggregation counts per (p, d).
    for_views(s, side, true, [&](bool right_view, cudaStream_t on) {
      ca::cross_arms(right_view ? w.rgb_right : w.rgb_left, params_, right_view ? w.arms_right : w.arms_left, on);
    });
    clock.lap("cross");

    // The left view only: the cost is computed inside the first pass of iteration 1 (never
    // stored) unless there is no aggregation at all; the later iterations run in place, with
    // paths.lr as scratch. The right view's volume is the left one's, skewed
    // (right_view_from_left: the same pairs and, over the combined region, the same regions).
    const int max_arm = params_.arm_l1 - 1;
    const ca::CostImages images{w.rgb_left, w.rgb_right, w.census_left, w.census_right};
    if (params_.aggregation_iterations == 0)
      ca::ad_census_cost(images, params_, false, w.cost_left, s);
    else
      ca::ad_census_cost_aggregated(images, params_, {w.arms_left, w.arms_right, false, max_arm},
                                    params_.aggregation_iterations, {w.paths.lr, w.cost_left}, s,
                                    w.keep_counts ? &w.counts : nullptr);
    if (both_views) ca::right_view_from_left(w.cost_left, params_.out_of_image_cost, w.cost_right, s);
    clock.lap("cost+aggregate");

    // C2 overwrites C1 in place (the paths are complete before the mean is written); the WTA
    // is fused into the mean. The left C2 stays for the adjustment and sub-pixel steps; the
    // right view's is never stored (and its paths are the second set when the views run at
    // once).
    const ca::RgbPair rgb{w.rgb_left, w.rgb_right};
    for_views(s, side, both_views, [&](bool right_view, cudaStream_t on) {
      if (right_view)
        ca::scanline_disparity(w.cost_right, rgb, params_, true, side ? w.paths_right : w.paths, w.disparity_right,
                               on);
      else
        ca::scanline_optimize(w.cost_left, rgb, params_, false, w.paths, w.cost_left, &w.disparity_left, on);
    });
    clock.lap("scanline+wta");

    return refine(w, range, clock, s);
  }

  // Sec. 2.4 in the reference matcher's order, stopping after params_.refine; returns the map
  // to read back. Maps handed out before interpolation carry +inf at the outliers.
  const cu::DeviceImage<float>& refine(AdCensusBuffers& w, DisparityRange range, cu::StageClock& clock,
                                       cudaStream_t s) {
    const std::string& stop = params_.refine;
    if (stop == "none") return w.disparity_left;
    ca::left_right_check(w.disparity_left, w.disparity_right, range, w.outliers_a, s);
    clock.lap("refine lrc");
    if (stop == "lrc") {
      ca::with_outliers_as_inf(w.disparity_left, w.outliers_a, w.map_a, s);
      return w.map_a;
    }
    ca::region_voting(w.disparity_left, w.outliers_a, w.arms_left, range, params_, w.map_b, w.outliers_b, s);
    clock.lap("refine vote");
    if (stop == "vote") {
      ca::with_outliers_as_inf(w.disparity_left, w.outliers_a, w.map_a, s);
      return w.map_a;
    }
    ca::proper_interpolation(w.disparity_left, w.outliers_a, w.rgb_left, w.map_b, w.outliers_b, s);
    ca::with_outliers_as_inf(w.map_b, w.outliers_b, w.map_a, s);  // pixels with no reliable pixel stay +inf
    clock.lap("refine interp");
    if (stop == "interp") return w.map_a;
    ca::discontinuity_adjustment(w.map_a, w.cost_left, w.map_b, s);
    clock.lap("refine adjust");
    if (stop == "adjust") return w.map_b;
    ca::subpixel_enhancement(w.map_b, w.cost_left, w.map_a, s);
    clock.lap("refine subpixel");
    if (stop == "subpixel") return w.map_a;
    cu::median_3x3(w.map_a, w.map_b, s);
    clock.lap("refine median");
    return w.map_b;
  }

  /// The fewest bytes each timed stage moves through device memory in this design (both
  /// views; methods/adcensus/cuda/NOTES.md).
  [[nodiscard]] std::optional<cu::StageBytes> stage_bytes(const cu::ProblemSize& size) const override {
    const double pixels = size.pixels, cells = size.cells;
    constexpr double INF_MAP = 4.0 + 1.0 + 4.0;  // with_outliers_as_inf: map and flags in, map out
    return cu::StageBytes{
        {"census", pixels * 2.0 * (4.0 + 8.0)},             // RGBA in, census out, per view
        {"cross", pixels * 2.0 * (4.0 + 4.0 + 2.0 * 4.0)},  // RGBA in, arms and two region sizes out
        // The left view: 2 passes an iteration, the first writes fp16, each later one reads and
        // writes it; then the right view's volume, the left one's skewed (one read, one write).
        {"cost+aggregate", cells * (2.0 + 4.0 * std::max(0, 2 * params_.aggregation_iterations - 1) + 4.0)},
        {"scanline+wta", cells * (26.0 + 24.0)},  // 4 paths + eq. 5 mean; the right C2 is not stored
        // Sec. 2.4, per pixel of the left view (maps fp32, outlier flags a byte, arms and RGB
        // 4 bytes): the check reads both maps and writes the flags; each voting iteration reads
        // map, flags and arms and writes map and flags; interpolation reads map, flags and RGB,
        // writes map and flags, then the map with +inf at the outliers (map and flags in, map
        // out); the sub-pixel step reads the map, C2 at k - 1, k and k + 1 and writes the map;
        // the median reads and writes the map. The adjustment reads and writes the map: the C2
        // values it compares at edge pixels depend on the map and are left out of its least.
        // Where refinement stops after the check or the vote, that lap also hands out the map
        // with +inf at the outliers (refine()): 9 B a pixel more.
        {"refine lrc", pixels * (4.0 + 4.0 + 1.0 + (params_.refine == "lrc" ? INF_MAP : 0.0))},
        {"refine vote", pixels * (params_.voting_iterations * (4.0 + 1.0 + 4.0 + 4.0 + 1.0) +
                                  (params_.refine == "vote" ? INF_MAP : 0.0))},
        {"refine interp", pixels * ((4.0 + 1.0 + 4.0 + 4.0 + 1.0) + INF_MAP)},
        {"refine adjust", pixels * (4.0 + 4.0)},
        {"refine subpixel", pixels * (4.0 + 3.0 * 2.0 + 4.0)},
        {"refine median", pixels * (4.0 + 4.0)},
    };
  }

  cu::Stream side_;  // the right view's stream within a stage
  cu::Event fork_, join_;
  // graph=on: the captured algorithm (with its laps), the workspace generation and range.min it
  // was captured for (it holds the buffers' addresses and the volumes' range), its result map.
  cu::TimedGraph graph_;
  std::uint64_t graph_generation_ = 0;
  int graph_range_min_ = 0;
  const cu::DeviceImage<float>* graph_result_ = nullptr;
};

}  // namespace

void register_adcensus_cuda(Registry& registry) {
  registry.add(cu::backend_entry<AdCensusCudaMatcher>(
      "adcensus",
      "AD-Census (Mei et al. ICCV-W 2011), CUDA: fp16 volumes, prefix-sum cross aggregation, warp-per-scanline SO"));
}

}  // namespace stereo
