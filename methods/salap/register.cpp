// salap's entry in the registry: its description (info.cpp), then every backend this build has.
// The one file of the method compiled with the build's STEREO_WITH_* definitions.

#include "methods/salap/register.h"

#include "methods/salap/params.h"
#include "methods/typed_params.h"

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

StereoMatcher create(const salap::Params& params, const std::string& backend, const Overrides& options) {
  return create_typed<SalapParams>("salap", params, backend, options);
}

}  // namespace stereo
