#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest, then the Python module's
# pytest suite (tests/python) and `pip install .` in a fresh virtual environment. GL tests run on the GPU's driver or on Mesa's llvmpipe; CUDA
# tests skip without a CUDA device and say so. The module is built for Debian's interpreter
# (/usr/bin/python3, the one deps.sh installs numpy, pybind11 and PyTorch for), not the first
# python3 on PATH; STEREO_PYTHON=/path/to/python3 picks another (with those packages).
# The GLFW platform test (ctest label glfw) needs an X display: it runs under a virtual one
# (xvfb-run -a picks a free display number; the screen is given as 24-bit so that a different
# xvfb-run default depth cannot take the GL visuals away). Both runs go ahead; the script
# fails if either does.
set -euo pipefail
cd "$(dirname "$0")/.."
# The benchmark data: the data root, as the program finds it (STEREO_DATA, else the per-user
# one that `stereo data get` fills: README, "Data"). This repository's machines keep it in
# ../shared/data beside the checkout, taken where that folder exists and STEREO_DATA is unset.
if [ -z "${STEREO_DATA:-}" ] && [ -d ../shared/data ]; then
  STEREO_DATA="$(cd ../shared/data && pwd)"
  export STEREO_DATA
fi
bash scripts/deps.sh
python="${STEREO_PYTHON:-/usr/bin/python3}"
# Precompiled GoogleTest, nlohmann/json and CLI11 (STEREO_PCH): a build from scratch parses them
# once per library and test program instead of once per file; the test programs' files compile a
# batch at a time (STEREO_UNITY_TESTS; the libraries file by file, as a user's build has them).
config=(-DPython_EXECUTABLE="$python" -DSTEREO_PCH=ON -DSTEREO_UNITY_TESTS=ON)
# With no GPU visible nothing runs the device code, so one architecture (Hopper's SASS, through
# ptxas) shows that every kernel compiles; the list CMakeLists.txt falls back to (eight targets)
# is for builds that ship. STEREO_TEST_CUDA_ARCHITECTURES (or CMake's CUDAARCHS) sets another; a GPU's own is `native`.
if [ -z "${CUDAARCHS:-}" ] && ! { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }; then
  config+=(-DCMAKE_CUDA_ARCHITECTURES="${STEREO_TEST_CUDA_ARCHITECTURES:-90-real}")
fi
bash scripts/build.sh "${config[@]}"
status=0
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE glfw || status=1
if command -v xvfb-run >/dev/null; then
  xvfb-run -a -s "-screen 0 640x480x24" ctest --test-dir build --output-on-failure -L glfw || status=1
else
  echo "test: xvfb-run missing (scripts/deps.sh installs xvfb): the GLFW test will skip"
  ctest --test-dir build --output-on-failure -L glfw || status=1
fi
# The module's tests import it from build/python and compare it with build/stereo.
STEREO_BUILD_DIR=build PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest tests/python -q -rs -p no:cacheprovider || status=1
# `pip install .` in a fresh virtual environment, reusing build/ (about 20 s: nothing is compiled).
bash tests/test_pip_install.sh . build "$python" || status=1
exit "$status"
