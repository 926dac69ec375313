#pragma once
/// \file core/error.h
/// The suite's exception type is public: declared in include/stereo/error.h, which users include.

#include "stereo/error.h"

#include <string>

namespace stereo {

/// A float as a user would type it, for error messages: the shortest text that reads back as
/// the same float (`-1`, `0.02`, `1e+30`), where std::to_string would print "-1.000000".
/// (Defined in core/params.cpp, beside the parsing that reads such text back.)
std::string number_text(float value);

}  // namespace stereo
