#!/usr/bin/env bash
# On the offline GPU machine (see ../shared/gpu-kit/README.md): build, the whole test suite,
# compute-sanitizer memcheck over the CUDA tests, and `stereo bench`. Logs go to $OUT when set.
#   bash scripts/gpu_check.sh [bench args...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/stereo-gpu}"
mkdir -p "$OUT"
source gpu-kit/setup.sh
set +e  # setup.sh turns on errexit; this script reports failures and goes on
export STEREO_DATA="${STEREO_DATA:-$PWD/shared-data}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
echo "== build ok"
build-gpu/stereo list | tee "$OUT/list.txt"
ctest --test-dir build-gpu --output-on-failure -j4 >"$OUT/ctest.log" 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest.log" | tail -30
grep -hE "^\[(salap|gl|cuda|glcompute)" build-gpu/Testing/Temporary/LastTest.log 2>/dev/null | sort -u | head -60 >"$OUT/shares.txt"
if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
  timeout "${SANITIZER_TIMEOUT:-200}" compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/tests/stereo_cuda_tests \
    --gtest_filter="${SANITIZER_FILTER:--*OutOfMemoryIsAClearError*}" >"$OUT/memcheck.log" 2>&1
  echo "== memcheck exit $? : $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
fi
build-gpu/stereo bench -m salap "$@" 2>&1 | tee "$OUT/bench.txt"
