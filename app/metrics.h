#pragma once
/// \file app/metrics.h
/// The data layer's evaluation is public: declared in include/stereo/metrics.h, which users
/// include.

#include "stereo/metrics.h"
