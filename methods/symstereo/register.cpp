// symstereo's entry in the registry: its description (info.cpp), then every backend this build has.
// The one file of the method compiled with the build's STEREO_WITH_* definitions.

#include "methods/symstereo/register.h"

namespace stereo {

// The cpu backend needs FFTW (fftw3f); a build without it has the CUDA backend alone, and a
// build with neither has no symstereo at all (CMake says why at configure time).
void register_symstereo([[maybe_unused]] Registry& r) {  // unused in a build with neither
#if defined(STEREO_WITH_FFTW) || defined(STEREO_WITH_CUDA)
  r.add_method(symstereo_method_info());
#endif
#ifdef STEREO_WITH_FFTW
  register_symstereo_cpu(r);
#endif
#ifdef STEREO_WITH_CUDA
  register_symstereo_cuda(r);
#endif
}

}  // namespace stereo
