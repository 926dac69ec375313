#pragma once
/// \file core/image.h
/// The host image types are public: declared in include/stereo/image.h, which users include.

#include "stereo/image.h"
