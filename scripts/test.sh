#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest. GL tests run on the
# GPU's driver or on Mesa's llvmpipe; CUDA tests skip without a CUDA device and say so.
# The GLFW platform test (ctest label glfw) needs an X display: it runs under a virtual one
# (xvfb-run -a picks a free display number; the screen is given as 24-bit so that a different
# xvfb-run default depth cannot take the GL visuals away). Both runs go ahead; the script
# fails if either does.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
status=0
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE glfw || status=1
if command -v xvfb-run >/dev/null; then
  xvfb-run -a -s "-screen 0 640x480x24" ctest --test-dir build --output-on-failure -L glfw || status=1
else
  echo "test: xvfb-run missing (scripts/deps.sh installs xvfb): the GLFW test will skip"
  ctest --test-dir build --output-on-failure -L glfw || status=1
fi
exit "$status"
