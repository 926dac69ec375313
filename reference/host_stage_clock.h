#pragma once
/// \file reference/host_stage_clock.h
/// The host-clock counterpart of the CUDA backends' per-stage event timing, for the `cpu`
/// matchers: one clock started with the match, laps named after the stages.

#include <chrono>
#include <string>

#include "core/matcher.h"

namespace stereo::reference {

/// Times a CPU matcher's stages with the host clock into Timing::stages and algorithm_ms.
class HostStageClock {
 public:
  /// Starts the clock now and marks `timing` as measured by the host clock.
  explicit HostStageClock(Timing& timing) : timing_(timing), start_(Clock::now()), last_(start_) {
    timing_.clock = "host clock";
  }

  /// Adds the time since the previous lap (or the start) to stage `name`. A name met again (a
  /// stage that runs once per iteration) adds to its first entry, so each stage is one entry.
  void lap(const std::string& name) {
    const auto now = Clock::now();
    const double ms = milliseconds(last_, now);
    last_ = now;
    for (auto& [stage, total] : timing_.stages)
      if (stage == name) {
        total += ms;
        return;
      }
    timing_.stages.emplace_back(name, ms);
  }

  /// Sets Timing::algorithm_ms to the time since the start: the whole match, laps or not.
  void finish() { timing_.algorithm_ms = milliseconds(start_, Clock::now()); }

 private:
  using Clock = std::chrono::steady_clock;
  static double milliseconds(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
  }

  Timing& timing_;
  Clock::time_point start_;
  Clock::time_point last_;
};

}  // namespace stereo::reference
