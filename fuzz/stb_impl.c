/* stb's image decoder and encoder, compiled with the fuzz build's instrumentation (see
   fuzz/CMakeLists.txt). The same version as the headers the suite builds against. */
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image.h>
#include <stb_image_write.h>
