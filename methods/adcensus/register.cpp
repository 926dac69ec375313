// adcensus's entry in the registry: its description (info.cpp), then every backend this build has.
// The one file of the method compiled with the build's STEREO_WITH_* definitions.

#include "methods/adcensus/register.h"

namespace stereo {

void register_adcensus(Registry& r) {
  r.add_method(adcensus_method_info());
  register_adcensus_cpu(r);
#ifdef STEREO_WITH_CUDA
  register_adcensus_cuda(r);
#endif
}

}  // namespace stereo
