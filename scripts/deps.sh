#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the suite builds with, only those missing; sudo when
# not root. Run by demo.sh (with --demo: only what the demo builds and runs) and test.sh (the
# whole list); further arguments name extra packages.
# Usage: deps.sh [--demo] [PACKAGE...]
set -euo pipefail
# The demo's packages: the compiler and build tools, the `stereo` program's libraries and the GL
# backend's (Mesa's EGL and llvmpipe where there is no GPU driver). ~30 s of apt on a fresh
# Debian 12.
demo_packages=(
  build-essential cmake ninja-build pkg-config
  libglew-dev libglfw3-dev libglm-dev libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  libstb-dev libcli11-dev nlohmann-json3-dev libpng-dev zlib1g-dev
)
packages=("${demo_packages[@]}")
if [ "${1:-}" = "--demo" ]; then
  shift
else
  packages+=(
    # the tests and benchmarks; FFTW for symstereo's cpu backend
    libgtest-dev libgmock-dev libbenchmark-dev libfftw3-dev
    # a virtual X display (and Mesa's GLX) for the GLFW platform test: scripts/test.sh
    xvfb xauth libglx-mesa0
    # `stereo compare`: gnuplot for the plots (optional at run time), and the OpenCV peer
    # sgbm/opencv (optional at build time; calib3d's dev package brings core and imgproc). Both
    # took ~100 s together on a fresh Debian 12 here (171 packages, mostly OpenCV's codecs).
    gnuplot-nox libopencv-calib3d-dev
    # `stereo stream` and `eval` over several hosts (optional at build time: STEREO_WITH_MPI)
    libopenmpi-dev openmpi-bin
    # `stereo view`: Dear ImGui (1.86 on Debian 12, its glfw and opengl3 backends compiled in)
    libimgui-dev
    # the Python module and its tests (for Debian's /usr/bin/python3): pybind11, NumPy, pytest;
    # PyTorch CPU for the DLPack tests, matplotlib for examples/python/compare.py, OpenCV's cv2
    # for the BGR test (tests/python/test_order.py) and docs/python.md's cv2 example. The test
    # scripts (tests/test_scripts.sh, tests/test_mpi.sh) read JSON with python3 too.
    python3 python3-dev python3-numpy python3-pybind11 pybind11-dev python3-pytest python3-torch
    python3-matplotlib python3-opencv
    # `pip install .` in a virtual environment (scripts/test.sh checks it)
    python3-venv python3-setuptools python3-pip
    # `stereo data get/add/verify` (optional at build time: STEREO_WITH_DATA_DOWNLOAD)
    libcurl4-openssl-dev libarchive-dev libssl-dev
  )
fi
packages+=("$@")  # extra packages a caller needs (scripts/fuzz.sh: clang and libFuzzer)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "deps: all packages present"
fi
