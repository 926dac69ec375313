#include "cuda/stage_clock.h"

#include <algorithm>

namespace stereo::cu {
namespace {

double elapsed(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return double(ms);
}

}  // namespace

cudaEvent_t StageClock::record() {
  if (used_ == pool_.size()) pool_.push_back(make_event());
  cudaEvent_t e = pool_[used_++].get();
  CUDA_CHECK(cudaEventRecord(e, stream_));
  return e;
}

void StageClock::start(cudaStream_t stream) {
  stream_ = stream;
  used_ = 0;
  laps_.clear();
  uploaded_ = matched_ = read_ = nullptr;
  start_ = record();
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
  CUDA_CHECK(cudaGraphLaunch(graph.exec.get(), stream_));
  for (const auto& [name, event] : graph.laps) laps_.emplace_back(name, event.get());
}

Timing StageClock::timing() {
  require(start_ && uploaded_ && matched_ && read_, "cuda stage clock: a frame's marks are missing");
  CUDA_CHECK(cudaEventSynchronize(read_));
  Timing t;
  t.clock = "cuda events";
  t.upload_ms = elapsed(start_, uploaded_);
  t.algorithm_ms = elapsed(uploaded_, matched_);
  t.readback_ms = elapsed(matched_, read_);
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
