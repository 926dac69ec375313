// salap's entry in the registry: its description (info.cpp), then every backend this build has.
// The one file of the method compiled with the build's STEREO_WITH_* definitions.

#include "methods/salap/register.h"

namespace stereo {

void register_salap(Registry& r) {
  r.add_method(salap_method_info());
  register_salap_cpu(r);
#ifdef STEREO_WITH_GL
  register_salap_gl(r);
  register_salap_glcompute(r);
#endif
#ifdef STEREO_WITH_CUDA
  register_salap_cuda(r);
#endif
}

}  // namespace stereo
