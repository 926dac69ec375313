#pragma once
/// \file error.h
/// The one exception type of the suite. Messages name the component and the offending
/// values ("salap: disparity levels 300 exceed image width 256"); the CLI prints them as one
/// line on stderr and exits non-zero.

#include <stdexcept>
#include <string>

namespace stereo {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws stereo::Error with `message` unless `condition` holds.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

}  // namespace stereo
