#pragma once
/// \file methods/esaw/register.h
/// The registration hooks of esaw: `register_esaw` (register.cpp) adds the method's
/// description and each backend this build has; each backend's sources define its own hook.

#include "core/registry.h"

namespace stereo {

void register_esaw(Registry& registry);

/// ESAW's registry entry: citation, Table IV accuracy (9 and 5 iterations), Table IV speed.
MethodInfo esaw_method_info();
/// ESMP's registry entry: citation, Table IV accuracy (8 iterations), Table IV speed.
MethodInfo esmp_method_info();

// ---- backends: each defined in its backend's sources -------------------------------
void register_esaw_cpu(Registry& registry);             // reference/esaw_matcher.cpp
void register_esmp_cpu(Registry& registry);             // reference/esaw_matcher.cpp
void register_esaw_cuda(Registry& registry);            // cuda/esaw_cuda.cpp
void register_esmp_cuda(Registry& registry);            // cuda/esaw_cuda.cpp

}  // namespace stereo
