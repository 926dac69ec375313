// Placeholder until gl/salap_glcompute.cpp (the compute-shader backend) lands: it registers
// nothing, so the registry links in a build with STEREO_WITH_GL.
#include "host/backends.h"

namespace stereo {

void register_salap_glcompute(Registry& /*registry*/) {}

}  // namespace stereo
