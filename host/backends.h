#pragma once
/// \file backends.h
/// Registration hooks, one per (method, backend) family. host/registry.cpp calls each that
/// the build has (STEREO_WITH_GL, STEREO_WITH_CUDA); each adds its BackendEntry.

#include "host/matcher.h"

namespace stereo {

void register_salap_cpu(Registry& registry);        // reference/salap_matcher.cpp
void register_salap_gl(Registry& registry);         // gl/salap_gl.cpp (fragment passes)
void register_salap_glcompute(Registry& registry);  // gl/salap_glcompute.cpp (compute shaders)
void register_salap_cuda(Registry& registry);       // cuda/salap/salap_cuda.cpp
void register_adcensus_cpu(Registry& registry);     // reference/adcensus_matcher.cpp
void register_adcensus_cuda(Registry& registry);    // cuda/adcensus/adcensus_cuda.cpp

}  // namespace stereo
