// The `cuda` backends of ESAW and ESMP (cuda/esaw/stages.h). ESAW runs slab by slab: a run of
// disparity planes goes through init_cost and all 2T passes of all iterations, the last pass
// updating the running arg-min, before the next slab starts (the passes are independent across
// disparities; only the weights, one image, are shared). The default slab is the whole volume
// (slab_planes below); an L2-sized slab is a --set away. ESMP's cost2msg needs every disparity
// of a pixel, so it runs pass by pass over the whole volume, cost2msg- folded into the
// aggregations (aggr_msg.cu). NOTES.md gives the bytes and the expected bound of every kernel.

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/common.h"
#include "cuda/copy_ceiling.h"
#include "methods/esaw/cuda/stages.h"
#include "cuda/shared/median.h"
#include "methods/esaw/register.h"
#include "methods/esaw/params.h"
#include "core/registry.h"

namespace stereo {
namespace {

namespace ce = cu::esaw;

std::string mib(std::size_t bytes) {
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << double(bytes) / (1024.0 * 1024.0);
  return s.str();
}

// Every buffer of one image size; made whole or not at all (the matcher commits it only when
// every allocation succeeded).
struct Workspace {
  int width = 0, height = 0, channels = 0, levels = 0, slab = 0;
  cu::DeviceBuffer<std::uint8_t> raw_left, raw_right;
  cu::DeviceImage<uchar4> rgba_left, rgba_right;
  cu::DeviceImage<uchar4> lab8_left;  // colour=lab8 only: the weights' guide (rgb2lab8 of rgba_left)
  cu::DeviceImage<std::uint8_t> grey_left, grey_right;
  ce::Winner winner;
  cu::DeviceImage<float> disparity;  // after the median
  cu::DeviceImage<float> truncation;  // ESMP's min + eta per pixel, from aggr_H+/aggr_V+
  cu::DeviceImage<float> truncation_next;  // ESMP folded: the pass after writes here (its neighbours read the other)
  ce::DeviceVolume a, b, c;          // ESAW: two slabs (a, b); ESMP: three whole volumes

  static std::size_t bytes_needed(int w, int h, int channels, int planes, int volumes, bool lab8) {
    const std::size_t px = std::size_t(w) * std::size_t(h);
    return px * (2 * std::size_t(channels) + (lab8 ? 3 : 2) * 4 + 2 + 5 * 4) +
           std::size_t(volumes) * ce::DeviceVolume::cells(w, h, planes) * 2;
  }

  Workspace(const std::string& component, int w, int h, int ch, int lv, int planes, int volumes, bool lab8)
      : width(w), height(h), channels(ch), levels(lv), slab(planes) {
    const std::size_t px = std::size_t(w) * std::size_t(h);
    raw_left = cu::make_device_buffer<std::uint8_t>(px * std::size_t(ch), component, "the left image");
    raw_right = cu::make_device_buffer<std::uint8_t>(px * std::size_t(ch), component, "the right image");
    rgba_left = {w, h, component, "the left RGBA image"};
    rgba_right = {w, h, component, "the right RGBA image"};
    if (lab8) lab8_left = {w, h, component, "the left lab8 image"};
    grey_left = {w, h, component, "the left grey image"};
    grey_right = {w, h, component, "the right grey image"};
    winner.cost = {w, h, component, "the winning costs"};
    winner.disparity = {w, h, component, "the winning disparities"};
    disparity = {w, h, component, "the disparity map"};
    truncation = {w, h, component, "the min-sum truncation map"};
    truncation_next = {w, h, component, "the next min-sum truncation map"};
    const char* what = planes < lv ? "a slab of cost planes" : "a cost volume";
    a = {w, h, planes, component, what};
    b = {w, h, planes, component, what};
    if (volumes == 3) c = {w, h, planes, component, what};
  }
};

// Accumulated CUDA-event time per named kernel: a pair of events around every launch group,
// read after the stream has finished.
class KernelClock {
 public:
  void begin(cudaStream_t s) {
    stream_ = s;
    used_ = 0;
    names_.clear();
  }
  template <class F>
  void time(const std::string& name, F&& launch) {
    cudaEvent_t start = event(), stop = event();
    CUDA_CHECK(cudaEventRecord(start, stream_));
    launch();
    CUDA_CHECK(cudaEventRecord(stop, stream_));
    names_.push_back(name);
  }
  // After synchronisation: the per-name totals in first-seen order.
  std::vector<std::pair<std::string, double>> totals() {
    std::vector<std::pair<std::string, double>> out;
    for (std::size_t i = 0; i < names_.size(); ++i) {
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events_[2 * i].get(), events_[2 * i + 1].get()));
      auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == names_[i]; });
      if (it == out.end()) out.emplace_back(names_[i], double(ms));
      else it->second += double(ms);
    }
    return out;
  }

 private:
  cudaEvent_t event() {
    if (used_ == events_.size()) events_.push_back(cu::make_event());
    return events_[used_++].get();
  }
  cudaStream_t stream_ = nullptr;
  std::vector<cu::Event> events_;
  std::size_t used_ = 0;
  std::vector<std::string> names_;
};

template <class Params>
class EsawFamilyCuda final : public Matcher {
 public:
  static constexpr bool ESMP = std::is_same_v<Params, EsmpParams>;

  explicit EsawFamilyCuda(const Overrides& overrides) : component_(ESMP ? "esmp/cuda" : "esaw/cuda") {
    json_ = bind_params(component_, overrides, params_);
    params_.validate(component_);
    require(params_.storage == "fp16", component_ + ": storage=" + params_.storage +
                                           " is for the cpu backend; the CUDA volumes hold fp16 (NOTES.md)");
    if constexpr (ESMP)
      require(params_.esmp_variant != "data", component_ + ": esmp_variant=data runs on the cpu backend only "
                                                           "(the reading measured worst; README \"ESMP readings\")");
    ordinal_ = cu::select_device(component_);
    device_info_ = cu::device_info_json(ordinal_);
    if (params_.colour == "lab8") {
      // One table for every pass (it depends on gamma_c alone); each pass's WeightTable points at it.
      const cu::DeviceScope device_scope(ordinal_);
      lab8_colour_ = ce::lab8_colour_table(params_.gamma_c, component_);
    }
    device_ = device_info_.at("name").get<std::string>();
    stream_ = cu::make_stream();
    for (auto& e : events_) e = cu::make_event();
    int l2 = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ordinal_));
    l2_bytes_ = std::size_t(l2);
    if constexpr (!ESMP) {
      const cu::DeviceScope device_scope(ordinal_);
      hv_device_max_step_ = ce::aggr_hv_max_step();
    }
  }

  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);
    require(left.channels == right.channels, component_ + ": left has " + std::to_string(left.channels) +
                                                 " channels, right " + std::to_string(right.channels));
    require(left.channels == 1 || left.channels == 3 || left.channels == 4,
            component_ + ": images must have 1, 3 or 4 channels, got " + std::to_string(left.channels));
    prepare(left.width, left.height, left.channels, range.count);
    Workspace& w = *work_;
    cudaStream_t s = stream_.get();
    const Params& p = params_;
    const ce::Border border = p.border == "clamp" ? ce::Border::clamp : ce::Border::drop;
    std::vector<ce::WeightTable> tables;
    std::vector<int> steps;
    for (int t = 1; t <= p.iterations; ++t) {
      steps.push_back(esaw_step(p.base, t));
      tables.push_back(ce::weight_table(p.gamma_c, p.gamma_p, steps.back(), lab8_colour_.get()));
    }

    if constexpr (!ESMP) {
      if (p.cuda_graph && (!slab_graph_ || graph_work_ != work_.get() || graph_range_min_ != range.min ||
                           graph_range_count_ != range.count)) {
        // Captured before the timed region, the stream idle since the last match: the launches
        // are recorded, not run (a host cost of ~1 us each, once per size and range). The
        // graph holds the buffers' addresses, so a new workspace or range re-captures it.
        slab_graph_.reset();
        slab_graph_ = cu::capture_graph(s, [&] { enqueue_slabs(range, steps, tables, border); });
        graph_work_ = work_.get();
        graph_range_min_ = range.min;
        graph_range_count_ = range.count;
      }
    }
    CUDA_CHECK(cudaEventRecord(events_[0].get(), s));
    CUDA_CHECK(cudaMemcpyAsync(w.raw_left.get(), left.data.data(), left.data.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(w.raw_right.get(), right.data.data(), right.data.size(), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaEventRecord(events_[1].get(), s));
    clock_.begin(s);
    clock_.time("rgb2grey", [&] {
      ce::rgb2grey(w.raw_left.get(), w.channels, w.rgba_left, w.grey_left, s);
      ce::rgb2grey(w.raw_right.get(), w.channels, w.rgba_right, w.grey_right, s);
    });
    if (lab8_colour_) clock_.time("rgb2lab8", [&] { ce::rgb2lab8(w.rgba_left, w.lab8_left, s); });
    ce::wta_reset(w.winner, s);

    if constexpr (!ESMP) {
      // Slab by slab: the kernels of one slab are timed together (events per launch would cost
      // more than the launches); NOTES.md splits the time by the bytes each kernel moves.
      clock_.time("init_cost+aggr_H+aggr_V+select_disparity (slabs)", [&] {
        if (p.cuda_graph) CUDA_CHECK(cudaGraphLaunch(slab_graph_.get(), s));
        else enqueue_slabs(range, steps, tables, border);
      });
    } else {
      const cu::DeviceImage<uchar4>& guide = weight_guide();
      const float eta = p.eta_factor * float(range.count - 1);  // eta = 0.0375 d_max, as the cpu backend reads it
      const bool literal = p.esmp_variant == "literal";
      const int levels = range.count;
      // The literal reading's first messages come from C0 alone: with fuse_init_cost, eq. 3 is
      // computed inside cost2msg and C0 is never stored (init_cost2msg, cost2msg.cu).
      const bool fuse_init = literal && p.fuse_init_cost;
      if (!fuse_init)
        clock_.time("init_cost", [&] {
          ce::init_cost(w.grey_left, w.grey_right, range.min, levels, p.lambda, p.tau, w.a.plane(0), s);
        });
      const auto first_messages = [&] {  // the messages of C0 into b
        if (fuse_init)
          clock_.time("init_cost+cost2msg", [&] {
            ce::init_cost2msg(w.grey_left, w.grey_right, range.min, levels, p.lambda, p.tau, p.c, eta, w.b.plane(0),
                              s);
          });
        else
          clock_.time("cost2msg",
                      [&] { ce::cost2msg(w.a.plane(0), w.width, w.height, levels, p.c, eta, w.b.plane(0), s); });
      };
      if (literal && p.fold_cost2msg) {
        // cost2msg- folded into the next pass (aggr_msg.cu): after the first aggr_H+, every
        // pass reads the forward values and truncations of the one before and writes its own,
        // ping-ponging (a, truncation) <-> (b, truncation_next); the last runs the WTA.
        const ce::ForwardMinSum forward{p.c, eta, &w.truncation};
        first_messages();
        clock_.time("aggr_H+", [&] {
          ce::aggr_H(guide, w.b.plane(0), w.b.plane(0), levels, steps[0], tables[0], border, w.a.plane(0), s,
                     &forward);
        });
        const int passes = 2 * int(steps.size());
        for (int j = 1; j < passes; ++j) {
          const bool vertical = j % 2 == 1, last = j + 1 == passes;
          const std::size_t t = std::size_t(j / 2);
          const bool from_a = j % 2 == 1;
          const std::uint16_t* in = from_a ? w.a.plane(0) : w.b.plane(0);
          const cu::DeviceImage<float>& h_in = from_a ? w.truncation : w.truncation_next;
          std::uint16_t* out = last ? nullptr : (from_a ? w.b.plane(0) : w.a.plane(0));
          cu::DeviceImage<float>* h_out = last ? nullptr : (from_a ? &w.truncation_next : &w.truncation);
          const std::string name = std::string("cost2msg-+") + (vertical ? "aggr_V+" : "aggr_H+") +
                                   (last ? "select_disparity" : "");
          clock_.time(name, [&] {
            ce::aggr_msg(guide, vertical, in, h_in, levels, steps[t], tables[t], border, p.c, eta, out, h_out,
                         last ? &w.winner : nullptr, range.min, s);
          });
        }
      } else if (literal) {
        // The paper's reorganisation (Sec. IV): every aggregation but the last stores the
        // forward min-sum of its output (aggr_H+, aggr_V+) and cost2msg- finishes the messages,
        // so the min-sum needs no shared memory. a: C0, then forward values; b: messages.
        const ce::ForwardMinSum forward{p.c, eta, &w.truncation};
        first_messages();
        for (std::size_t t = 0; t < steps.size(); ++t) {
          const bool last = t + 1 == steps.size();
          clock_.time("aggr_H+", [&] {
            ce::aggr_H(guide, w.b.plane(0), w.b.plane(0), levels, steps[t], tables[t], border, w.a.plane(0), s,
                       &forward);
          });
          clock_.time("cost2msg-", [&] { ce::cost2msg_backward(w.a.plane(0), w.truncation, levels, p.c, w.b.plane(0), s); });
          if (last) {
            clock_.time("aggr_V+select_disparity", [&] {
              ce::aggr_V(guide, w.b.plane(0), w.b.plane(0), levels, steps[t], tables[t], border, nullptr,
                         &w.winner, range.min, s);
            });
          } else {
            clock_.time("aggr_V+", [&] {
              ce::aggr_V(guide, w.b.plane(0), w.b.plane(0), levels, steps[t], tables[t], border, w.a.plane(0),
                         nullptr, 0, s, &forward);
            });
            clock_.time("cost2msg-", [&] { ce::cost2msg_backward(w.a.plane(0), w.truncation, levels, p.c, w.b.plane(0), s); });
          }
        }
      }
      for (std::size_t t = 0; !literal && t < steps.size(); ++t) {
        const bool last = t + 1 == steps.size();
        // centre: a: the costs, b: their messages, c: the horizontal result.
        clock_.time("cost2msg", [&] { ce::cost2msg(w.a.plane(0), w.width, w.height, levels, p.c, eta, w.b.plane(0), s); });
        clock_.time("aggr_H", [&] {
          ce::aggr_H(guide, literal ? w.b.plane(0) : w.a.plane(0), w.b.plane(0), levels, steps[t], tables[t],
                     border, w.c.plane(0), s);
        });
        clock_.time("cost2msg", [&] { ce::cost2msg(w.c.plane(0), w.width, w.height, levels, p.c, eta, w.b.plane(0), s); });
        clock_.time(last ? "aggr_V+select_disparity" : "aggr_V", [&] {
          ce::aggr_V(guide, literal ? w.b.plane(0) : w.c.plane(0), w.b.plane(0), levels, steps[t], tables[t],
                     border, last ? nullptr : w.a.plane(0), last ? &w.winner : nullptr, range.min, s);
        });
      }
    }
    const cu::DeviceImage<float>* result = &w.winner.disparity;
    if (p.median) {
      clock_.time("median_filter", [&] { cu::median_3x3(w.winner.disparity, w.disparity, s); });
      result = &w.disparity;
    }
    CUDA_CHECK(cudaEventRecord(events_[2].get(), s));

    StereoResult out;
    out.disparity = ImageF(w.width, w.height, 1);
    CUDA_CHECK(cudaMemcpyAsync(out.disparity.data.data(), result->get(), result->count() * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaEventRecord(events_[3].get(), s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    Timing& timing = out.timing;
    timing.clock = "cuda events";
    timing.upload_ms = cu::elapsed_ms(events_[0], events_[1]);
    timing.algorithm_ms = cu::elapsed_ms(events_[1], events_[2]);
    timing.readback_ms = cu::elapsed_ms(events_[2], events_[3]);
    timing.stages = clock_.totals();
    return out;
  }

  [[nodiscard]] nlohmann::json params() const override { return json_; }
  [[nodiscard]] std::string component() const override { return component_; }
  [[nodiscard]] std::string device() const override { return device_; }
  [[nodiscard]] nlohmann::json device_info() const override { return device_info_; }

  /// The fewest bytes each timed stage moves (NOTES.md): each pass reads its volume once and
  /// writes it once. ESAW's default slab is the whole volume (DRAM traffic); with slab_planes
  /// set to an L2-sized slab the figure is L2 traffic and may exceed the DRAM copy rate.
  std::optional<MemoryStats> memory_stats(int width, int height, DisparityRange range) override {
    const cu::DeviceScope device_scope(ordinal_);
    const double px = double(width) * double(height);
    const double cells = px * double(range.count);
    const double T = double(params_.iterations);
    MemoryStats m;
    if constexpr (!ESMP) {
      // Bytes per cell, iteration by iteration, as enqueue_slabs runs them: init_cost writes 2;
      // a pass reads 2 and writes 2, the last writes nothing (fused WTA); a fused aggr_HV reads 2
      // and writes 2 (its halo re-reads not counted); computing C0 inside the first kernel saves
      // its read (and the write of init_cost).
      double per_cell = params_.fuse_init_cost ? 0.0 : 2.0;
      for (int t = 1; t <= params_.iterations; ++t) {
        const bool last = t == params_.iterations, from_grey = t == 1 && params_.fuse_init_cost;
        if (!last && esaw_step(params_.base, t) <= fuse_hv_max_step())
          per_cell += from_grey ? 2.0 : 4.0;
        else
          per_cell += (from_grey ? 2.0 : 4.0) + (last ? 2.0 : 4.0);
      }
      m.stage_bytes = {
          {"rgb2grey", px * 2.0 * (3.0 + 4.0 + 1.0)},
          {"init_cost+aggr_H+aggr_V+select_disparity (slabs)", cells * per_cell + px * 8.0},
          {"median_filter", px * 8.0},
      };
    } else {
      if (params_.esmp_variant == "literal" && params_.fold_cost2msg)
        m.stage_bytes = {
            {"rgb2grey", px * 2.0 * (3.0 + 4.0 + 1.0)},
            {"init_cost", cells * 2.0},  // (fuse_init_cost: none)
            {"cost2msg", cells * 4.0},   // (fuse_init_cost: none)
            {"init_cost+cost2msg", cells * 2.0},  // (without fuse_init_cost: none)
            {"aggr_H+", cells * 4.0 + px * 4.0},
            // forward values in, forward values out, h in (3 samples, mostly cached) and out
            {"cost2msg-+aggr_V+", cells * 4.0 * (T - 1.0) + px * 8.0 * (T - 1.0)},
            {"cost2msg-+aggr_H+", cells * 4.0 * (T - 1.0) + px * 8.0 * (T - 1.0)},
            {"cost2msg-+aggr_V+select_disparity", cells * 2.0 + px * 12.0},
            {"median_filter", px * 8.0},
        };
      else if (params_.esmp_variant == "literal")
        m.stage_bytes = {
            {"rgb2grey", px * 2.0 * (3.0 + 4.0 + 1.0)},
            {"init_cost", cells * 2.0},
            {"cost2msg", cells * 4.0},                          // once, on C0
            {"init_cost+cost2msg", cells * 2.0},
            {"aggr_H+", cells * 4.0 * T + px * 4.0 * T},        // messages in, forward values + h out
            {"cost2msg-", cells * 4.0 * (2.0 * T - 1.0) + px * 4.0 * (2.0 * T - 1.0)},
            {"aggr_V+", cells * 4.0 * (T - 1.0) + px * 4.0 * (T - 1.0)},
            {"aggr_V+select_disparity", cells * 2.0 + px * 8.0},  // the last pass writes no volume
            {"median_filter", px * 8.0},
        };
      else
        m.stage_bytes = {
            {"rgb2grey", px * 2.0 * (3.0 + 4.0 + 1.0)},
            {"init_cost", cells * 2.0},
            {"cost2msg", cells * 4.0 * 2.0 * T},
            {"aggr_H", cells * 6.0 * T},
            {"aggr_V", cells * 6.0 * (T - 1.0)},
            {"aggr_V+select_disparity", cells * 4.0 + px * 8.0},
            {"median_filter", px * 8.0},
        };
    }
    if (lab8_colour_) m.stage_bytes.emplace_back("rgb2lab8", px * 8.0);  // RGBA in, lab8 out
    m.copy_gb_s = cu::measure_copy_gb_s(std::size_t(512) << 20, 9, stream_.get());
    return m;
  }

 private:
  // ESAW's slab loop: init_cost and all 2T passes on a slab of planes, the last pass updating the
  // running arg-min, then the next slab. Enqueued directly (cuda_graph=false) or captured.
  void enqueue_slabs(DisparityRange range, const std::vector<int>& steps, const std::vector<ce::WeightTable>& tables,
                     ce::Border border) {
    Workspace& w = *work_;
    cudaStream_t s = stream_.get();
    const Params& p = params_;
    const cu::DeviceImage<uchar4>& guide = weight_guide();
    static_assert(ce::HV_MAX_STEP == 16, "EsawParams::validate bounds fuse_hv_max_step by 16");
    for (int k0 = 0; k0 < range.count; k0 += w.slab) {
      const int n = std::min(w.slab, range.count - k0);
      // `volume` holds the current iteration's input (C0, or the last V result); `spare` takes
      // the H result of an unfused iteration, or the output of a fused one (then they swap).
      std::uint16_t* volume = w.a.plane(0);
      std::uint16_t* spare = w.b.plane(0);
      bool c0_stored = false;
      if constexpr (!ESMP) {
        if (!p.fuse_init_cost) {
          ce::init_cost(w.grey_left, w.grey_right, range.min + k0, n, p.lambda, p.tau, volume, s);
          c0_stored = true;
        }
      }
      for (std::size_t t = 0; t < steps.size(); ++t) {
        const bool last = t + 1 == steps.size();
        const bool from_grey = t == 0 && !c0_stored;
        if (!last && steps[t] <= fuse_hv_max_step()) {
          if (from_grey)
            ce::init_aggr_HV(w.grey_left, w.grey_right, guide, range.min + k0, n, p.lambda, p.tau, steps[t],
                             tables[t], border, spare, s);
          else
            ce::aggr_HV(guide, volume, n, steps[t], tables[t], border, spare, s);
          std::swap(volume, spare);
          continue;
        }
        if (from_grey)
          ce::init_aggr_H(w.grey_left, w.grey_right, guide, range.min + k0, n, p.lambda, p.tau, steps[t],
                          tables[t], border, spare, s);
        else
          ce::aggr_H(guide, volume, volume, n, steps[t], tables[t], border, spare, s);
        ce::aggr_V(guide, spare, spare, n, steps[t], tables[t], border, last ? nullptr : volume,
                   last ? &w.winner : nullptr, range.min + k0, s);
      }
    }
  }

  // ESAW: the largest step whose iteration runs as one aggr_HV kernel (0: none). ESMP has no
  // such kernel (its passes need every level of a pixel for the min-sum).
  int fuse_hv_max_step() const {
    if constexpr (ESMP) return 0;
    else return std::min(params_.fuse_hv_max_step, hv_device_max_step_);
  }

  // The image the weights read: the left RGBA image (max_rgb) or its lab8 (colour=lab8, written by
  // rgb2lab8 ahead of the passes).
  const cu::DeviceImage<uchar4>& weight_guide() const { return lab8_colour_ ? work_->lab8_left : work_->rgba_left; }

  // ESAW's planes per slab. --set slab_planes=K wins. Otherwise the whole volume when its two
  // copies fit in 90 % of the free memory: every pass then streams the volume through DRAM once
  // (4 B a cell), with its side rows and RGBA reused from L1/L2 (rows in step order). Chosen
  // from the H100's figures at 1920 x 1080 x 256 (not yet measured for ESAW itself): the L2
  // slabs hold only 3 planes there and moved 697 GB/s (55 ms for ESAW-9), while ESMP's
  // whole-volume aggr_H+, which does more per cell, streamed 1661 GB/s. Where the volume does not fit: the most planes
  // whose two slab buffers fill half the L2 (NOTES.md). ESMP: the whole volume, always.
  int slab_planes(int width, int height, int channels, int levels, std::size_t available) const {
    if constexpr (ESMP) return levels;
    else if (params_.slab_planes > 0) return std::min(params_.slab_planes, levels);  // --set slab_planes=K
    const std::size_t whole = Workspace::bytes_needed(width, height, channels, levels, volume_count(), uses_lab8());
    if (double(whole) <= 0.9 * double(available)) return levels;
    const std::size_t plane = std::size_t(width) * std::size_t(height) * 2;
    const std::size_t fit = (l2_bytes_ / 2) / (2 * plane);
    return int(std::clamp<std::size_t>(fit, 1, std::size_t(levels)));
  }

  bool uses_lab8() const { return lab8_colour_ != nullptr; }  // colour=lab8 (its table and guide image)

  // ESAW: two slabs; ESMP literal: costs/forward values and messages; centre also the H result.
  int volume_count() const {
    if constexpr (ESMP) return params_.esmp_variant == "literal" ? 2 : 3;
    return 2;
  }

  void prepare(int width, int height, int channels, int levels) {
    if (work_ && work_->width == width && work_->height == height && work_->channels == channels &&
        work_->levels == levels)
      return;
    const int volumes = volume_count();
    const std::size_t held = work_ ? Workspace::bytes_needed(work_->width, work_->height, work_->channels,
                                                             work_->slab, volumes, uses_lab8())
                                   : 0;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const int planes = slab_planes(width, height, channels, levels, free_bytes + held);
    const std::size_t needed = Workspace::bytes_needed(width, height, channels, planes, volumes, uses_lab8());
    if (needed > free_bytes + held)
      throw Error(component_ + ": " + std::to_string(width) + "x" + std::to_string(height) + " with " +
                  std::to_string(levels) + " levels needs " + mib(needed) + " MiB of GPU memory, " +
                  mib(free_bytes + held) + " MiB free");
    slab_graph_.reset();  // it holds the old buffers' addresses (a new workspace may reuse its host address)
    graph_work_ = nullptr;
    work_.reset();  // release the old size first, so the new one can use its memory
    auto fresh = std::make_unique<Workspace>(component_, width, height, channels, levels, planes, volumes,
                                             uses_lab8());
    work_ = std::move(fresh);
  }

  std::string component_;
  Params params_;
  nlohmann::json json_;
  int ordinal_ = 0;
  nlohmann::json device_info_;
  std::string device_;
  std::size_t l2_bytes_ = 0;
  int hv_device_max_step_ = 0;  // ESAW: the largest step aggr_HV can run on this GPU (its shared memory)
  cu::DeviceBuffer<float> lab8_colour_;  // colour=lab8: exp(-Delta_c/gamma_c) by squared distance; else empty
  cu::Stream stream_;
  std::array<cu::Event, 4> events_;
  KernelClock clock_;
  std::unique_ptr<Workspace> work_;
  // ESAW's captured slab loop (cuda_graph=true) and what it was captured for.
  cu::GraphExec slab_graph_;
  const Workspace* graph_work_ = nullptr;
  int graph_range_min_ = 0, graph_range_count_ = 0;
};

}  // namespace

void register_esaw_cuda(Registry& registry) {
  registry.add(BackendEntry{
      "esaw", "cuda", "ESAW (Yu et al. TCSVT 2010), CUDA: fp16 disparity planes, slabs (whole volume or L2-sized), fused WTA, "
      "one CUDA graph",
      [] { return cu::device_unavailable(); },
      [](const Overrides& o) -> std::unique_ptr<Matcher> { return std::make_unique<EsawFamilyCuda<EsawParams>>(o); }});
}

void register_esmp_cuda(Registry& registry) {
  registry.add(BackendEntry{
      "esmp", "cuda", "ESMP (Yu et al. TCSVT 2010), CUDA: fp16 disparity planes, cost2msg- folded into the passes, fused WTA",
      [] { return cu::device_unavailable(); },
      [](const Overrides& o) -> std::unique_ptr<Matcher> { return std::make_unique<EsawFamilyCuda<EsmpParams>>(o); }});
}

}  // namespace stereo
