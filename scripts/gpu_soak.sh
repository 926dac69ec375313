#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu_check.sh has built build-gpu/ (or set BIN): the
# robustness checks of issue 13. Logs go to $OUT (default /tmp/stereo-soak).
#  1. compute-sanitizer memcheck, racecheck, synccheck and initcheck over every CUDA test
#     binary (build-gpu/tests/*cuda*tests), one summary line per tool and binary. Tests that
#     make an allocation fail on purpose are left out (memcheck counts the intended API error)
#     and so is the out-of-memory test (its 800 MB inputs make the tools crawl).
#  2. stereo_soak: SOAK_RUNS (1000) consecutive runs of every GPU method x backend (cuda, gl,
#     glcompute, and whatever registers later) in one process, device memory in use after the
#     first run and at the end, every map compared with the first; then a sequence of
#     SOAK_FRAMES (1000) frames through match_sequence on the same matcher (every CUDA method's
#     overlapped path, cuda/frame_stream.h), every map compared with compute()'s and device
#     memory after the last frame compared with after the 4th.
#  3. The two-threads test (stereo_tests TwoThreads.*): every pair of available backends in two
#     threads at once, bit-identical to each alone, or refused by the GL one-thread rule; then
#     THREADS_LOADED_RUNS (30) more runs while two `stereo bench` processes load the GPU
#     (THREADS_LOAD="adcensus 256 crossrt 128": method and levels of each, on cuda at 1080p).
#  4. The hostile-input suites on the GPU backends (Hostile.*, CliHostile.*, CudaHostile.*).
# STEPS picks what runs: STEPS="sanitize soak threads hostile" bash scripts/gpu_soak.sh
# Every step runs even after another failed; the script ends with exit 1 and a line naming
# each failed step.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT="${OUT:-/tmp/stereo-soak}"
BIN="${BIN:-build-gpu}"
STEPS="${STEPS:-sanitize soak threads hostile}"
mkdir -p "$OUT"
source scripts/gpu_kit.sh
has() { [[ " $STEPS " == *" $1 "* ]]; }
shopt -s nullglob  # a glob that matches nothing is no word (no CUDA tests, no failed load)
failed=()
fail() { failed+=("$1"); echo "== FAILED: $1"; }

if has sanitize; then
  # *DeviceMemory* reads the device-wide free memory, which the tools themselves change.
  filter="-*OutOfMemory*:*AllocationFailure*:*Recovers*:CudaHostile.*:*DeviceMemory*"
  binaries=("$BIN"/tests/*cuda*tests)
  ((${#binaries[@]})) || fail "sanitize: no CUDA test binary in $BIN/tests (a build without CUDA?)"
  for bin in "${binaries[@]}"; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin")
    for tool in memcheck racecheck synccheck initcheck; do
      extra=()
      [ $tool = memcheck ] && extra=(--leak-check full)
      timeout "${SANITIZER_TIMEOUT:-1200}" compute-sanitizer --tool $tool "${extra[@]}" --error-exitcode 9 \
        "$bin" --gtest_filter="$filter" >"$OUT/${name}_$tool.log" 2>&1
      rc=$?
      summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$OUT/${name}_$tool.log" | tail -1)
      tests=$(grep -E "^\[  PASSED  \]|^\[  FAILED  \]" "$OUT/${name}_$tool.log" | head -2 | tr '\n' ' ')
      echo "== $name $tool: exit $rc; ${summary:-no summary (see $OUT/${name}_$tool.log)}; $tests"
      [ $rc -eq 0 ] || fail "$name $tool (exit $rc, $OUT/${name}_$tool.log)"
    done
  done
fi

if has soak; then
  # shellcheck disable=SC2086  # SOAK_ARGS holds several words
  "$BIN/tests/stereo_soak" --runs "${SOAK_RUNS:-1000}" --frames "${SOAK_FRAMES:-1000}" ${SOAK_ARGS:-} 2>&1 |
    tee "$OUT/soak.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "soak"
fi

if has threads; then
  "$BIN/tests/stereo_tests" --gtest_filter='TwoThreads.*' >"$OUT/threads.txt" 2>&1 || fail "threads"
  grep -E "^\[ threads  \]|PASSED|FAILED" "$OUT/threads.txt"
  # Again THREADS_LOADED_RUNS (30) times while two other processes keep the GPU busy: that
  # delays transfers and kernels, which is how a table read before its pageable upload had
  # landed showed (esaw/esmp maps that differed in 20 of 117 runs, 2026-11-26).
  runs="${THREADS_LOADED_RUNS:-30}"
  # The loads: THREADS_LOAD ("method levels" pairs) at 1920x1080 on cuda; a load that cannot
  # run leaves the GPU idle, so it fails the step instead of passing it unloaded.
  touch "$OUT/loading"
  rm -f "$OUT"/load_failed_*
  read -ra load <<<"${THREADS_LOAD:-adcensus 256 crossrt 128}"
  for ((k = 0; k + 1 < ${#load[@]}; k += 2)); do
    ( m=${load[k]} levels=${load[k + 1]}
      while [ -f "$OUT/loading" ]; do
        "$BIN/stereo" bench -m "$m" -b cuda --size 1920x1080 -d "$levels" --repeat 3 >"$OUT/load_$m.txt" 2>&1 ||
          { touch "$OUT/load_failed_$m"; break; }
      done ) &
  done
  failed_runs=0
  for i in $(seq 1 "$runs"); do
    "$BIN/tests/stereo_tests" --gtest_filter='TwoThreads.*' >"$OUT/threads_loaded_$i.txt" 2>&1 ||
      { failed_runs=$((failed_runs + 1)); grep -E "gave a different|test_threads.cpp" "$OUT/threads_loaded_$i.txt" | head -4; }
  done
  rm -f "$OUT/loading"
  wait
  echo "TwoThreads under load: $runs runs, $failed_runs failed"
  [ "$failed_runs" -eq 0 ] || fail "threads under load ($failed_runs of $runs runs)"
  for f in "$OUT"/load_failed_*; do fail "load ${f##*load_failed_}: $(tail -1 "$OUT/load_${f##*load_failed_}.txt")"; done
fi

if has hostile; then
  "$BIN/tests/stereo_tests" --gtest_filter='Hostile*:CliHostile.*' >"$OUT/hostile.txt" 2>&1 || fail "hostile"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/hostile.txt" | head -40
  "$BIN/tests/stereo_cuda_tests" --gtest_filter='CudaHostile.*' >"$OUT/cuda_hostile.txt" 2>&1 || fail "cuda hostile"
  grep -E "^\[ cuda     \]|^\[  (PASSED|FAILED) " "$OUT/cuda_hostile.txt"
fi
if ((${#failed[@]})); then
  echo "gpu_soak: FAILED ${#failed[@]} step(s) (logs in $OUT):"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "gpu_soak: all passed ($STEPS)"
