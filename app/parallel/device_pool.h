#pragma once
/// \file app/parallel/device_pool.h
/// Several GPUs in one process (`--devices 0,1`): one matcher per device, each driven by its
/// own host thread, work handed out from one queue as each device frees up, and the results
/// handed back in input order on the calling thread. What the CLI's `stream` and `eval`
/// spread; MPI ranks (app/parallel/ranks.h) each run one of these on their share.
///
/// Threads: the CUDA current device is per host thread and every CUDA matcher makes its own
/// device current at each call, so a matcher made on the calling thread may run on a worker.
/// A GL context belongs to the thread that made it and there is one per process
/// (gl/context.h), so GL backends take one device here (one process per GPU: mpirun).
///
/// Errors: the first exception a worker throws stops the hand-out; every worker finishes the
/// work it holds; the results before the first missing index are delivered in order; then the
/// exception is rethrown on the calling thread. An exception from `deliver` stops and joins
/// the workers before it propagates. No worker ever waits for the calling thread, so joining
/// cannot deadlock; results that arrive ahead of a slower device are held in memory until
/// their turn.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/disparity_range.h"
#include "core/matcher.h"

namespace stereo::parallel {

/// The GPU ordinals `--devices TEXT` names for `backend`: "0,1,3" (distinct non-negative
/// integers) or "all" (every CUDA device this process sees). Throws stereo::Error naming
/// `command` and the text: for the CPU backends (a CPU matcher spreads over its own threads),
/// for more than one device on a GL backend (one context per process), and for "all" in a
/// build without CUDA.
std::vector<int> parse_devices(const std::string& text, const std::string& backend, const std::string& command);

/// True for the backends that run on a GPU (cuda, gl, glcompute and their variants).
bool is_gpu_backend(const std::string& backend);

/// The number of CUDA devices this process sees (CUDA_VISIBLE_DEVICES applies); 0 in a build
/// without CUDA or without a driver.
int cuda_device_count();

/// One matcher per ordinal, made in turn on the calling thread with STEREO_DEVICE set to it
/// (how every GPU backend picks its device, core/gpu_select.h); STEREO_DEVICE is restored
/// afterwards. Calls are serialised (the environment is process-wide); other code of the
/// process must not read STEREO_DEVICE meanwhile, so make matchers here, not beside it.
std::vector<std::unique_ptr<Matcher>> create_on_devices(const std::vector<int>& devices,
                                                       const std::function<std::unique_ptr<Matcher>()>& create);

class Ranks;

/// One rank's matchers: one per GPU of `devices` (parse_devices) when it is given; else, when
/// several MPI ranks run a GPU backend and no --device / STEREO_DEVICE was asked, one on the
/// GPU numbered by the rank's index on its host (one rank per GPU; more ranks than CUDA devices
/// on a host is an error naming the rank); else one matcher where the process's go.
/// `ordinals` receives each matcher's GPU ordinal (-1: none chosen). `command` names errors.
std::vector<std::unique_ptr<Matcher>> place_matchers(const std::string& devices, const std::string& backend,
                                                    const std::string& command, const Ranks& ranks,
                                                    const std::function<std::unique_ptr<Matcher>()>& create,
                                                    std::vector<int>& ordinals);

using Clock = std::chrono::steady_clock;

/// What the pool knows of one frame of a spread sequence.
struct FrameRecord {
  std::size_t worker = 0;       ///< which matcher ran it (index into the matchers given)
  Clock::time_point given;      ///< when its matcher took the pair
  Clock::time_point returned;   ///< when its matcher handed the map back (before reordering)
};

/// Pairs read at once ahead of the matchers when nobody says how many (`stream --readers`,
/// `view`'s play): the machine's hardware threads, at most 16. A noisy 1080p PNG pair takes
/// tens of ms to decode, far more than the fast matchers' frame.
std::size_t default_readers();

/// Reads pair `index` of a sequence; may run on any thread, concurrently for different
/// indices, at most once per index.
using IndexedRead = std::function<FramePair(std::size_t index)>;
/// Receives frame `result.index`'s map and record, in input order, on the calling thread.
using RecordSink = std::function<void(FrameResult&& result, const FrameRecord& record)>;

/// Frames 0 .. count-1 over `matchers`: each runs Matcher::match_sequence (so a backend that
/// overlaps frames does so on its device) on the frames it takes from the one queue, each
/// pair read by `read` when a matcher takes it, up to `read_ahead` further frames read on
/// their own threads meanwhile. FrameResult::index is the frame's index in 0 .. count-1. With
/// one matcher everything runs on the calling thread (a GL matcher's requirement).
void spread_sequence(const std::vector<Matcher*>& matchers, DisparityRange range, std::size_t count,
                     const IndexedRead& read, std::size_t read_ahead, const RecordSink& deliver);

/// Items 0 .. count-1 over `workers` threads: work(worker, index) on the worker that takes it
/// (item by item from one queue), deliver(index, worker) in index order on the calling
/// thread once work for that index returned. With one worker everything runs on the calling
/// thread. The caller keeps the results (one slot per index): work writes its own slot,
/// deliver reads it.
void spread_items(std::size_t workers, std::size_t count, const std::function<void(std::size_t, std::size_t)>& work,
                  const std::function<void(std::size_t index, std::size_t worker)>& deliver);

}  // namespace stereo::parallel
