#pragma once
/// \file gl/matcher_shell.h
/// The frame every GL matcher sits in. GlMatcher<Passes> owns what a fragment-pass backend and
/// a compute-shader backend have alike: binding Params + Options from the overrides and
/// validating them, the shared context and its one-thread rule, the two views' textures and
/// their upload, the pass clock (GL timer queries, or glFinish and a host clock on llvmpipe),
/// the read-back, and the sequence path double-buffered through pixel buffer objects. A backend
/// supplies only its passes: a type that meets GlPasses.

#include <GL/glew.h>

#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "core/image.h"
#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "gl/check.h"
#include "gl/context.h"
#include "gl/kept_passes.h"
#include "gl/objects.h"
#include "gl/pixel_transfer.h"
#include "gl/program.h"
#include "gl/state.h"

namespace stereo::gl {

/// What a run hands its passes: the two views as the shell uploaded them (RGBA8 rectangle
/// textures, GL_NEAREST, texture row 0 = image row 0), their size, the input's channel count
/// (1: grey, 3 or 4: colour) and the range. Passes work on level indices 0 .. range.count-1;
/// level k is disparity range.min + k, and the shell adds range.min to the map it reads back.
struct GlFrame {
  const Texture& left;
  const Texture& right;
  int width = 0;
  int height = 0;
  int channels = 0;
  DisparityRange range;
};

/// Where the winners of a run are read back from: one float per pixel of `format` (GL_RED,
/// GL_GREEN, ...) of `texture`, as level indices.
struct GlReadback {
  const Texture& texture;
  GLenum format = GL_RED;
};

/// The protocol between the shell and a backend's passes, checked by the compiler wherever
/// GlMatcher<P> is named. A concept rather than a base class with pure virtuals: the shell is a
/// template in any case (it binds and validates P::Params and P::Options, types a virtual
/// interface could not name), the passes of each group are called without an indirection,
/// and a passes type that lacks a member fails to compile at the matcher's declaration, naming
/// the requirement, instead of at link time or not at all.
template <class P>
concept GlPasses =
    std::constructible_from<P, const typename P::Params&, const typename P::Options&> &&
    requires(P& passes, const typename P::Params& params, const GlFrame& frame, int n, PassTimer* timer,
             const Context& context, const std::string& component) {
      // "method/backend" ("salap/gl"): the registry's names and every error's prefix.
      { P::COMPONENT } -> std::convertible_to<std::string_view>;
      // The disparity levels one group of passes decides (SA-LAP: 4, one per RGBA channel).
      { P::LEVELS_PER_GROUP } -> std::convertible_to<int>;
      // Throws stereo::Error naming `component` and the offending value.
      params.validate(component);
      // Makes every target for width x height; the shell calls it when the size changes.
      passes.allocate(n, n);
      // Resets the winner-takes-all state before a run's first group.
      passes.clear_selection();
      // Issues the group of levels d0 .. d0 + LEVELS_PER_GROUP - 1, each pass between
      // timer->begin(kind) and timer->end() when `timer` is not null (gl::timed).
      passes.run_group(frame, n, timer);
      // Orders the passes' writes before a read-back of any of their textures (a barrier after
      // image stores; nothing after rendering, which GL orders itself).
      passes.make_readable();
      { passes.disparity() } -> std::same_as<GlReadback>;
      // The fetch accounting and a fetch-only ceiling pass of the backend's own kind, measured
      // now (Matcher::fetch_stats; the shell has checked the sizes and made the context current).
      { passes.fetch_stats(context, n, n, n) } -> std::same_as<FetchStats>;
    };

/// `body()` between timer->begin(kind) and timer->end(), or untimed when `timer` is null.
template <class Body>
void timed(PassTimer* timer, const char* kind, Body&& body) {
  if (timer) timer->begin(kind);
  body();
  if (timer) timer->end();
}

/// Level indices (what the passes select) to disparities: + d_min where finite.
inline ImageF with_min_disparity(ImageF levels, int d_min) {
  if (d_min != 0)
    for (float& v : levels.data)
      if (std::isfinite(v)) v += float(d_min);
  return levels;
}

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// A backend's Options and the shell's own knobs (UploadOptions), bound and described as one.
template <class BackendOptions>
struct GlOptions {
  BackendOptions backend;
  UploadOptions transfer;

  template <class B>
  void describe(B& b) {
    backend.describe(b);
    transfer.describe(b);
  }
};

/// A GL matcher: the shell around the passes P. A method's backend names it (or derives from
/// it to add debug entry points) and registers it with backend_entry().
template <GlPasses P>
class GlMatcher : public Matcher {
 public:
  using Passes = P;
  using Params = typename P::Params;
  using Options = GlOptions<typename P::Options>;

  /// Binds Params + Options, validates, takes the shared context (this thread is then the one
  /// every later call must come from) and builds the passes; throws stereo::Error (no
  /// context, bad parameter, shader failure).
  explicit GlMatcher(const Overrides& overrides) {
    const std::string component(P::COMPONENT);
    Params params;
    Options options;
    json_ = bind_params(component, overrides, params, options);
    validate_params(params, component);
    context_ = shared_context();
    context_->make_current();
    transfer_.expand_rgb_on_host(options.transfer.upload == "rgba");
    passes_ = std::make_unique<P>(params, options.backend);
  }

  ~GlMatcher() override {
    // GL objects die with the context current. On another thread it cannot be made current
    // (Context::make_current), and a destructor must not throw: the objects' deletes then have
    // no context and do nothing, so their memory stays with the context until the process ends.
    if (context_ && context_->owned_by_this_thread()) context_->make_current();
  }
  GlMatcher(const GlMatcher&) = delete;
  GlMatcher& operator=(const GlMatcher&) = delete;

  [[nodiscard]] nlohmann::json params() const override { return json_; }
  [[nodiscard]] std::string component() const override { return std::string(P::COMPONENT); }
  [[nodiscard]] std::string device() const override { return context_->renderer(); }
  /// The context's Context::device_info(): renderer, UUID (or null), vendor, version, EGL device.
  [[nodiscard]] nlohmann::json device_info() const override { return context_->device_info(); }

  std::optional<FetchStats> fetch_stats(int width, int height, int levels) override {
    require(width > 0 && height > 0 && levels > 0, component() + ": fetch_stats needs a positive size, got " +
                                                     std::to_string(width) + "x" + std::to_string(height) + ", " +
                                                     std::to_string(levels) + " levels");
    context_->make_current();
    return passes_->fetch_stats(*context_, width, height, levels);
  }

  /// Keeps every pass's targets of each later run for inspector() (gl/kept_passes.h: read back
  /// after each group, so a kept run's timing includes those read-backs' waits). Passes that
  /// name no targets (InspectablePasses) refuse, as Matcher's default does.
  void keep_passes(bool keep) override {
    if constexpr (InspectablePasses<P>) {
      keep_ = keep;
      kept_.clear();
    } else {
      Matcher::keep_passes(keep);
    }
  }
  /// The passes of the last run (of a sequence: its last frame) while keep_passes(true) holds.
  PassInspector* inspector() override { return keep_ ? &kept_ : nullptr; }

  /// "key = default  (doc)" per knob of Options (BackendEntry::describe_options).
  [[nodiscard]] static std::string describe_options() { return describe_defaults<Options>(std::string(P::COMPONENT)); }

  /// The passes, for a method's debug entry points and tests.
  [[nodiscard]] P& passes() { return *passes_; }
  [[nodiscard]] const P& passes() const { return *passes_; }

  /// For debug entry points: makes the context current, uploads the pair for `range` (no
  /// validation: the caller's) and returns `body(passes(), frame)`; runs and reads nothing.
  template <class Body>
  decltype(auto) with_uploaded_pair(const ImageU8& left, const ImageU8& right, DisparityRange range, Body&& body) {
    context_->make_current();
    const GlFrame frame = allocate(ImageView(left), range);
    upload(ImageView(left), ImageView(right), 0, false);
    return std::forward<Body>(body)(*passes_, frame);
  }

  /// The whole of `texture` (one of the passes') as `channels` floats per pixel, after the
  /// passes' writes.
  ImageF read(const Texture& texture, GLenum format, int channels) {
    context_->make_current();
    return download(texture, format, channels);
  }
  /// The winners so far as disparities (level index + d_min where finite).
  ImageF read_disparity(int d_min) {
    context_->make_current();
    return download_disparity(d_min);
  }

 protected:
  /// The whole method (match_view): upload (timed by glFinish and a host clock), the groups in increasing
  /// level (each pass timed by the PassTimer), read-back of the disparity map.
  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    return match_view(ImageView(left), ImageView(right), range);
  }

  /// match() on host views of any pitch: the upload writes them into its buffer as it writes
  /// an ImageU8 (PixelTransfer::upload), so nothing is copied beyond what an ImageU8 costs.
  StereoResult match_view(const ImageView& left, const ImageView& right, DisparityRange range) override {
    if (left.memory != Memory::host) this->not_in_host_memory("the image pair");
    const std::string component = this->component();
    context_->make_current();
    const GlFrame frame = allocate(left, range);
    StereoResult result;

    GL_CHECK(glFinish());
    auto t0 = std::chrono::steady_clock::now();
    upload(left, right, 0, false);
    GL_CHECK(glFinish());
    result.timing.upload_ms = ms_since(t0);

    PassTimer timer(context_->use_timer_queries());
    const bool check_state = contract_checks_enabled();  // gl/STATE.md, debug builds
    if (check_state) check_state_at_rest(component + " upload");
    run_groups(frame, &timer, check_state);
    result.timing.stages = timer.results();
    for (const auto& [kind, ms] : result.timing.stages) result.timing.algorithm_ms += ms;
    result.timing.clock = timer.clock() + "; host clock around glFinish for upload and read-back";

    t0 = std::chrono::steady_clock::now();
    result.disparity = download_disparity(range.min);
    result.timing.readback_ms = ms_since(t0);
    if (check_state) check_state_at_rest(component + " read-back");
    return result;
  }

  /// The sequence path (Matcher::match_stream): frame i goes up through upload half i % 2 and
  /// comes back through read-back half i % 2, each fenced, and the map of frame i-1 is
  /// collected only after frame i's passes are issued. So the host's copies of one frame and
  /// the wait for its map overlap the GPU's passes of the other; no glFinish between frames.
  /// The passes are match()'s, in the same order, so every map is the one compute() gives.
  /// Timing per frame (host clock): upload = writing both views into the buffer and issuing
  /// the copies; algorithm = from issuing the passes until the map's fence signalled (it
  /// includes the GPU's read-back copy and whatever of the previous frame was still running,
  /// so it is a latency, and frames overlap: the stream's fps is the throughput); read-back =
  /// copying the map out of the mapped buffer, after the fence (before, the wait for the fence
  /// was counted here, which made the read-back look like 9 ms at 1080p on glcompute).
  void match_stream(DisparityRange range, const FrameSource& next, const FrameSink& done) override {
    using Clock = std::chrono::steady_clock;
    const std::string component = this->component();
    context_->make_current();
    struct InFlight {
      std::size_t index = 0;
      int half = 0;
      Timing timing;
      Clock::time_point issued;
    };
    std::optional<InFlight> in_flight;
    const auto collect = [&] {
      InFlight f = std::move(*in_flight);
      in_flight.reset();
      // The fence signals when the passes and the GPU's copy into the read-back buffer are
      // done: up to there the frame's time is the GPU's (and its queue's); after it, the host's
      // copy out of the buffer alone.
      transfer_.wait_download(f.half);
      const Clock::time_point t0 = Clock::now();
      f.timing.algorithm_ms = std::chrono::duration<double, std::milli>(t0 - f.issued).count();
      ImageF levels = transfer_.finish_download(f.half);
      f.timing.readback_ms = ms_since(t0);
      FrameResult r;
      r.index = f.index;
      r.timing = std::move(f.timing);
      r.disparity.form = DisparityMap::Form::pixels_f32;
      r.disparity.width = levels.width;
      r.disparity.height = levels.height;
      r.disparity.range = range;
      r.disparity.pixels = with_min_disparity(std::move(levels), range.min);
      done(std::move(r));
    };
    const bool check_state = contract_checks_enabled();  // gl/STATE.md, debug builds
    FramePair pair;
    std::size_t index = 0;
    try {
      while (next(pair)) {
        const int half = int(index % 2);
        const GlFrame frame = allocate(ImageView(pair.left), range);  // one size per sequence: allocates once
        InFlight f;
        f.index = index++;
        f.half = half;
        f.timing.clock = "host clock (frames overlap: upload and passes of one frame run beside the read-back of "
                         "the other)";
        Clock::time_point t0 = Clock::now();
        upload(ImageView(pair.left), ImageView(pair.right), half, true);
        f.timing.upload_ms = ms_since(t0);
        if (check_state) check_state_at_rest(component + " stream upload");
        f.issued = Clock::now();
        run_groups(frame, nullptr, false);
        passes_->make_readable();
        const GlReadback r = passes_->disparity();
        transfer_.start_download(r.texture, r.format, 1, half);
        if (check_state) check_state_at_rest(component + " stream frame " + std::to_string(f.index));
        if (in_flight) collect();
        in_flight = std::move(f);
      }
      if (in_flight) collect();
    } catch (...) {
      // The frame in flight was issued before the failure and does not depend on it.
      try {
        if (in_flight) collect();
      } catch (...) {  // a second failure adds nothing
      }
      throw;
    }
  }

 private:
  // The groups of one run in increasing level, from a cleared selection; with keep_passes(true)
  // each group's targets are read back before the next group overwrites them.
  void run_groups(const GlFrame& frame, PassTimer* timer, bool check_state) {
    const std::string component = this->component();
    PassKeeper keeper;
    if constexpr (InspectablePasses<P>) {
      if (keep_) {
        kept_.clear();  // a run that fails shows nothing rather than the run before it
        keeper.start(passes_->inspect_targets());
      }
    }
    passes_->clear_selection();
    for (int d0 = 0; d0 < frame.range.count; d0 += P::LEVELS_PER_GROUP) {
      passes_->run_group(frame, d0, timer);
      if (check_state) check_state_at_rest(component + " group d0=" + std::to_string(d0));
      if (keep_) {
        passes_->make_readable();
        keeper.keep_group();
      }
    }
    if (keep_) {
      passes_->make_readable();
      keeper.finish(kept_, frame.range.min, P::LEVELS_PER_GROUP);
    }
  }

  // read() and read_disparity() with the context current.
  ImageF download(const Texture& texture, GLenum format, int channels) {
    passes_->make_readable();
    return transfer_.download(texture, format, channels);
  }
  ImageF download_disparity(int d_min) {
    const GlReadback r = passes_->disparity();
    return with_min_disparity(download(r.texture, r.format, 1), d_min);
  }

  // The views' textures and the passes' targets for `left`'s size (made once per size and
  // reused across groups and calls), and the frame a run of `range` hands the passes.
  GlFrame allocate(const ImageView& left, DisparityRange range) {
    if (left.width != width_ || left.height != height_) {
      width_ = height_ = 0;  // stays unallocated if anything below throws
      const std::string label(P::COMPONENT);
      left_ = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, left.width, left.height, GL_NEAREST, label + " left");
      right_ = Texture::create(GL_TEXTURE_RECTANGLE, GL_RGBA8, left.width, left.height, GL_NEAREST, label + " right");
      passes_->allocate(left.width, left.height);
      width_ = left.width;
      height_ = left.height;
    }
    return GlFrame{left_, right_, width_, height_, left.channels, range};
  }

  // Both views through upload half `half`; `fence`: fenced for the sequence path (a single run
  // need not, its read-back waits for everything).
  void upload(const ImageView& left, const ImageView& right, int half, bool fence) {
    const std::string component = this->component();
    transfer_.upload(left_, left, 0, component, half);
    transfer_.upload(right_, right, 1, component, half);
    if (fence) transfer_.fence_upload(half);
  }

  // Destroyed in reverse: the passes' objects and the transfer buffers go before the context
  // reference, while the destructor has made it current.
  std::shared_ptr<Context> context_;
  PixelTransfer transfer_;
  Texture left_, right_;
  int width_ = 0, height_ = 0;
  std::unique_ptr<P> passes_;
  nlohmann::json json_;
  bool keep_ = false;
  PassTable kept_{std::string(P::COMPONENT)};
};

/// The registry entry of the GL matcher `M` (a GlMatcher, or a class derived from one whose
/// constructor takes the overrides): method and backend from its COMPONENT ("salap/gl"),
/// usable where an OpenGL 4.5 context can be made, its options described.
template <class M>
BackendEntry backend_entry(std::string summary) {
  const std::string_view component = M::Passes::COMPONENT;
  const std::size_t slash = component.find('/');
  BackendEntry entry;
  entry.method = std::string(component.substr(0, slash));
  entry.backend = std::string(component.substr(slash + 1));
  entry.summary = std::move(summary);
  entry.unavailable = [] { return context_unavailable(); };
  entry.create = [](const Overrides& overrides) -> std::unique_ptr<Matcher> { return std::make_unique<M>(overrides); };
  entry.describe_options = [] { return M::describe_options(); };
  return entry;
}

}  // namespace stereo::gl
