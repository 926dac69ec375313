#pragma once
/// \file core/error.h
/// The one exception type of the suite. Messages name the component and the offending
/// values ("salap: disparity levels 300 exceed image width 256"); the CLI prints them as one
/// line on stderr and exits non-zero. A kind says what went wrong where the thrower knows it,
/// so that bindings can raise their language's own type with the same text (Python: ValueError,
/// RuntimeError, MemoryError); the CLI prints every kind alike.

#include <stdexcept>
#include <string>
#include <type_traits>

namespace stereo {

enum class ErrorKind {
  invalid_argument,  ///< the caller's input: shapes, sizes, ranges, parameter names and values
  unavailable,       ///< no such device or context here, or not from this thread
  out_of_memory,     ///< a device or host allocation, or the free-memory check before one
  failure,           ///< anything else (a driver error, a file that cannot be read)
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::failure)
      : std::runtime_error(message), kind_(kind) {}
  explicit Error(const char* message, ErrorKind kind = ErrorKind::failure)
      : std::runtime_error(message), kind_(kind) {}
  [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

/// Throws stereo::Error with `message` (of `kind`) unless `condition` holds.
inline void require(bool condition, const std::string& message, ErrorKind kind = ErrorKind::failure) {
  if (!condition) throw Error(message, kind);
}

/// The same, the message made only when the check fails: for checks on a hot path (a stage
/// launcher runs every frame), where building the text on every call would cost more than the
/// check. `require(n > 0, [&] { return component + ": n must be > 0"; })`.
template <class MakeMessage, class = std::enable_if_t<std::is_invocable_r_v<std::string, MakeMessage>>>
inline void require(bool condition, MakeMessage&& make_message, ErrorKind kind = ErrorKind::failure) {
  if (!condition) throw Error(make_message(), kind);
}

/// A float as a user would type it, for error messages: the shortest text that reads back as
/// the same float (`-1`, `0.02`, `1e+30`), where std::to_string would print "-1.000000".
/// (Defined in core/params.cpp, beside the parsing that reads such text back.)
std::string number_text(float value);

}  // namespace stereo
