#!/usr/bin/env bash
# Configures and builds.
#   build.sh [CMAKE_ARGS...]         everything into build/: the program, the libraries, the tests
#                                    (what scripts/test.sh runs); CUDA backends when nvcc is found,
#                                    for this machine's GPUs, or for every architecture of
#                                    STEREO_CUDA_ARCHITECTURES_CI where none is visible (CMakeLists.txt)
#   build.sh --demo [CMAKE_ARGS...]  only the `stereo` program into build-demo/ (scripts/demo.sh):
#                                    no tests, precompiled headers (STEREO_PCH), and CUDA only for
#                                    the GPUs present (`native`), none where nvidia-smi sees no GPU
#                                    or nvcc is missing
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
if [ "${1:-}" = "--demo" ]; then
  shift
  cuda=(-DSTEREO_WITH_CUDA=OFF)
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU' &&
     { [ -n "${CUDACXX:-}" ] || command -v nvcc >/dev/null; }; then
    cuda=(-DSTEREO_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native)
  fi
  cmake -S . -B build-demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEREO_BUILD_TESTS=OFF -DSTEREO_PCH=ON "${cuda[@]}" "$@" \
    >/dev/null
  cmake --build build-demo -j"$(nproc)" --target stereo
  exit 0
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
