#pragma once
/// \file core/error.h
/// The suite's exception type is public: declared in include/stereo/error.h, which users include.

#include "stereo/error.h"
