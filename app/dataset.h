#pragma once
/// \file app/dataset.h
/// The data layer's scenes and datasets are public: declared in include/stereo/dataset.h,
/// which users include.

#include "stereo/dataset.h"
