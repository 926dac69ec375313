#include "app/data/interrupt.h"

#include <csignal>

#include <atomic>
#include <string>

#include "core/error.h"

namespace stereo::data {
namespace {

std::atomic<bool> g_interrupted{false};  // lock-free, so safe to store from a signal handler

extern "C" void on_sigint(int) { g_interrupted.store(true); }

}  // namespace

bool interrupted() { return g_interrupted.load(); }

void request_interrupt() { g_interrupted.store(true); }

void throw_if_interrupted(const char* component) {
  if (interrupted()) throw Error(std::string(component) + ": interrupted (nothing was installed)");
}

InterruptScope::InterruptScope() {
  g_interrupted.store(false);
  previous_ = std::signal(SIGINT, on_sigint);
}

InterruptScope::~InterruptScope() { std::signal(SIGINT, previous_ == SIG_ERR ? SIG_DFL : previous_); }

}  // namespace stereo::data
