// app/revision.h. The header is generated at build time (cmake/source_revision.cmake).
#include "app/revision.h"

#include "stereo_revision.h"

namespace stereo {

std::string source_revision() { return STEREO_SOURCE_REVISION; }

}  // namespace stereo
