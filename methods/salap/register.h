#pragma once
/// \file methods/salap/register.h
/// The registration hooks of salap: `register_salap` (register.cpp) adds the method's
/// description and each backend this build has; each backend's sources define its own hook.

#include "core/registry.h"

namespace stereo {

void register_salap(Registry& registry);

/// SA-LAP's entry for the registry: the citation, the paper's Table 1 accuracy and Table 2
/// speed settings, and the SalapParams table (info.cpp).
MethodInfo salap_method_info();

// ---- backends: each defined in its backend's sources -------------------------------
void register_salap_cpu(Registry& registry);            // reference/salap_matcher.cpp
void register_salap_gl(Registry& registry);             // gl/salap_gl.cpp (fragment passes)
void register_salap_glcompute(Registry& registry);      // gl/salap_glcompute.cpp (compute shaders)
void register_salap_cuda(Registry& registry);           // cuda/salap_cuda.cpp

}  // namespace stereo
