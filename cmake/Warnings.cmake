# The project's one warning set. Every target the project builds calls stereo_warnings(target),
# so a warning means the same thing in host/, reference/, gl/, cuda/ and tests/.
#
#   C++ (g++/clang++): -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion
#   CUDA (.cu files):  the same set for the host compiler through -Xcompiler, which sees the host
#                      half of every .cu file after cudafe has split it off; nvcc's own front end
#                      (device code) keeps its default diagnostics, which are already on.
#
# -Wconversion on .cu host code is kept: cudafe emits the kernel launch stubs and includes the
# CUDA runtime headers as system headers, so the host compiler does not report their
# conversions; what it reports is ours (grid arithmetic, size_t <-> int in launch code).
# Device-side narrowing is not checked: nvcc has no -Wconversion for device code.

option(STEREO_WERROR "Treat the project's warnings as errors (CI turns this on once the build is clean)" OFF)

set(STEREO_CXX_WARNINGS -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion)

# Adds the project's warning flags (and -Werror with STEREO_WERROR) to target's own sources.
# PRIVATE: flags never leak into targets that link it, nor into imported targets.
function(stereo_warnings target)
  list(JOIN STEREO_CXX_WARNINGS "," host_warnings)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${STEREO_CXX_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${host_warnings}>)
  if(STEREO_WERROR)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror>
      # nvcc: its own warnings (front end, ptxas) and the host compiler's.
      $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings -Xcompiler=-Werror>)
  endif()
endfunction()
