# The project's one warning set. Every target the project builds calls stereo_warnings(target),
# so a warning means the same thing in core/, app/, reference/, gl/, cuda/, methods/ and tests/.
#
#   C++ (g++/clang++): -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion
#   CUDA (.cu files):  the same set for the host compiler through -Xcompiler; nvcc's own
#                      diagnostics (front end, ptxas) stay at their defaults, which are on.
#
# -Wsign-conversion is in because it was cheap: some fifty-five places in the whole tree, all an
# int index, size or block count meeting std::size_t or dim3's unsigned, each fixed (in the
# AD-Census sources: still to fix) with an explicit conversion where the value is known >= 0.
#
# What -Xcompiler reaches in a .cu file: the host compiler sees cudafe's host half, in which
# host functions are intact but __device__/__global__ bodies are replaced by stubs. So the host
# set checks launch code (grid arithmetic, int <-> size_t) and the signatures of device
# functions, not kernel bodies; nvcc has no -Wconversion/-Wshadow for device code. -Wconversion
# is kept for .cu files because it is quiet there: CMake passes the CUDA headers with -isystem,
# so the host compiler reports only our own code (checked with nvcc 13.0 and g++ 12).

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
