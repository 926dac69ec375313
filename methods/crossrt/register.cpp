// crossrt's entry in the registry: its description (info.cpp), then every backend this build has.
// The one file of the method compiled with the build's STEREO_WITH_* definitions.

#include "methods/crossrt/register.h"

namespace stereo {

void register_crossrt(Registry& r) {
  r.add_method(crossrt_method_info());
  register_crossrt_cpu(r);
#ifdef STEREO_WITH_CUDA
  register_crossrt_cuda(r);
#endif
}

}  // namespace stereo
