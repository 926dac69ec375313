#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the suite builds with, only those missing; sudo when
# not root. Sourced or run by demo.sh and test.sh; arguments name extra packages.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libglew-dev libglfw3-dev libglm-dev libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  libgtest-dev libgmock-dev libbenchmark-dev
  libstb-dev libcli11-dev nlohmann-json3-dev libfftw3-dev libpng-dev zlib1g-dev
  # a virtual X display (and Mesa's GLX) for the GLFW platform test: scripts/test.sh
  xvfb xauth libglx-mesa0
  # `stereo compare`: gnuplot for the plots (optional at run time), and the OpenCV peer
  # sgbm/opencv (optional at build time; calib3d's dev package brings core and imgproc). Both
  # took ~100 s together on a fresh Debian 12 here (171 packages, mostly OpenCV's codecs).
  gnuplot-nox libopencv-calib3d-dev
  # the Python module (python/) and its tests (tests/python: pytest, PyTorch for DLPack,
  # matplotlib for examples/python). ~117 MiB of packages (PyTorch brings SciPy, SymPy and
  # OpenCV's contrib libraries); apt took 51 s here to install the 88 packages.
  python3-dev python3-numpy python3-pybind11 pybind11-dev python3-pytest python3-torch python3-matplotlib
)
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
