#pragma once
/// \file core/host_device.h
/// STEREO_HOST_DEVICE marks a function of a method's model header (methods/<m>/model.h) that
/// both its CPU reference and its CUDA kernels call: `__host__ __device__` where nvcc compiles
/// it, nothing in a host-only build, which has no CUDA keywords.

#ifdef __CUDACC__
#define STEREO_HOST_DEVICE __host__ __device__
#else
#define STEREO_HOST_DEVICE
#endif
