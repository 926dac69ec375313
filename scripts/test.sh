#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest. GL tests run on the
# GPU's driver or on Mesa's llvmpipe; CUDA tests skip without a CUDA device and say so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
