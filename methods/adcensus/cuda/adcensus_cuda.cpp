// AD-Census on CUDA: the matcher the registry creates. It owns its stream, events and device
// buffers (sized from the problem, checked against free GPU memory before allocating, reused
// while the size stays the same) and runs the stages of cuda/adcensus/stages.h in the order
// of the reference matcher, stage by stage across both views, timing each with CUDA events.
// Only the left view is aggregated: the right view's aggregated volume is the left one's,
// skewed (right_view_from_left). Up to CONCURRENT_CELLS, the right view's census, arms and
// scanline run on a second stream beside the left view's, joined at each stage's timing mark:
// on small problems a single view's launches leave most of the GPU idle (Teddy: one view's
// scanline is 1,650 warps, a latency-bound walk).

#include <algorithm>
#include <array>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "methods/adcensus/cuda/stages.h"
#include "cuda/shared/median.h"
#include "cuda/common.h"
#include "cuda/copy_ceiling.h"
#include "methods/adcensus/register.h"
#include "methods/adcensus/params.h"
#include "core/validate.h"
#include "core/registry.h"

namespace stereo {
namespace {

constexpr const char* COMPONENT = "adcensus/cuda";
namespace ca = cu::adcensus;

constexpr int VOLUMES = 6;  // C of each view (C -> C1 -> C2 in place) and the four scanline paths
constexpr std::size_t ALLOCATION_SLACK = std::size_t(2) << 20;  // cudaMalloc rounds each buffer up

// Up to this many cells a volume (2^26: 512 MB for a second set of four fp16 path volumes) the
// views run concurrently, and the matcher holds a second path set for the right view's
// scanline. Beyond it one view's launches already fill the GPU (1080p: 2 x (1920 + 1080) path
// warps a view against 3,168 resident on an H100 at the kernel's 24 warps per SM; measured
// there, the concurrent aggregation was 1 % slower) and the set would cost GBs. A choice of
// this suite, measured on Teddy (README); the maps are the same either way.
constexpr std::size_t CONCURRENT_CELLS = std::size_t(1) << 26;

/// Every device buffer of one problem size. Built whole into a local and moved into the
/// matcher, so the matcher never holds a half-allocated set.
struct Workspace {
  int width = 0;
  int height = 0;
  int channels = 0;
  int levels = 0;
  cu::DeviceBuffer<std::uint8_t> raw_left, raw_right;
  cu::DeviceImage<uchar4> rgb_left, rgb_right, arms_left, arms_right;
  cu::DeviceImage<std::uint8_t> grey_left, grey_right;
  cu::DeviceImage<std::uint64_t> census_left, census_right;
  ca::DeviceVolume cost_left, cost_right;
  ca::PathVolumes paths;  // paths.lr doubles as the aggregation scratch
  ca::PathVolumes paths_right;  // the right view's scanline paths, when `concurrent`
  bool concurrent = false;
  // The region counts of iterations 1 and 2, read by 3 and 4 (RegionCounts), when they fit
  // (the left view's: the right view's volume is the left one's, skewed).
  ca::RegionCounts counts;
  bool keep_counts = false;
  cu::DeviceImage<float> disparity_left, disparity_right, map_a, map_b;
  cu::DeviceImage<std::uint8_t> outliers_a, outliers_b;

  static constexpr int BUFFERS = 2 + 4 + 2 + 2 + VOLUMES + 1 + 4 + 2;

  /// Bytes of every buffer above, each rounded up by the allocator's slack; with
  /// `concurrent` also the second path set, with `keep_counts` the region counts.
  static std::size_t bytes_needed(int width, int height, int channels, int levels, bool concurrent,
                                  bool keep_counts) {
    const std::size_t second = concurrent ? path_set_bytes(width, height, levels) : 0;
    const std::size_t counts = keep_counts ? counts_set_bytes(width, height, levels) : 0;
    return single_bytes(width, height, channels, levels) + second + counts;
  }

  static std::size_t counts_set_bytes(int width, int height, int levels) {
    return 2 * ca::DeviceVolume::cells(width, height, levels) * sizeof(std::uint16_t) + 2 * ALLOCATION_SLACK;
  }

  static std::size_t path_set_bytes(int width, int height, int levels) {
    return 4 * ca::DeviceVolume::cells(width, height, levels) * sizeof(std::uint16_t) +
           2 * static_cast<std::size_t>(ca::edge_words_per_row(width)) * static_cast<std::size_t>(height) *
               sizeof(std::uint32_t) +
           5 * ALLOCATION_SLACK;
  }

  static std::size_t single_bytes(int width, int height, int channels, int levels) {
    const std::size_t px = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    const std::size_t exact = 2 * px * static_cast<std::size_t>(channels)        // raw uploads
                              + 4 * px * sizeof(uchar4)  // RGB and arms of both views
                              + 2 * px                   // grey
                              + 2 * px * sizeof(std::uint64_t)  // census
                              + VOLUMES * ca::DeviceVolume::cells(width, height, levels) * sizeof(std::uint16_t) +
                              2 * static_cast<std::size_t>(ca::edge_words_per_row(width)) *
                                  static_cast<std::size_t>(height) * sizeof(std::uint32_t)  // scanline edge bits
                              +
                              4 * px * sizeof(float)  // disparity maps
                              + 2 * px;               // outlier maps
    return exact + BUFFERS * ALLOCATION_SLACK;
  }

  Workspace(int w, int h, int c, DisparityRange range, bool both_at_once, bool with_counts)
      : width(w), height(h), channels(c), levels(range.count), concurrent(both_at_once), keep_counts(with_counts) {
    const std::size_t px = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    raw_left = cu::make_device_buffer<std::uint8_t>(px * static_cast<std::size_t>(c), COMPONENT, "the left image");
    raw_right = cu::make_device_buffer<std::uint8_t>(px * static_cast<std::size_t>(c), COMPONENT, "the right image");
    rgb_left = {w, h, COMPONENT, "the packed left image"};
    rgb_right = {w, h, COMPONENT, "the packed right image"};
    arms_left = {w, h, COMPONENT, "the left cross arms"};
    arms_right = {w, h, COMPONENT, "the right cross arms"};
    grey_left = {w, h, COMPONENT, "the left grey image"};
    grey_right = {w, h, COMPONENT, "the right grey image"};
    census_left = {w, h, COMPONENT, "the left census image"};
    census_right = {w, h, COMPONENT, "the right census image"};
    cost_left = {w, h, range, COMPONENT, "the left cost volume"};
    cost_right = {w, h, range, COMPONENT, "the right cost volume"};
    paths.lr = {w, h, range, COMPONENT, "a scanline path volume"};
    paths.rl = {w, h, range, COMPONENT, "a scanline path volume"};
    paths.tb = {w, h, range, COMPONENT, "a scanline path volume"};
    paths.bt = {w, h, range, COMPONENT, "a scanline path volume"};
    paths.edges = {ca::edge_words_per_row(w), 2 * h, COMPONENT, "the scanline edge bits"};
    if (concurrent) {
      paths_right.lr = {w, h, range, COMPONENT, "a right-view scanline path volume"};
      paths_right.rl = {w, h, range, COMPONENT, "a right-view scanline path volume"};
      paths_right.tb = {w, h, range, COMPONENT, "a right-view scanline path volume"};
      paths_right.bt = {w, h, range, COMPONENT, "a right-view scanline path volume"};
      paths_right.edges = {ca::edge_words_per_row(w), 2 * h, COMPONENT, "the right view's scanline edge bits"};
    }
    if (keep_counts) {
      counts = ca::RegionCounts(ca::DeviceVolume::cells(w, h, range.count), COMPONENT);
    }
    disparity_left = {w, h, COMPONENT, "the left disparity map"};
    disparity_right = {w, h, COMPONENT, "the right disparity map"};
    map_a = {w, h, COMPONENT, "a refinement map"};
    map_b = {w, h, COMPONENT, "a refinement map"};
    outliers_a = {w, h, COMPONENT, "an outlier map"};
    outliers_b = {w, h, COMPONENT, "an outlier map"};
  }

  void set_range(DisparityRange range) {
    for (ca::DeviceVolume* v : {&cost_left, &cost_right, &paths.lr, &paths.rl, &paths.tb, &paths.bt, &paths_right.lr,
                                &paths_right.rl, &paths_right.tb, &paths_right.bt})
      v->range = range;
  }
};

/// Options of this backend only (bound beside AdCensusParams).
struct AdCensusCudaOptions {
  std::string views = "auto";  // the right view beside the left within a stage (see CONCURRENT_CELLS)
  std::string graph = "on";    // the algorithm as one CUDA graph, replayed while size and range stay

  template <class B>
  void describe(B& b) {
    b.choice("views", views, {"auto", "concurrent", "serial"},
             "the two views' census, arms and scanline (the right view's aggregated volume is the left one's, "
             "skewed): on two streams at once (needs a second set of four path volumes), one after the other, or "
             "auto (at once up to 2^26 cells a volume, when it fits); the maps are the same");
    b.choice("graph", graph, {"on", "off"},
             "launch everything after the upload as one CUDA graph (captured on the first call for a size and "
             "range, replayed after) or kernel by kernel; the maps are the same");
  }
};

std::string mib(std::size_t bytes) {
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << double(bytes) / (1024.0 * 1024.0);
  return s.str();
}

class AdCensusCudaMatcher final : public Matcher {
 public:
  explicit AdCensusCudaMatcher(const Overrides& overrides) {
    json_ = bind_params(COMPONENT, overrides, params_, options_);
    params_.validate(COMPONENT);
    json_["cost_storage"] = "fp16";  // what the volumes hold (cuda/adcensus/NOTES.md)
    ordinal_ = cu::select_device(COMPONENT);  // --device / STEREO_DEVICE, current from here on
    device_info_ = cu::device_info_json(ordinal_);
    device_ = device_info_.at("name").get<std::string>();
    stream_ = cu::make_stream();
    side_ = cu::make_stream();
    for (auto& e : events_) e = cu::make_event();
    fork_ = cu::make_event();
    join_ = cu::make_event();
  }

  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);  // the caller's thread may have another device current
    require(left.channels == right.channels, std::string(COMPONENT) + ": left has " + std::to_string(left.channels) +
                                                 " channels, right " + std::to_string(right.channels));
    require(left.channels == 1 || left.channels == 3 || left.channels == 4,
            std::string(COMPONENT) + ": images must have 1, 3 or 4 channels, got " + std::to_string(left.channels));
    require(range.count <= ca::MAX_LEVELS, std::string(COMPONENT) + ": " + std::to_string(range.count) +
                                               " disparity levels; this backend handles up to " +
                                               std::to_string(ca::MAX_LEVELS));
    prepare(left.width, left.height, left.channels, range);
    Workspace& w = *work_;
    cudaStream_t s = stream_.get();
    marks_.clear();

    CUDA_CHECK(cudaEventRecord(events_[0].get(), s));
    CUDA_CHECK(cudaMemcpyAsync(w.raw_left.get(), left.data.data(), left.data.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(w.raw_right.get(), right.data.data(), right.data.size(), cudaMemcpyHostToDevice, s));
    mark("upload");

    // Everything after the upload: launched directly, or (graph=on) as one CUDA graph captured on
    // the first call for this workspace and range and replayed after, which removes the gaps
    // between ~50 dependent launches (stage timing marks are event nodes of the graph).
    const cu::DeviceImage<float>* result = nullptr;
    if (options_.graph == "on") {
      if (!graph_ || graph_work_ != work_.get() || graph_range_min_ != range.min) {
        graph_.reset();
        struct Capturing {  // mark() records event nodes while set; cleared on any exit
          bool& flag;
          ~Capturing() { flag = false; }
        };
        capturing_ = true;
        const Capturing capturing{capturing_};
        graph_ = cu::capture_graph(s, [&] { result = enqueue_algorithm(range, s); });
        graph_work_ = work_.get();
        graph_range_min_ = range.min;
        graph_marks_ = marks_;
        graph_result_ = result;
      }
      marks_ = graph_marks_;
      result = graph_result_;
      CUDA_CHECK(cudaGraphLaunch(graph_.get(), s));
    } else {
      result = enqueue_algorithm(range, s);
    }
    const cudaEvent_t done = events_[marks_.size() + 1].get();
    CUDA_CHECK(cudaEventRecord(done, s));

    StereoResult out;
    out.disparity = ImageF(w.width, w.height, 1);
    CUDA_CHECK(cudaMemcpyAsync(out.disparity.data.data(), result->get(), result->count() * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
    const cudaEvent_t read = events_[marks_.size() + 2].get();
    CUDA_CHECK(cudaEventRecord(read, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    Timing& t = out.timing;
    t.clock = "cuda events";
    t.upload_ms = cu::elapsed_ms(events_[0], events_[1]);
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events_[1].get(), done));
    t.algorithm_ms = ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, done, read));
    t.readback_ms = ms;
    for (std::size_t i = 1; i < marks_.size(); ++i)
      t.stages.emplace_back(marks_[i], cu::elapsed_ms(events_[i], events_[i + 1]));
    return out;
  }

  [[nodiscard]] nlohmann::json params() const override { return json_; }
  [[nodiscard]] std::string component() const override { return COMPONENT; }
  [[nodiscard]] std::string device() const override { return device_; }
  [[nodiscard]] nlohmann::json device_info() const override { return device_info_; }

  /// The fewest bytes each timed stage moves through device memory in this design (both
  /// views; cuda/adcensus/NOTES.md), and a device copy measured now, for `stereo bench`.
  std::optional<MemoryStats> memory_stats(int width, int height, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);
    const double pixels = double(width) * double(height);
    const double cells = pixels * double(range.count);
    MemoryStats m;
    m.stage_bytes = {
        {"census", pixels * 2.0 * (4.0 + 8.0)},              // RGBA in, census out, per view
        {"cross", pixels * 2.0 * (4.0 + 4.0 + 2.0 * 4.0)},   // RGBA in, arms and two region sizes out
        // The left view: 2 passes an iteration, the first writes fp16, each later one reads and
        // writes it; then the right view's volume, the left one's skewed (one read, one write).
        {"cost+aggregate", cells * (2.0 + 4.0 * std::max(0, 2 * params_.aggregation_iterations - 1) + 4.0)},
        {"scanline+wta", cells * (26.0 + 24.0)},             // 4 paths + eq. 5 mean; the right C2 is not stored
    };
    m.copy_gb_s = cu::measure_copy_gb_s(std::size_t(512) << 20, 9, stream_.get());
    return m;
  }

 private:
  bool both_views_concurrent() const { return work_ && work_->concurrent; }

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
  const cu::DeviceImage<float>* enqueue_algorithm(DisparityRange range, cudaStream_t s) {
    Workspace& w = *work_;
    const std::string& stop = params_.refine;
    const bool both_views = stop != "none";  // nothing reads the right view without refinement
    // Per view: pack, grey, census, then the arms; with `concurrent` the right view's on the
    // side stream (each stage joined before its timing mark).
    const bool side = both_views_concurrent();
    const auto census_of = [&](bool right_view, cudaStream_t on) {
      cu::DeviceImage<uchar4>& rgb = right_view ? w.rgb_right : w.rgb_left;
      cu::DeviceImage<std::uint8_t>& grey = right_view ? w.grey_right : w.grey_left;
      ca::pack_rgb((right_view ? w.raw_right : w.raw_left).get(), w.width, w.height, w.channels, rgb, on);
      ca::grey_image(rgb, grey, on);
      ca::census_transform(grey, right_view ? w.census_right : w.census_left, on);
    };
    for_views(s, side, true, [&](bool right_view, cudaStream_t on) { census_of(right_view, on); });
    mark("census");

    // Both views' arms: each view's region at d combines p's cross with pd's (Zhang et al.),
    // whose pixel count the aggregation counts per (p, d).
    for_views(s, side, true, [&](bool right_view, cudaStream_t on) {
      ca::cross_arms(right_view ? w.rgb_right : w.rgb_left, params_, right_view ? w.arms_right : w.arms_left, on);
    });
    mark("cross");

    // The left view only: the cost is computed inside the first pass of iteration 1 (never
    // stored) unless there is no aggregation at all; the later iterations run in place, with
    // paths.lr as scratch. The right view's volume is the left one's, skewed
    // (right_view_from_left: the same pairs and, over the combined region, the same regions).
    const int max_arm = params_.arm_l1 - 1;
    if (params_.aggregation_iterations == 0)
      ca::ad_census_cost(w.rgb_left, w.rgb_right, w.census_left, w.census_right, params_, false, w.cost_left, s);
    else
      ca::ad_census_cost_aggregated(w.rgb_left, w.rgb_right, w.census_left, w.census_right, params_, false,
                                    w.arms_left, w.arms_right, params_.aggregation_iterations, max_arm, w.paths.lr,
                                    w.cost_left, s, w.keep_counts ? &w.counts : nullptr);
    if (both_views) ca::right_view_from_left(w.cost_left, params_.out_of_image_cost, w.cost_right, s);
    mark("cost+aggregate");

    // C2 overwrites C1 in place (the paths are complete before the mean is written); the WTA
    // is fused into the mean. The left C2 stays for the adjustment and sub-pixel steps; the
    // right view's is never stored (and its paths are the second set when the views run at
    // once).
    for_views(s, side, both_views, [&](bool right_view, cudaStream_t on) {
      if (right_view)
        ca::scanline_disparity(w.cost_right, w.rgb_left, w.rgb_right, params_, true, side ? w.paths_right : w.paths,
                               w.disparity_right, on);
      else
        ca::scanline_optimize(w.cost_left, w.rgb_left, w.rgb_right, params_, false, w.paths, w.cost_left,
                              &w.disparity_left, on);
    });
    mark("scanline+wta");

    return refine(range, s);
  }

  // Marks the end of a stage: event i + 1 closes the stage named marks_[i] (event 0 is the
  // start; after the last mark come the end of the algorithm and the end of the read-back).
  void mark(const std::string& name) {
    require(marks_.size() + 4 <= events_.size(), std::string(COMPONENT) + ": too many timed stages");
    marks_.push_back(name);
    // Inside a graph capture an external event node: recorded when the graph runs it.
    CUDA_CHECK(cudaEventRecordWithFlags(events_[marks_.size()].get(), stream_.get(),
                                        capturing_ ? cudaEventRecordExternal : cudaEventRecordDefault));
  }

  // Sec. 2.4 in the reference matcher's order, stopping after params_.refine; returns the map
  // to read back. Maps handed out before interpolation carry +inf at the outliers.
  const cu::DeviceImage<float>* refine(DisparityRange range, cudaStream_t s) {
    Workspace& w = *work_;
    const std::string& stop = params_.refine;
    if (stop == "none") return &w.disparity_left;
    ca::left_right_check(w.disparity_left, w.disparity_right, range, w.outliers_a, s);
    mark("refine lrc");
    if (stop == "lrc") {
      ca::with_outliers_as_inf(w.disparity_left, w.outliers_a, w.map_a, s);
      return &w.map_a;
    }
    ca::region_voting(w.disparity_left, w.outliers_a, w.arms_left, range, params_, w.map_b, w.outliers_b, s);
    mark("refine vote");
    if (stop == "vote") {
      ca::with_outliers_as_inf(w.disparity_left, w.outliers_a, w.map_a, s);
      return &w.map_a;
    }
    ca::proper_interpolation(w.disparity_left, w.outliers_a, w.rgb_left, w.map_b, w.outliers_b, s);
    ca::with_outliers_as_inf(w.map_b, w.outliers_b, w.map_a, s);  // pixels with no reliable pixel stay +inf
    mark("refine interp");
    if (stop == "interp") return &w.map_a;
    ca::discontinuity_adjustment(w.map_a, w.cost_left, w.map_b, s);
    mark("refine adjust");
    if (stop == "adjust") return &w.map_b;
    ca::subpixel_enhancement(w.map_b, w.cost_left, w.map_a, s);
    mark("refine subpixel");
    if (stop == "subpixel") return &w.map_a;
    cu::median_3x3(w.map_a, w.map_b, s);
    mark("refine median");
    return &w.map_b;
  }

  void prepare(int width, int height, int channels, DisparityRange range) {
    if (work_ && work_->width == width && work_->height == height && work_->channels == channels &&
        work_->levels == range.count) {
      work_->set_range(range);  // the same buffers serve any range.min
      return;
    }
    // The second path set only where it is small and fits; without it the same maps come from
    // one path set used by the views in turn.
    const bool small = ca::DeviceVolume::cells(width, height, range.count) <= CONCURRENT_CELLS;
    const bool wanted = options_.views == "concurrent" || (options_.views == "auto" && small);
    const std::size_t needed = Workspace::bytes_needed(width, height, channels, range.count, false, false);
    const std::size_t with_second = Workspace::bytes_needed(width, height, channels, range.count, true, false);
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t held = work_ ? Workspace::bytes_needed(work_->width, work_->height, work_->channels,
                                                             work_->levels, work_->concurrent, work_->keep_counts)
                                   : 0;
    if (needed > free_bytes + held)
      throw Error(std::string(COMPONENT) + ": " + std::to_string(width) + "x" + std::to_string(height) + " with " +
                  std::to_string(range.count) + " levels needs " + mib(needed) + " MiB of GPU memory, " +
                  mib(free_bytes + held) + " MiB free");
    if (options_.views == "concurrent" && with_second > free_bytes + held)
      throw Error(std::string(COMPONENT) + ": views=concurrent at " + std::to_string(width) + "x" +
                  std::to_string(height) + " with " + std::to_string(range.count) + " levels needs " +
                  mib(with_second) + " MiB of GPU memory, " + mib(free_bytes + held) + " MiB free");
    const bool concurrent = wanted && with_second <= free_bytes + held;
    // The region counts where iterations 3.. can read them and they fit beside the rest
    // (without them every iteration counts again: the same maps, ~9 % more aggregation time).
    const bool counts_wanted =
        params_.aggregation_iterations > 2 && ca::RegionCounts::fit_16_bits(params_.arm_l1 - 1);
    const bool keep_counts =
        counts_wanted &&
        Workspace::bytes_needed(width, height, channels, range.count, concurrent, true) <= free_bytes + held;
    graph_.reset();  // it holds the old buffers' addresses (a new workspace may reuse its host address)
    graph_work_ = nullptr;
    work_.reset();  // release the old size first, so the new one can use its memory
    auto fresh = std::make_unique<Workspace>(width, height, channels, range, concurrent, keep_counts);
    work_ = std::move(fresh);
  }

  AdCensusParams params_;
  AdCensusCudaOptions options_;
  nlohmann::json json_;
  int ordinal_ = 0;
  nlohmann::json device_info_;
  std::string device_;
  cu::Stream stream_;
  cu::Stream side_;  // the right view's stream within a stage
  std::array<cu::Event, 16> events_;
  cu::Event fork_, join_;
  std::vector<std::string> marks_;
  std::unique_ptr<Workspace> work_;
  // graph=on: the captured algorithm, what it was captured for (it holds the workspace's
  // addresses and range.min), and its marks and result map.
  cu::GraphExec graph_;
  const Workspace* graph_work_ = nullptr;
  int graph_range_min_ = 0;
  std::vector<std::string> graph_marks_;
  const cu::DeviceImage<float>* graph_result_ = nullptr;
  bool capturing_ = false;
};

}  // namespace

void register_adcensus_cuda(Registry& registry) {
  registry.add(BackendEntry{
      "adcensus", "cuda",
      "AD-Census (Mei et al. ICCV-W 2011), CUDA: fp16 volumes, prefix-sum cross aggregation, warp-per-scanline SO",
      [] { return cu::device_unavailable(); },
      [](const Overrides& overrides) -> std::unique_ptr<Matcher> {
        return std::make_unique<AdCensusCudaMatcher>(overrides);
      }});
}

}  // namespace stereo
