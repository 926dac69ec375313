#pragma once
/// \file error.h
/// The one exception type of the suite. Messages name the component and the offending
/// values ("salap: disparity levels 300 exceed image width 256"); the CLI prints them as one
/// line on stderr and exits non-zero.

#include <stdexcept>
#include <string>
#include <type_traits>

namespace stereo {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws stereo::Error with `message` unless `condition` holds.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

/// The same, the message made only when the check fails: for checks on a hot path (a stage
/// launcher runs every frame), where building the text on every call would cost more than the
/// check. `require(n > 0, [&] { return component + ": n must be > 0"; })`.
template <class MakeMessage, class = std::enable_if_t<std::is_invocable_r_v<std::string, MakeMessage>>>
inline void require(bool condition, MakeMessage&& make_message) {
  if (!condition) throw Error(make_message());
}

}  // namespace stereo
