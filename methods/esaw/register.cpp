// esaw's entry in the registry: its description (info.cpp), then every backend this build has.
// The one file of the method compiled with the build's STEREO_WITH_* definitions.

#include "methods/esaw/register.h"

#include "methods/esaw/params.h"
#include "methods/typed_params.h"

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

StereoMatcher create(const esaw::Params& params, const std::string& backend, const Overrides& options) {
  return create_typed<EsawParams>("esaw", params, backend, options);
}

StereoMatcher create(const esmp::Params& params, const std::string& backend, const Overrides& options) {
  return create_typed<EsmpParams>("esmp", params, backend, options);
}

}  // namespace stereo
