#pragma once
/// \file cuda/matcher_frame.h
/// The frame every CUDA matcher sits in (libSGM's StereoSGM::Impl: the constructor binds and
/// allocates, `execute` chains the stages). It owns what no method should write again:
///  - CudaMatcher<Params, Options>: the paper's Params and the backend's Options bound from the
///    overrides in one ParamBinder and validated, params() (with the backend's read-only
///    facts), component(), the device (--device / STEREO_DEVICE) and its identity, the stream,
///    memory_stats() beside a copy ceiling measured now;
///  - FrameMatcher<Params, Options, Buffers>: on top, one workspace of the method's Buffers
///    (cuda/workspace.h: declared once, summed for one free-memory check, allocated whole,
///    reused while the key stays), the upload of the two images (ImageU8s, host views of
///    any pitch, or views in device memory: input_copy()), one StageClock
///    (cuda/stage_clock.h) and the read-back of the float map (into an ImageF or the
///    caller's host or device memory) and the pass inspector (keep_passes(), inspector():
///    the buffers a method names per stage in show_stages, cuda/stage_show.h, read from the
///    workspace when asked); a method adds its stages.
/// Class templates over the method's types, as reference::CpuMatcher<Params> is for the cpu
/// backend, because the binder refers to the Params and Options fields themselves and the
/// workspace holds the method's own buffer struct; what depends on neither (device, stream,
/// JSON, memory stats, copies) is the plain CudaMatcherBase, compiled once. A method overrides
/// virtual hooks (key_for, run_stages, ...) rather than match(), so that the per-frame steps
/// (prepare, upload, stages, read-back) stay the frame's own and a sequence overlaps them
/// across frames here alone (match_stream, cuda/frame_stream.h: frame n+1's upload and frame
/// n-1's read-back on slot streams beside frame n's stages): every hook takes its buffers,
/// clock and stream as arguments.
/// SA-LAP, whose compact index maps, row slabs and three-slot stream are its own, derives from
/// CudaMatcher and uses Workspace and StageClock per slot, and upload_rows() for its images.

#include <cuda_runtime.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/image_view.h"
#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "cuda/common.h"
#include "cuda/frame_stream.h"
#include "cuda/stage_clock.h"
#include "cuda/stage_show.h"
#include "cuda/workspace.h"
#include "stereo/testing.h"

namespace stereo::cu {

/// Bytes a stage moves through device memory, by stage name (MemoryStats::stage_bytes).
using StageBytes = std::vector<std::pair<std::string, double>>;

/// The problem memory_stats() is asked about, with its pixel and cost-cell counts.
struct ProblemSize {
  int width = 0, height = 0;
  DisparityRange range;
  double pixels = 0.0;  ///< width x height
  double cells = 0.0;   ///< pixels x range.count
};

/// The Options of a backend without knobs of its own.
struct NoOptions {
  template <class B>
  void describe(B& /*binder*/) {}
};

/// What every CUDA matcher has, whatever its Params: identity, device, stream, JSON.
class CudaMatcherBase : public Matcher {
 public:
  /// The bound Params and Options values, and facts() beside them.
  [[nodiscard]] nlohmann::json params() const final;
  [[nodiscard]] std::string component() const final { return component_; }
  [[nodiscard]] std::string device() const final { return device_; }
  [[nodiscard]] nlohmann::json device_info() const final { return device_info_; }
  /// stage_bytes() with a device copy measured now (cu::measure_copy_gb_s), for `bench`.
  std::optional<MemoryStats> memory_stats(int width, int height, DisparityRange range) final;
  /// The GPU board's energy counter through NVML (cu::read_energy_mj, cuda/nvml_energy.h).
  EnergyReading energy_counter() final;

 protected:
  explicit CudaMatcherBase(std::string component) : component_(std::move(component)) {}
  /// After binding: keeps the bound values, selects the device (cu::select_device, current in
  /// this thread from here on) and reads its identity (cu::device_info_json).
  void open_device(nlohmann::json bound);

  /// Read-only facts of the backend merged into params() (what its volumes hold, the path in
  /// force and why): reported with every result, never set by an override.
  [[nodiscard]] virtual nlohmann::json facts() const { return nlohmann::json::object(); }
  /// The fewest bytes each timed stage moves through device memory at `size`, named as in
  /// Timing::stages; empty for a backend that does not account them.
  [[nodiscard]] virtual std::optional<StageBytes> stage_bytes(const ProblemSize& /*size*/) const {
    return std::nullopt;
  }

  [[nodiscard]] int ordinal() const { return ordinal_; }
  /// The matcher's stream (non-blocking), made on first use: call under a DeviceScope.
  cudaStream_t stream();

  /// Before a frame reads views in device memory (under a DeviceScope): checks that each is
  /// device memory of this matcher's device (cudaPointerGetAttributes; throws stereo::Error
  /// naming the component otherwise) and makes `s` wait, on the device, for the work queued
  /// on each view's stream (ImageView::stream). Host views: nothing.
  void accept_views(const ImageView& left, const ImageView& right, cudaStream_t s);
  /// The same check for a map the caller gives in device memory.
  void accept_output(const DisparityView& out) const;

 private:
  std::string component_;
  nlohmann::json bound_;
  int ordinal_ = 0;
  nlohmann::json device_info_;
  std::string device_;
  Stream stream_;
  Event producer_;  // recorded on a device view's stream, waited for on ours
};

/// A CUDA matcher's Params (the paper's) and Options (its CUDA knobs), bound from the overrides
/// in one binder, so a key of neither is refused, and validated (Options::validate where it
/// has one) before the device is touched.
template <class P, class O = NoOptions>
class CudaMatcher : public CudaMatcherBase {
 public:
  using Params = P;
  using Options = O;

 protected:
  CudaMatcher(std::string component, const Overrides& overrides) : CudaMatcherBase(component) {
    nlohmann::json bound = bind_params(component, overrides, params_, options_);
    validate_params(params_, component);
    if constexpr (requires { options_.validate(component); }) validate_params(options_, component);
    open_device(std::move(bound));
  }

  Params params_;
  Options options_;
};

/// Enqueues on `stream` the copy of one image into `d_dst`, dense (width * channels bytes a
/// row): from a dense host view one cudaMemcpyAsync (as an ImageU8 always went), from a host
/// view with a pitch one cudaMemcpy2DAsync (the copy engine walks the rows; no host copy),
/// from a device view a device-to-device copy. Counted in testing::image_copies().
void input_copy(std::uint8_t* d_dst, const ImageView& image, cudaStream_t stream);
/// Enqueues on `stream` the copies of both views into `inputs` (sized for them by its
/// declare_inputs), each by input_copy().
void upload_pair(InputPair& inputs, const ImageView& left, const ImageView& right, cudaStream_t stream);

/// Rows first .. end - 1 of a frame.
struct RowSpan {
  int first = 0;
  int end = 0;
};

/// Where a frame that pipelines its upload (salap/cuda: row slabs whose matching starts while
/// the rest uploads) stages host views: page-locked memory for both views' rows, which the
/// host threads of `pool` gather densely (a pitch costs no extra copy), so each copy is
/// asynchronous and runs at the link's speed, unlike a copy from pageable memory.
struct Staging {
  std::uint8_t* buffer = nullptr;  ///< page-locked, at least 2 x the rows' dense bytes
  ThreadPool* pool = nullptr;      ///< the gathering threads; null: the calling thread
};

/// upload_pair() of rows `rows` only, into the same rows of `inputs`: host views through
/// `staging` where one is given (cu::staged_upload, both views in one pipeline of slices),
/// else, and where a view is in device memory, by input_copy() of the rows. Counted in
/// testing::image_copies() as one copy per view.
void upload_rows(InputPair& inputs, const ImageView& left, const ImageView& right, RowSpan rows,
                 const Staging* staging, cudaStream_t stream);

/// Enqueues on `stream` the copy of a device map into `out`, resized to the map's size.
void read_back(const DeviceImage<float>& map, ImageF& out, cudaStream_t stream);
/// Enqueues on `stream` the copy of a dense device map (width x height floats at `d_map`) into
/// the caller's `out` of the same size: host memory (device to host) or device memory
/// (device to device, never through the host), any pitch.
void read_back(const float* d_map, int width, int height, const DisparityView& out, cudaStream_t stream);

namespace testing {
/// The image copies the CUDA frames (and salap/cuda's staged upload) have issued in this
/// process, by direction: what a test reads before and after a call on device views to prove
/// that no image went from host to device. Public as stereo::testing::image_copies().
using ImageCopies = ::stereo::testing::ImageCopies;
ImageCopies image_copies();
/// Adds one copy of an image from `from` memory to the counts (for a frame's own uploads).
void count_image_copy(Memory from);
}  // namespace testing

/// A CudaMatcher whose frame is the usual one: the method's Buffers (an InputPair first, see
/// cuda/workspace.h for what else they declare) prepared for the pair, both images uploaded,
/// the method's stages run and timed, one float map read back.
template <class P, class O, class Buffers>
class FrameMatcher : public CudaMatcher<P, O> {
 public:
  /// Shows, after every later frame, what show_stages names in the workspace; nothing is kept
  /// beyond the workspace itself, so a kept frame costs no more than a plain one.
  void keep_passes(bool keep) override {
    keep_ = keep;
    shown_.clear();
  }
  /// The held workspace's device memory (Workspace::held_bytes, measured as it was allocated,
  /// and its declared bytes); nullopt before the first frame. Every device buffer and FFT plan
  /// of a frame matcher is in its workspace, made whole on the frame that needs it and held, so
  /// this is also the frames' peak (a sequence's frames share the same workspace).
  [[nodiscard]] std::optional<DeviceMemoryUse> device_memory() const override {
    if (workspace_.held() == nullptr) return std::nullopt;
    return DeviceMemoryUse{double(workspace_.held_bytes()), double(workspace_.declared_bytes())};
  }
  /// The stages of the last frame (of a sequence: its last), while keep_passes(true) holds;
  /// empty before the first frame and after one that failed. Its readers copy from the
  /// workspace, so they show the last frame until the next one runs.
  PassInspector* inspector() override {
    if (!keep_) return nullptr;
    shown_.clear();
    if (const Buffers* w = workspace_.held(); w != nullptr && shown_range_) {
      StageShow show(shown_, this->ordinal());
      show_stages(show, *w, *shown_range_);
    }
    return &shown_;
  }

 protected:
  using Key = typename Buffers::Key;

  FrameMatcher(const std::string& component, const Overrides& overrides)
      : CudaMatcher<P, O>(component, overrides), workspace_(component), sequence_(component) {}

  // ---- what a method adds ------------------------------------------------------------

  /// The buffers' key for this pair and range, after the method's own checks of them (throws
  /// stereo::Error naming the component).
  virtual Key key_for(const ImageView& left, DisparityRange range) const = 0;
  /// Completes a new set's key with the choices that depend on the free memory (measured
  /// after the old set was released). Default: none.
  virtual void choose(Key& /*key*/, std::size_t /*free_bytes*/) const {}
  /// Completes a freshly allocated set before it is kept (tables made once per set).
  virtual void fill(Buffers& /*buffers*/, cudaStream_t /*stream*/) {}
  /// Before the frame's upload, outside its timing (ranges set on volumes, graphs captured).
  virtual void before_frame(Buffers& /*buffers*/, DisparityRange /*range*/, cudaStream_t /*stream*/) {}
  /// The method's stages on the uploaded pair, enqueued on `stream` with clock.lap(name) after
  /// each; returns the device map to read back (disparity in pixels, +inf = none).
  virtual const DeviceImage<float>& run_stages(Buffers& buffers, DisparityRange range, StageClock& clock,
                                               cudaStream_t stream) = 0;
  /// After the read-back, outside the timing (a cost volume a caller asked for; not called by
  /// compute_into, whose Timing carries no StereoResult).
  virtual void after_frame(const Buffers& /*buffers*/, DisparityRange /*range*/, StereoResult& /*result*/) {}
  /// True where every pixel of the map run_stages returns is a whole level, range.min + k with
  /// 0 <= k < range.count (a winner-takes-all without sub-pixel steps or invalid pixels): a
  /// sequence then reads back 8- or 16-bit level indices instead of floats. Checked per frame
  /// on the device (a frame where it does not hold comes back as floats), so it costs speed,
  /// never the map, where it is wrong. Default: false.
  [[nodiscard]] virtual bool whole_levels(DisparityRange /*range*/) const { return false; }
  /// Names, per stage, the buffer of `buffers` that holds its output once a frame over `range`
  /// is done, with its layout (PassLayout::name: the stage's lap, or "lap.buffer"), in pipeline
  /// order. Buffers a later stage overwrites are not shown. Default: none.
  virtual void show_stages(StageShow& /*show*/, const Buffers& /*buffers*/, DisparityRange /*range*/) const {}

  /// Whether keep_passes(true) holds: a method whose buffers overwrite a stage's output keeps
  /// a copy of it only then (in buffers its key_for asks for only then), so a plain frame runs
  /// as if no inspector existed.
  [[nodiscard]] bool keeping() const { return keep_; }

  // ---- the frame's steps -------------------------------------------------------------

  /// The workspace for this pair and range (cuda/workspace.h Workspace::prepare).
  Buffers& prepare(const ImageView& left, DisparityRange range, cudaStream_t stream) {
    return workspace_.prepare(
        key_for(left, range), stream, [this](Key& key, std::size_t free_bytes) { choose(key, free_bytes); },
        [this, stream](Buffers& buffers) { fill(buffers, stream); });
  }

  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) final {
    return match_view(ImageView(left), ImageView(right), range);
  }

  /// The frame on views: host views of any pitch or device views, read where they are.
  StereoResult match_view(const ImageView& left, const ImageView& right, DisparityRange range) final {
    const DeviceScope device_scope(this->ordinal());  // the caller's thread may have another device current
    StereoResult out;
    const Buffers& buffers = run_frame(left, right, range, [&](const DeviceImage<float>& map, cudaStream_t s) {
      read_back(map, out.disparity, s);
    });
    out.timing = clock_.timing();
    after_frame(buffers, range, out);
    return out;
  }

  /// The frame with the map copied straight into the caller's host or device memory.
  Timing match_into(const ImageView& left, const ImageView& right, DisparityRange range,
                    const DisparityView& out) final {
    const DeviceScope device_scope(this->ordinal());
    if (out.memory == Memory::cuda) this->accept_output(out);
    run_frame(left, right, range, [&](const DeviceImage<float>& map, cudaStream_t s) {
      read_back(map.get(), map.width, map.height, out, s);
    });
    return clock_.timing();
  }

  /// A sequence: up to FrameStream::SLOTS frames in flight around this workspace, each frame
  /// through the same hooks as match_view (so the same map), its copies overlapping the
  /// neighbouring frames' stages (cuda/frame_stream.h).
  void match_stream(DisparityRange range, const FrameSource& next, const FrameSink& done) final {
    const DeviceScope device_scope(this->ordinal());
    cudaStream_t s = this->stream();
    Buffers* buffers = nullptr;
    SequenceHooks hooks;
    hooks.prepare = [&](const ImageView& first) -> InputPair& {
      buffers = &prepare(first, range, s);
      return *buffers;
    };
    hooks.before_frame = [&] { before_frame(*buffers, range, s); };
    hooks.run_stages = [&](StageClock& clock) -> const DeviceImage<float>& {
      shown_range_.reset();
      const DeviceImage<float>& map = run_stages(*buffers, range, clock, s);
      shown_range_ = range;
      return map;
    };
    sequence_.run(range, whole_levels(range), s, next, done, hooks);
  }

  Workspace<Buffers> workspace_;

 private:
  /// One frame up to its enqueued read-back (`read(map, stream)`), each step marked on the
  /// clock; the caller waits through clock_.timing(). A device view's producer stream is
  /// waited for before the clock starts, so its work is not counted as upload.
  template <class ReadBack>
  const Buffers& run_frame(const ImageView& left, const ImageView& right, DisparityRange range, ReadBack&& read) {
    cudaStream_t s = this->stream();
    shown_range_.reset();
    Buffers& buffers = prepare(left, range, s);
    before_frame(buffers, range, s);
    this->accept_views(left, right, s);
    clock_.start(s);
    upload_pair(buffers, left, right, s);
    clock_.uploaded();
    const DeviceImage<float>& map = run_stages(buffers, range, clock_, s);
    shown_range_ = range;
    clock_.matched();
    read(map, s);
    clock_.read_back();
    return buffers;
  }

  StageClock clock_;
  FrameStream sequence_;
  bool keep_ = false;
  PassTable shown_{this->component()};
  std::optional<DisparityRange> shown_range_;  // the range of the frame the workspace holds, once run
};

/// The registry entry of CUDA matcher M (constructed from the overrides): usable where a CUDA
/// device is, with M's Options table as the backend's own knobs (`stereo params`).
template <class M>
BackendEntry backend_entry(const std::string& method, std::string summary) {
  return BackendEntry{method,
                      "cuda",
                      std::move(summary),
                      [] { return device_unavailable(); },
                      [](const Overrides& overrides) -> std::unique_ptr<Matcher> {
                        return std::make_unique<M>(overrides);
                      },
                      [method] { return describe_defaults<typename M::Options>(method + "/cuda"); }};
}

}  // namespace stereo::cu
