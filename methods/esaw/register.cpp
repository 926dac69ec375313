// esaw's entry in the registry: its description (info.cpp), then every backend this build has.
// The one file of the method compiled with the build's STEREO_WITH_* definitions.

#include "methods/esaw/register.h"

namespace stereo {

// ESAW and ESMP share one paper, one reference and one CUDA folder: one hook registers both.
void register_esaw(Registry& r) {
  r.add_method(esaw_method_info());
  r.add_method(esmp_method_info());
  register_esaw_cpu(r);
  register_esmp_cpu(r);
#ifdef STEREO_WITH_CUDA
  register_esaw_cuda(r);
  register_esmp_cuda(r);
#endif
}

}  // namespace stereo
