#pragma once
/// \file core/image_view.h
/// ImageView and DisparityView are public: declared in include/stereo/image_view.h, which users include.

#include "stereo/image_view.h"
