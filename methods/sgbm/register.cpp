// sgbm's entry in the registry: its description (info.cpp), then every backend this build has.
// The one file of the method compiled with the build's STEREO_WITH_* definitions.

#include "methods/sgbm/register.h"

namespace stereo {

// The OpenCV peer has no backend without OpenCV, so without it the method is not registered.
void register_sgbm([[maybe_unused]] Registry& r) {
#ifdef STEREO_WITH_OPENCV
  r.add_method(sgbm_method_info());
  register_sgbm_opencv(r);
#endif
}

}  // namespace stereo
