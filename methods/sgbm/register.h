#pragma once
/// \file methods/sgbm/register.h
/// The registration hooks of sgbm: `register_sgbm` (register.cpp) adds the method's
/// description and each backend this build has; each backend's sources define its own hook.

#include "core/registry.h"

namespace stereo {

void register_sgbm(Registry& registry);

/// SGBM's entry for the registry (info.cpp).
MethodInfo sgbm_method_info();

// ---- backends: each defined in its backend's sources -------------------------------
void register_sgbm_opencv(Registry& registry);          // opencv/sgbm_opencv.cpp (only where OpenCV is found)

}  // namespace stereo
