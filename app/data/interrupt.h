#pragma once
/// \file app/data/interrupt.h
/// Ctrl-C (SIGINT) during `stereo data`: the handler only raises a flag; the download's progress
/// callback and the extraction loop poll it and throw, so every staging file is removed by its
/// owner on the way out and nothing half-written reaches the data root.

namespace stereo::data {

/// True once SIGINT arrived while an InterruptScope was alive (or request_interrupt() was called).
bool interrupted();

/// Raises the flag by hand (what the handler does).
void request_interrupt();

/// Throws stereo::Error("<component>: interrupted") when the flag is up.
void throw_if_interrupted(const char* component);

/// Installs the SIGINT handler for its lifetime and restores the previous one after; clears the
/// flag on entry.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  void (*previous_)(int);  // the handler before this scope
};

}  // namespace stereo::data
