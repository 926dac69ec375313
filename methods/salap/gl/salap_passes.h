#pragma once
/// \file gl/salap_passes.h
/// What the two GL backends of SA-LAP share (gl/salap_gl.cpp: fragment passes;
/// gl/salap_glcompute.cpp: compute dispatches): the tap layout of the bilinear 1D filters, the
/// texture formats, the run sequence with its timing split, the debug read-back of one group
/// and the fetch-ceiling measurement. Internal to gl/.
///
/// A backend's `Impl` provides: `std::shared_ptr<Context> context`; `allocate(w, h)`;
/// `upload(left, right)`; `clear_selection()`; `run_group(d0, levels, channels, PassTimer*)`;
/// `read_rgba(const Texture&)` and `read_disparity()` (ImageF); textures `cost`, `c_left`,
/// `c_right`, `c[4]`.

#include <GL/glew.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gl/check.h"
#include "gl/context.h"
#include "gl/objects.h"
#include "gl/program.h"
#include "gl/state.h"
#include "core/matcher.h"
#include "methods/salap/params.h"
#include "core/thread_pool.h"
#include "core/validate.h"

namespace stereo::gl {

/// Every intermediate of one group, read back for tests: RGBA images, channel k holds
/// disparity d0 + k, row 0 = image row 0.
struct SalapGroupTextures {
  ImageF tad, c_left, c_right, c0, c1, c2, c3;
  ImageF disparity;  ///< the winner after this group alone (1 channel)
};

/// GL internal format of the intermediates for `gl_format`.
GLenum intermediate_format(const std::string& format);

/// Host <-> texture copies through pixel buffer objects in client memory, persistently
/// mapped: the driver DMAs straight from/to them instead of staging pageable memory itself
/// (measured on an H100, driver 580: plain glTextureSubImage2D of two 1920x1080 RGB images
/// took 9-13 ms). RGB rows are expanded to RGBA while being written into the buffer, since
/// drivers convert 3-byte texels on the CPU. Callers order shader writes before download()
/// with the barriers their passes need; upload() expects the previous run to have finished
/// (each run ends in a read-back that waits for it).
class PixelTransfer {
 public:
  PixelTransfer() = default;
  PixelTransfer(const PixelTransfer&) = delete;
  PixelTransfer& operator=(const PixelTransfer&) = delete;
  ~PixelTransfer();

  /// Image `slot` (0 or 1: the two views) into `texture` (RGBA8, same size), through half
  /// `half` (0 or 1) of the upload buffer. A half is written only after the copies issued
  /// from it last time are complete (its fence), so a sequence can fill one half while the
  /// GPU still reads the other.
  void upload(Texture& texture, const ImageU8& image, int slot, const std::string& component, int half = 0);
  /// RGB images: expanded to RGBA by the host while written into the buffer (true, the
  /// default), or written as they are, the driver expanding them while it unpacks from the
  /// buffer (false: 3 bytes per pixel over the link instead of 4, the host copy a plain
  /// memcpy; whether the driver expands on the GPU or the CPU decides which is faster).
  void expand_rgb_on_host(bool on) { host_expand_ = on; }
  /// Fences the copies just issued from upload half `half` (the sequence path calls it after
  /// both views; single runs need not, their read-back waits for everything).
  void fence_upload(int half);
  /// The whole texture as `channels` floats per pixel (GL_RED: 1, GL_GREEN: 1, GL_RGBA: 4).
  ImageF download(const Texture& texture, GLenum format, int channels);
  /// The asynchronous read-back of the sequence path: the copy of `texture` into read-back
  /// half `half`, fenced; finish_download(half) waits for that fence alone (not glFinish),
  /// so the GPU can already run the next frame's passes.
  void start_download(const Texture& texture, GLenum format, int channels, int half);
  ImageF finish_download(int half);
  /// Waits for half `half`'s read-back fence alone (finish_download then only copies), so a
  /// caller can tell the GPU's work from the host's copy.
  void wait_download(int half);

 private:
  struct Mapped {
    Buffer buffer;
    std::uint8_t* data = nullptr;
  };
  struct Pending {
    int width = 0, height = 0, channels = 0;
  };
  static Mapped map_buffer(std::size_t bytes, GLbitfield access, const std::string& label);
  static void wait(GLsync& fence, const char* what);
  /// memcpy out of a read-back buffer, in bands on pool_ when large.
  void copy_out(void* dst, const void* src, std::size_t bytes);
  /// Host threads for the RGB -> RGBA expansion and the large copies (created on first use).
  std::unique_ptr<ThreadPool> pool_;
  Mapped up_;
  Mapped down_[2];
  GLsync up_fence_[2] = {nullptr, nullptr};
  GLsync down_fence_[2] = {nullptr, nullptr};
  Pending pending_[2];
  bool host_expand_ = true;
};

/// Bytes of a read-back of width x height pixels of `channels` floats; throws stereo::Error
/// when that is past the GLsizei size glGetTextureImage takes, before anything is allocated.
std::size_t readback_bytes(int width, int height, int channels);

/// One one-sided 1D filter, centre tap excluded, weights normalised by F1 (host/methods/salap.h).
/// Bilinear (Lu et al. Sec. 3): taps i, i+1 (i = 1, 3, .., W-1) become one GL_LINEAR fetch at
/// offset i + w_{i+1} / (w_i + w_{i+1}) weighted (w_i + w_{i+1}) / F1; nearest: W fetches.
struct TapLayout {
  std::vector<double> offsets, weights;
  double centre_weight = 0.0;
};
TapLayout tap_layout(const SalapParams& params, bool bilinear);

/// Texture fetches per pixel per group of four disparities, all four passes:
/// tad 1 + 4, horizontal 1 + 2S, vertical 2 (1 + 2S), select 4, S = taps per side.
int fetches_per_pixel(const TapLayout& taps);

/// Level indices (what the selection stores) to disparities: + d_min where finite.
inline ImageF with_min_disparity(ImageF levels, int d_min) {
  if (d_min != 0)
    for (float& v : levels.data)
      if (std::isfinite(v)) v += float(d_min);
  return levels;
}

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// The whole method: upload (timed by glFinish and a host clock), ceil(L/4) groups in
/// increasing d0 (each pass timed by the PassTimer), read-back of the disparity map.
template <class Impl>
StereoResult run_salap(Impl& m, const std::string& component, const ImageU8& left, const ImageU8& right,
                       DisparityRange range) {
  const int levels = range.count;
  m.d_min = range.min;
  m.context->make_current();
  m.allocate(left.width, left.height);
  StereoResult result;

  GL_CHECK(glFinish());
  auto t0 = std::chrono::steady_clock::now();
  m.upload(left, right);
  GL_CHECK(glFinish());
  result.timing.upload_ms = ms_since(t0);

  PassTimer timer(m.context->use_timer_queries());
  const bool check_state = contract_checks_enabled();  // gl/STATE.md, debug builds
  if (check_state) check_state_at_rest(component + " upload");
  m.clear_selection();
  for (int d0 = 0; d0 < levels; d0 += 4) {
    m.run_group(d0, levels, left.channels, &timer);
    if (check_state) check_state_at_rest(component + " group d0=" + std::to_string(d0));
  }
  result.timing.stages = timer.results();
  for (const auto& [kind, ms] : result.timing.stages) result.timing.algorithm_ms += ms;
  result.timing.clock = timer.clock() + "; host clock around glFinish for upload and read-back";

  t0 = std::chrono::steady_clock::now();
  result.disparity = m.read_disparity();
  result.timing.readback_ms = ms_since(t0);
  if (check_state) check_state_at_rest(component + " read-back");
  return result;
}

/// The sequence path of both backends (Matcher::match_stream): frame i goes up through
/// upload half i % 2 and comes back through read-back half i % 2, each fenced, and the map of
/// frame i-1 is collected only after frame i's passes are issued. So the host's RGB -> RGBA
/// copy of one frame and the wait for its map overlap the GPU's passes of the other; no
/// glFinish between frames. The passes themselves are run_salap's, in the same order, so
/// every map is the one compute() gives. The Impl also provides `upload(left, right, half)`,
/// `start_read_disparity(half)` and `finish_read_disparity(half)`.
/// Timing per frame (host clock): upload = writing both views into the buffer and issuing
/// the copies; algorithm = from issuing the passes until the map's fence signalled (it
/// includes the GPU's read-back copy and whatever of the previous frame was still running,
/// so it is a latency, and frames overlap: the stream's fps is the throughput); read-back =
/// copying the map out of the mapped buffer, after the fence (before, the wait for the fence
/// was counted here, which made the read-back look like 9 ms at 1080p on glcompute).
template <class Impl>
void stream_salap(Impl& m, const std::string& component, DisparityRange range, const FrameSource& next,
                  const FrameSink& done) {
  using Clock = std::chrono::steady_clock;
  m.d_min = range.min;
  m.context->make_current();
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
    m.transfer.wait_download(f.half);
    const Clock::time_point t0 = Clock::now();
    f.timing.algorithm_ms = std::chrono::duration<double, std::milli>(t0 - f.issued).count();
    ImageF levels = m.finish_read_disparity(f.half);
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
      m.allocate(pair.left.width, pair.left.height);  // one size per sequence: allocates once
      InFlight f;
      f.index = index++;
      f.half = half;
      f.timing.clock = "host clock (frames overlap: upload and passes of one frame run beside the read-back of the "
                       "other)";
      Clock::time_point t0 = Clock::now();
      m.upload(pair.left, pair.right, half);
      f.timing.upload_ms = ms_since(t0);
      if (check_state) check_state_at_rest(component + " stream upload");
      f.issued = Clock::now();
      m.clear_selection();
      for (int d0 = 0; d0 < range.count; d0 += 4) m.run_group(d0, range.count, pair.left.channels, nullptr);
      m.start_read_disparity(half);
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

/// Uploads the pair, runs the group starting at `d0` once (selection cleared first) and
/// reads every intermediate back.
template <class Impl>
SalapGroupTextures run_group_for_debug(Impl& m, const std::string& component, const ImageU8& left,
                                       const ImageU8& right, int d0, int levels) {
  validate_pair(left, right, levels, component);
  m.d_min = 0;
  require(d0 >= 0 && d0 < levels, component + ": group start " + std::to_string(d0) + " outside 0.." +
                                      std::to_string(levels - 1));
  m.context->make_current();
  m.allocate(left.width, left.height);
  m.upload(left, right);
  m.clear_selection();
  m.run_group(d0, levels, left.channels, nullptr);
  check_state_if_enabled(component + " group d0=" + std::to_string(d0));
  SalapGroupTextures out;
  out.tad = m.read_rgba(m.cost);
  out.c_left = m.read_rgba(m.c_left);
  out.c_right = m.read_rgba(m.c_right);
  out.c0 = m.read_rgba(m.c[0]);
  out.c1 = m.read_rgba(m.c[1]);
  out.c2 = m.read_rgba(m.c[2]);
  out.c3 = m.read_rgba(m.c[3]);
  out.disparity = m.read_disparity();
  check_state_if_enabled(component + " read-back");
  return out;
}

/// A width x height RGBA8 texture of fixed-seed noise, GL_LINEAR, for the fetch ceiling.
Texture ceiling_source(int width, int height);

/// Fetch accounting for the bench: `fetches_per_pixel` per group per pixel, and the ceiling:
/// `issue` draws or dispatches the 9-tap fetch-only pass once; it is timed in batches of as
/// many passes as one run issues (4 per group), so both pay the same per-pass overhead.
FetchStats measure_fetch_stats(const Context& context, int width, int height, int levels, int fetches_per_pixel,
                               const std::function<void()>& issue, const std::string& ceiling_pass);

}  // namespace stereo::gl
