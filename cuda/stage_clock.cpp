#include "cuda/stage_clock.h"

#include <algorithm>
#include <vector>

namespace stereo::cu {
namespace {

double elapsed(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return double(ms);
}

}  // namespace

void TimedGraph::find_lap_nodes() {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph.get(), nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CUDA_CHECK(cudaGraphGetNodes(graph.get(), nodes.data(), &count));
  lap_nodes.assign(laps.size(), nullptr);
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeEventRecord) continue;
    cudaEvent_t event = nullptr;
    CUDA_CHECK(cudaGraphEventRecordNodeGetEvent(node, &event));
    for (std::size_t i = 0; i < laps.size(); ++i)
      if (laps[i].second.get() == event) lap_nodes[i] = node;
  }
  for (std::size_t i = 0; i < laps.size(); ++i)
    require(lap_nodes[i] != nullptr, "cuda stage clock: the captured lap '" + laps[i].first +
                                         "' has no event node in its graph");
}

cudaEvent_t StageClock::next_event() {
  if (used_ == pool_.size()) pool_.push_back(make_event());
  return pool_[used_++].get();
}

cudaEvent_t StageClock::record() {
  cudaEvent_t e = next_event();
  CUDA_CHECK(cudaEventRecord(e, stream_));
  return e;
}

void StageClock::start(cudaStream_t stream) {
  stream_ = stream;
  used_ = 0;
  laps_.clear();
  waits_.clear();
  uploaded_ = matched_ = read_ = nullptr;
  start_ = record();
}

void StageClock::hand_over(cudaStream_t stream) {
  require(step() != 1, "cuda stage clock: a hand-over between uploaded() and matched()");
  cudaEvent_t from = record();
  CUDA_CHECK(cudaStreamWaitEvent(stream, from, 0));
  stream_ = stream;
  waits_.push_back({step(), from, record()});
}

void StageClock::uploaded() { uploaded_ = record(); }

void StageClock::lap(const std::string& name) {
  if (capturing_ != nullptr) {
    Event e = make_event();
    CUDA_CHECK(cudaEventRecordWithFlags(e.get(), stream_, cudaEventRecordExternal));
    capturing_->laps.emplace_back(name, std::move(e));
    return;
  }
  laps_.emplace_back(name, record());
}

void StageClock::matched() { matched_ = record(); }

void StageClock::read_back() { read_ = record(); }

void StageClock::replay(const TimedGraph& graph) {
  // Launches already queued keep the events they were given; this one records this frame's.
  const std::size_t first = laps_.size();
  for (std::size_t i = 0; i < graph.laps.size(); ++i) {
    cudaEvent_t e = next_event();
    CUDA_CHECK(cudaGraphExecEventRecordNodeSetEvent(graph.exec.get(), graph.lap_nodes[i], e));
    laps_.emplace_back(graph.laps[i].first, e);
  }
  try {
    CUDA_CHECK(cudaGraphLaunch(graph.exec.get(), stream_));
  } catch (...) {
    laps_.resize(first);
    throw;
  }
}

Timing StageClock::timing() {
  require(start_ && uploaded_ && matched_ && read_, "cuda stage clock: a frame's marks are missing");
  CUDA_CHECK(cudaEventSynchronize(read_));
  Timing t;
  t.clock = "cuda events";
  double waited[3] = {0.0, 0.0, 0.0};
  for (const Wait& w : waits_) waited[w.step] += elapsed(w.from, w.to);
  // (Event times have 0.5 us resolution: a difference of spans is kept from going below 0.)
  t.upload_ms = std::max(0.0, elapsed(start_, uploaded_) - waited[0]);
  t.algorithm_ms = elapsed(uploaded_, matched_);
  t.readback_ms = std::max(0.0, elapsed(matched_, read_) - waited[2]);
  cudaEvent_t previous = uploaded_;
  for (const auto& [name, event] : laps_) {
    const double ms = elapsed(previous, event);
    previous = event;
    const auto first = std::find_if(t.stages.begin(), t.stages.end(), [&](const auto& s) { return s.first == name; });
    if (first == t.stages.end())
      t.stages.emplace_back(name, ms);
    else
      first->second += ms;
  }
  return t;
}

StageClock::Marks StageClock::marks_after(const Event& epoch) const {
  return Marks{elapsed(epoch.get(), start_), elapsed(epoch.get(), uploaded_), elapsed(epoch.get(), matched_),
               elapsed(epoch.get(), read_)};
}

}  // namespace stereo::cu
