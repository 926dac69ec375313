#pragma once
/// \file methods/crossrt/register.h
/// The registration hooks of crossrt: `register_crossrt` (register.cpp) adds the method's
/// description and each backend this build has; each backend's sources define its own hook.

#include "core/registry.h"

namespace stereo {

void register_crossrt(Registry& registry);

/// The method's entry for the registry: citation, the paper's accuracy and Table II speed
/// figures, the CrossRtParams table (info.cpp).
MethodInfo crossrt_method_info();

// ---- backends: each defined in its backend's sources -------------------------------
void register_crossrt_cpu(Registry& registry);          // reference/crossrt_matcher.cpp
void register_crossrt_cuda(Registry& registry);         // cuda/crossrt_cuda.cpp

}  // namespace stereo
