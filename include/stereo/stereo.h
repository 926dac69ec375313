#pragma once
/// \file include/stereo/stereo.h
/// The stereo suite as a C++ library: every method x backend this build has, behind one
/// handle. Include this header, link `stereo::stereo` (CMake: `find_package(stereo CONFIG)`)
/// or `pkg-config --static --libs stereo`. The installed headers (include/stereo/) include
/// only each other and the standard library.
///
/// \code
///   #include <stereo/adcensus.h>
///   #include <stereo/io.h>
///   #include <stereo/stereo.h>
///
///   stereo::ImageU8 left = stereo::read_image("im2.png"), right = stereo::read_image("im6.png");
///   stereo::adcensus::Params p;                       // the paper's defaults (Mei et al. Table 1)
///   p.pi2 = 4.0f;
///   stereo::StereoMatcher m = stereo::create(p, "cuda");                 // throws stereo::Error
///   auto salap = stereo::create("salap", "cpu", {{"gamma", "5"}});       // by name, as --set
///   stereo::StereoResult r = m.compute(left, right, stereo::DisparityRange{0, 64});
///   stereo::write_pfm("disparity.pfm", r.disparity);                    // +inf = no disparity
/// \endcode
///
/// What it gives:
///  - list(), params(), options(), method_info(), create(): the registry of this build; each
///    method's typed parameters and its create() overload are in stereo/<method>.h
///    (stereo/salap.h, adcensus.h, crossrt.h, symstereo.h, esaw.h with esmp, sgbm.h);
///  - StereoMatcher: compute() on ImageU8s or on ImageViews that borrow the caller's memory
///    with a row pitch (stereo/image_view.h, which says which layouts each backend copies;
///    CUDA backends also read and write device memory), compute_compact(), compute_into(),
///    match_sequence(), params(), device();
///  - Timing (stereo/result.h): upload, algorithm and read-back milliseconds and the stages,
///    with the clock that measured them;
///  - Error (stereo/error.h): the one exception type; its message names the component and the
///    offending values ("salap/cuda: disparity levels 300 must be below the image width 256").
/// Image files and the datasets' scenes and metrics are stereo/io.h and stereo/data.h.
///
/// Threads: a matcher is used from one thread at a time; GL matchers from the thread that
/// created the first of them (the shared context's). Different matchers may run in parallel
/// (CUDA ones on their own streams).

#include <memory>
#include <string>
#include <vector>

#include "stereo/disparity_range.h"
#include "stereo/error.h"
#include "stereo/image.h"
#include "stereo/image_view.h"
#include "stereo/params.h"
#include "stereo/result.h"

namespace stereo {

/// One method on one backend of this build.
struct Backend {
  std::string method;   ///< "salap"
  std::string backend;  ///< "cpu", "gl", "glcompute", "cuda", "opencv"
  std::string summary;  ///< one line, as `stereo list` prints it
  bool available = false;          ///< usable on this machine now
  std::string unavailable_reason;  ///< why not, where not available ("no CUDA device: ...")
};

/// Every method x backend this build has, in registration order, and whether each can run
/// here (a GPU backend asks its driver, which may take a moment the first time).
std::vector<Backend> list();

/// The paper's parameters of `method` at their defaults, each with the table or section its
/// default comes from (what `stereo params -m <method>` prints). Throws stereo::Error naming
/// the known methods for an unknown one.
std::vector<Param> params(const std::string& method);

/// The knobs of `backend` itself for `method` (its Options: threads, precision, paths), at
/// their defaults; empty where it has none. Set like parameters, through create()'s overrides.
std::vector<Param> options(const std::string& method, const std::string& backend);

/// What the suite knows of a method, as `stereo list` and `stereo eval` cite it.
struct MethodSummary {
  std::string name;             ///< "adcensus"
  std::string title;            ///< one line
  std::string citation;         ///< authors, title, venue, year
  std::string accuracy_source;  ///< the paper's accuracy table ("Table 2 (Middlebury v2, bad > 1)")
  std::string speed_source;     ///< the paper's speed table
  std::vector<std::string> presets;  ///< named parameter sets other than the paper's (`--set preset=NAME`)
};
/// Throws stereo::Error naming the known methods for an unknown one.
MethodSummary method_info(const std::string& method);

class StereoMatcher;

/// The matcher of `method` on `backend`, its parameters and options set from `overrides`
/// ({"key", "value"} pairs, as `--set key=value`; an unknown key or a bad value throws).
/// Throws stereo::Error "<method>/<backend> is not available here: <reason>" where the
/// backend cannot run (no CUDA device, no OpenGL 4.5 context). The typed form,
/// create(const <method>::Params&, backend, options), is declared in stereo/<method>.h.
StereoMatcher create(const std::string& method, const std::string& backend, const Overrides& overrides = {});


class Matcher;  // the library's matcher interface, behind StereoMatcher (not installed)

/// A method on a backend, as create() makes it: move-only, it owns the method's device
/// resources (GPU memory, streams, GL objects) and frees them when destroyed. Every call
/// throws stereo::Error whose message starts with component() ("adcensus/cuda: ...").
class StereoMatcher {
 public:
  StereoMatcher(StereoMatcher&& other) noexcept;
  StereoMatcher& operator=(StereoMatcher&& other) noexcept;
  ~StereoMatcher();

  /// Disparity of `left` over `range`, in pixels (range.min + the winning index); +inf where
  /// the method gives none. Inputs are RGB or grey, of equal sizes.
  StereoResult compute(const ImageU8& left, const ImageU8& right, DisparityRange range);
  /// The same over 0 .. levels-1.
  StereoResult compute(const ImageU8& left, const ImageU8& right, int levels);
  /// compute() on views of the caller's memory (any row pitch; CUDA device memory on the CUDA
  /// backends, which then never copy the images through the host): the map compute() gives
  /// for the same pixels as ImageU8s.
  StereoResult compute(const ImageView& left, const ImageView& right, DisparityRange range);
  /// The same map in its smallest exact form (DisparityMap: level indices where the method
  /// gives whole levels); the timing into `*timing` where given.
  DisparityMap compute_compact(const ImageU8& left, const ImageU8& right, DisparityRange range,
                               Timing* timing = nullptr);
  DisparityMap compute_compact(const ImageView& left, const ImageView& right, DisparityRange range,
                               Timing* timing = nullptr);
  /// compute() with the float map written into the caller's `out` (the images' size, any
  /// 4-byte-aligned pitch; CUDA device memory on the CUDA backends). Returns when `out` is written.
  Timing compute_into(const ImageView& left, const ImageView& right, DisparityRange range, const DisparityView& out);
  /// Every pair `next` gives, over `range`, each result handed to `done` in frame order, every
  /// map identical to compute()'s; backends that can overlap frames (CUDA streams, GL pixel
  /// buffers) do. `next` and `done` must not call this matcher.
  void match_sequence(DisparityRange range, const FrameSource& next, const FrameSink& done);
  /// Asks every later compute() to return the cost volume in StereoResult::dsi; backends
  /// without one throw, naming themselves.
  void request_cost_volume(bool keep);

  /// Every parameter and option in force, by key, values as `--set` takes them (what to
  /// record beside a result so that it can be reproduced).
  [[nodiscard]] ParamValues params() const;
  /// "method/backend" ("adcensus/cuda").
  [[nodiscard]] std::string component() const;
  /// Where it runs: the CPU, or the GPU's name.
  [[nodiscard]] std::string device() const;

 private:
  explicit StereoMatcher(std::unique_ptr<Matcher> impl);
  friend StereoMatcher create(const std::string& method, const std::string& backend, const Overrides& overrides);
  std::unique_ptr<Matcher> impl_;
};

}  // namespace stereo
