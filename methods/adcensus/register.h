#pragma once
/// \file methods/adcensus/register.h
/// The registration hooks of adcensus: `register_adcensus` (register.cpp) adds the method's
/// description and each backend this build has; each backend's sources define its own hook.

#include "core/registry.h"

namespace stereo {

void register_adcensus(Registry& registry);

/// AD-Census's entry for the registry: the citation, the paper's Table 2 accuracy, its speed
/// settings and the AdCensusParams table (info.cpp).
MethodInfo adcensus_method_info();

// ---- backends: each defined in its backend's sources -------------------------------
void register_adcensus_cpu(Registry& registry);         // reference/adcensus_matcher.cpp
void register_adcensus_cuda(Registry& registry);        // cuda/adcensus_cuda.cpp

}  // namespace stereo
