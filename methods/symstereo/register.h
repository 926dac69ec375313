#pragma once
/// \file methods/symstereo/register.h
/// The registration hooks of symstereo: `register_symstereo` (register.cpp) adds the method's
/// description and each backend this build has; each backend's sources define its own hook.

#include "core/registry.h"

namespace stereo {

void register_symstereo(Registry& registry);

/// SymStereo's entry for the registry: the citation, the paper's Tables 2 and 3 timing grids
/// and the SymStereoParams table (info.cpp).
MethodInfo symstereo_method_info();

// ---- backends: each defined in its backend's sources -------------------------------
void register_symstereo_cpu(Registry& registry);        // reference/symstereo_matcher.cpp (needs FFTW)
void register_symstereo_cuda(Registry& registry);       // cuda/symstereo_cuda.cpp (cuFFT)

}  // namespace stereo
