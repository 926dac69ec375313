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

/// A CUDA graph captured with the stage laps it contains: the laps are event nodes of the graph,
/// owned here so that they outlive every replay. Each replay points those nodes at events of
/// the replaying clock (cudaGraphExecEventRecordNodeSetEvent), so that a frame's laps are its
/// own even while the next frame's replay is already queued (a sequence with frames in flight).
struct TimedGraph {
  GraphExec exec;
  Graph graph;  // what `exec` was made from: the lap nodes are its nodes
  std::vector<std::pair<std::string, Event>> laps;
  std::vector<cudaGraphNode_t> lap_nodes;  // the event node of each lap, in lap order
  explicit operator bool() const { return exec != nullptr; }
  /// Fills lap_nodes from the graph's event record nodes (throws if a lap has none).
  void find_lap_nodes();
};

/// Marks on one stream: start, uploaded, a lap per stage, matched, read back. Events are
/// recorded on the stream as the frame is enqueued and read once the frame's last event has
/// completed, so timing costs the device nothing between the marks. A frame of a sequence
/// moves between streams (hand_over): its copies on its slot's stream, its stages on the
/// matcher's.
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
  /// Makes `stream` wait for everything enqueued on the clock's stream so far and moves the
  /// clock there: later marks and laps are recorded on `stream`. The time between the two
  /// (the frame queued behind other frames' work on `stream`) is counted in no step, so each
  /// step stays this frame's own work. Not between uploaded() and matched(): the laps are one
  /// chain on one stream.
  void hand_over(cudaStream_t stream);

  /// Waits for the frame's read-back mark; then its Timing: upload, algorithm (from uploaded to
  /// matched) with the laps as its stages, read-back, each less the hand-overs' waits inside
  /// it; clock "cuda events".
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
    graph.exec = capture_graph(stream_, std::forward<F>(launch), &graph.graph);
    graph.find_lap_nodes();
    return graph;
  }
  /// Launches `graph` on the clock's stream, its lap nodes recording this clock's events; its
  /// laps join this frame's.
  void replay(const TimedGraph& graph);

 private:
  cudaEvent_t next_event();  // the next event of the pool
  cudaEvent_t record();      // the next event of the pool, recorded on the stream
  /// Which step a mark made now falls in: 0 upload, 1 algorithm, 2 read-back.
  [[nodiscard]] int step() const { return uploaded_ == nullptr ? 0 : matched_ == nullptr ? 1 : 2; }

  cudaStream_t stream_ = nullptr;
  std::vector<Event> pool_;
  std::size_t used_ = 0;
  cudaEvent_t start_ = nullptr, uploaded_ = nullptr, matched_ = nullptr, read_ = nullptr;
  std::vector<std::pair<std::string, cudaEvent_t>> laps_;
  struct Wait {
    int step;
    cudaEvent_t from, to;  // the old stream's last mark, the new stream's first
  };
  std::vector<Wait> waits_;  // the hand-overs of this frame
  TimedGraph* capturing_ = nullptr;
};

}  // namespace stereo::cu
