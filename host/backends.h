#pragma once
/// \file backends.h
/// How a method joins the driver. Adding one is "add its files + one registration line":
///
///  1. host/methods/<method>.h and .cpp: its Params struct and `MethodInfo <method>_method_info()`
///     (citation, the paper's accuracy and speed tables, the parameter table);
///  2. one `register_<method>_<backend>(Registry&)` per backend, defined in that backend's
///     sources and declared below; each adds its BackendEntry;
///  3. `register_<method>(Registry&)`, declared below and defined in host/registry.cpp (the one
///     file compiled with STEREO_WITH_GL / STEREO_WITH_CUDA): add_method(<method>_method_info())
///     and then each backend hook this build has;
///  4. the registration line `register_<method>(r);` in Registry::builtin().
///
/// Registry::builtin() checks that every backend's method has a MethodInfo and every MethodInfo
/// at least one backend, so a method cannot reach `list`, `eval` or `bench` without its paper's
/// figures. The driver itself (host/cli/) names no method.

#include "host/matcher.h"

namespace stereo {

// ---- methods: the MethodInfo and every backend of it this build has (host/registry.cpp) ----
void register_salap(Registry& registry);
void register_adcensus(Registry& registry);
void register_crossrt(Registry& registry);
void register_symstereo(Registry& registry);
void register_esaw(Registry& registry);  // esaw and esmp
void register_sgbm(Registry& registry);  // only with OpenCV (STEREO_WITH_OPENCV)

// ---- backends ---------------------------------------------------------------------------
void register_salap_cpu(Registry& registry);        // reference/salap_matcher.cpp
void register_salap_gl(Registry& registry);         // gl/salap_gl.cpp (fragment passes)
void register_salap_glcompute(Registry& registry);  // gl/salap_glcompute.cpp (compute shaders)
void register_salap_cuda(Registry& registry);       // cuda/salap/salap_cuda.cpp
void register_adcensus_cpu(Registry& registry);     // reference/adcensus_matcher.cpp
void register_adcensus_cuda(Registry& registry);    // cuda/adcensus/adcensus_cuda.cpp
void register_crossrt_cpu(Registry& registry);      // reference/crossrt_matcher.cpp
void register_crossrt_cuda(Registry& registry);     // cuda/crossrt/crossrt_cuda.cpp
void register_symstereo_cpu(Registry& registry);    // reference/symstereo_matcher.cpp (needs FFTW)
void register_symstereo_cuda(Registry& registry);   // cuda/symstereo/symstereo_cuda.cpp (cuFFT)
void register_esaw_cpu(Registry& registry);         // reference/esaw_matcher.cpp
void register_esmp_cpu(Registry& registry);         // reference/esaw_matcher.cpp
void register_esaw_cuda(Registry& registry);        // cuda/esaw/esaw_cuda.cpp
void register_esmp_cuda(Registry& registry);        // cuda/esaw/esaw_cuda.cpp
void register_sgbm_opencv(Registry& registry);      // peer/sgbm_opencv.cpp

}  // namespace stereo
