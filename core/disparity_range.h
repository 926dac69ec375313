#pragma once
/// \file core/disparity_range.h
/// DisparityRange is public: declared in include/stereo/disparity_range.h, which users include.

#include "stereo/disparity_range.h"
