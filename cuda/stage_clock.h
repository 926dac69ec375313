#pragma once
/// \file cuda/stage_clock.h
/// The GPU twin of reference/host_stage_clock.h: one frame's upload, stages and read-back timed
/// with CUDA events on the frame's stream, laps named after the stages, into a Timing.

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/matcher.h"
#include "cuda/common.h"

namespace stereo::cu {

/// A CUDA graph captured with the stage laps it contains: the laps are event nodes of the graph
/// (recorded whenever it runs), owned here so that they outlive every replay.
struct TimedGraph {
  GraphExec exec;
  std::vector<std::pair<std::string, Event>> laps;
  explicit operator bool() const { return exec != nullptr; }
};

/// Marks on one stream: start, uploaded, a lap per stage, matched, read back. Events are
/// recorded on the stream as the frame is enqueued and read once the frame's last event has
/// completed, so timing costs the device nothing between the marks.
class StageClock {
 public:
  /// Begins a frame on `stream` (the upload starts here); the previous frame's laps are dropped.
  void start(cudaStream_t stream);
  /// The upload is enqueued: the algorithm starts here.
  void uploaded();
  /// Closes stage `name`: the time since the previous lap (or the upload's end) is the stage's.
  /// A name met again (a stage that runs once per iteration) adds to its first entry. Inside a
  /// capture() the lap becomes an event node of the graph.
  void lap(const std::string& name);
  /// The algorithm ends here (the read-back follows).
  void matched();
  /// The read-back is enqueued.
  void read_back();

  /// Waits for the frame's read-back mark; then its Timing: upload, algorithm (from uploaded to
  /// matched) with the laps as its stages, read-back; clock "cuda events".
  Timing timing();

  /// A completed frame's marks in ms after `epoch` (an event recorded earlier on the device).
  struct Marks {
    double start = 0.0, uploaded = 0.0, matched = 0.0, read = 0.0;
  };
  [[nodiscard]] Marks marks_after(const Event& epoch) const;

  /// Captures what `launch` enqueues on the clock's stream into a graph; the laps `launch` makes
  /// are recorded as the graph's own event nodes (cudaEventRecordExternal). Call between
  /// start() and replay().
  template <class F>
  TimedGraph capture(F&& launch) {
    TimedGraph graph;
    capturing_ = &graph;
    struct Done {  // laps go back to the frame on any exit
      TimedGraph*& capturing;
      ~Done() { capturing = nullptr; }
    } const done{capturing_};
    graph.exec = capture_graph(stream_, std::forward<F>(launch));
    return graph;
  }
  /// Launches `graph` on the clock's stream; its laps join this frame's.
  void replay(const TimedGraph& graph);

 private:
  cudaEvent_t record();  // the next event of the pool, recorded on the stream

  cudaStream_t stream_ = nullptr;
  std::vector<Event> pool_;
  std::size_t used_ = 0;
  cudaEvent_t start_ = nullptr, uploaded_ = nullptr, matched_ = nullptr, read_ = nullptr;
  std::vector<std::pair<std::string, cudaEvent_t>> laps_;
  TimedGraph* capturing_ = nullptr;
};

}  // namespace stereo::cu
