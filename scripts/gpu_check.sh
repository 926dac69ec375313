#!/usr/bin/env bash
# On the offline GPU machine (see ../shared/gpu-kit/README.md; gpu-kit/ and shared-data/ are
# copies of ../shared/gpu-kit and ../shared/data beside the checkout): build, the whole test
# suite, compute-sanitizer over the CUDA tests, device selection, evaluation and benchmarks.
# Logs go to $OUT when set. STEPS picks what runs (default: all, in this order):
#   STEPS="build test sanitize device eval bench" bash scripts/gpu_check.sh
# STEPS="build compare" runs `stereo compare` into $OUT/compare (COMPARE_ARGS adds options);
# not in the default list: it takes long. gnuplot is not in the gpu-kit, so the plots are made
# afterwards with `stereo report $OUT/compare` on a machine that has it.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/stereo-gpu}"
mkdir -p "$OUT"
source gpu-kit/setup.sh >/dev/null
set +e  # setup.sh turns on errexit; this script reports failures and goes on
export STEREO_DATA="${STEREO_DATA:-$PWD/shared-data}"
STEPS="${STEPS:-build test sanitize device eval bench}"
has() { [[ " $STEPS " == *" $1 "* ]]; }
bin=build-gpu

nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"

if has build; then
  # CMAKE_CUDA_ARCHITECTURES is left to CMakeLists.txt: native on a machine with a GPU.
  cmake -S . -B $bin -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; exit 1; }
  grep -E "CUDA architectures|stereo:" "$OUT/configure.log"
  cmake --build $bin -j"$(nproc)" >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
  echo "== build ok"
  $bin/stereo list | tee "$OUT/list.txt"
fi

if has test; then
  ctest --test-dir $bin --output-on-failure -j4 --timeout 900 >"$OUT/ctest.log" 2>&1
  grep -E "tests passed|tests failed|Failed|\*\*\*|Not Run" "$OUT/ctest.log" | tail -30
  grep -hE "^\[(salap|gl|cuda|glcompute|range|adcensus)" $bin/Testing/Temporary/LastTest.log 2>/dev/null | sort -u | head -80 >"$OUT/shares.txt"
fi

if has sanitize; then
  # The tests that make an allocation fail on purpose are left out: memcheck counts the
  # intended API error. racecheck, synccheck and initcheck run every method's stage tests (the
  # kernels with shared memory and barriers, on small inputs) in groups, each with its own time
  # limit: under racecheck CudaSalapTiles.NarrowTileGivesBitIdenticalCosts alone takes ~80 s on
  # the H100 and CudaSalapFused.ChunkingDoesNotChangeTheResult ~40 s; whole-scene matcher tests
  # take minutes each (racecheck did not finish CudaAdCensusMatcher's v2 scenes in 70 s).
  filter_out="-*OutOfMemory*:*AllocationFailure*:*Recovers*:*DeviceMemory*"  # the tools change free memory
  groups=("CudaSalapStages.*:CudaSalapFused.*" "CudaSalapTiles.*" "CudaEsawStages.*"
          "CudaAdCensusStages.*:CudaAdCensusRefine.*:CudaCrossRtStages.*:CudaSymStereoStages.*")
  timeout "${SANITIZER_TIMEOUT:-240}" compute-sanitizer --tool memcheck --error-exitcode 9 \
    $bin/tests/stereo_cuda_tests --gtest_filter="$filter_out" >"$OUT/memcheck.log" 2>&1
  echo "== memcheck exit $? : $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
  for tool in racecheck synccheck initcheck; do
    for g in "${!groups[@]}"; do
      timeout "${SANITIZER_TIMEOUT:-240}" compute-sanitizer --tool $tool --error-exitcode 9 \
        $bin/tests/stereo_cuda_tests --gtest_filter="${groups[$g]}${filter_out}" >"$OUT/$tool-$g.log" 2>&1
      echo "== $tool ${groups[$g]} exit $? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool-$g.log" | tail -1)"
    done
  done
fi

if has device; then
  # --device 0: the CUDA and the EGL device must be the same GPU (UUIDs in the JSON).
  l=shared-data/middlebury-v2/tsukuba/left.png r=shared-data/middlebury-v2/tsukuba/right.png
  for b in cuda gl glcompute; do
    $bin/stereo --device 0 run $l $r -m salap -b $b -d 16 -o /tmp/dev_$b.pfm --json >"$OUT/device_$b.json" 2>&1
    echo "device 0 / $b: $(grep -A3 '"device_info"' "$OUT/device_$b.json" | tr -d '\n ' | head -c 300)"
  done
  $bin/stereo --device 7 run $l $r -m salap -b cuda -d 16 -o /tmp/dev7.pfm 2>&1 | tail -1
fi

if has eval; then
  for m in ${EVAL_METHODS:-salap adcensus symstereo}; do
    for b in cuda; do
      $bin/stereo eval shared-data/middlebury-v2 -m $m -b $b --out "/tmp/eval_${m}_$b" >"$OUT/eval_${m}_$b.txt" 2>&1
      echo "== eval $m/$b v2"; tail -8 "$OUT/eval_${m}_$b.txt"
    done
  done
fi

if has bench; then
  for m in ${BENCH_METHODS:-salap adcensus symstereo}; do
    $bin/stereo bench -m $m ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench_$m.txt"
  done
fi

if has compare; then
  $bin/stereo compare ${COMPARE_ARGS:-} --out "$OUT/compare" >"$OUT/compare.txt" 2>"$OUT/compare_progress.txt"
  echo "== compare exit $?"; cat "$OUT/compare.txt"
fi
