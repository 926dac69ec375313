#!/usr/bin/env bash
# On the offline GPU machine (see ../shared/gpu-kit/README.md; gpu-kit/ and shared-data/ are
# copies of ../shared/gpu-kit and ../shared/data beside the checkout): build, the whole test
# suite, compute-sanitizer over the CUDA tests, device selection, evaluation, benchmarks and
# the digest of every map. Logs go to $OUT when set. STEPS picks what runs (default: all
# but compare, in this order):
#   STEPS="build test sanitize device eval bench digest" bash scripts/gpu_check.sh
# eval and bench run every method with an available cuda backend (`stereo list --json`);
# EVAL_METHODS / BENCH_METHODS name others. digest writes $OUT/digest (scripts/maps_digest.sh,
# cuda backends; DIGEST_BACKENDS="m/b ..." names others) to diff against another build's.
# STEPS="build compare" runs `stereo compare` into $OUT/compare (COMPARE_ARGS adds options);
# not in the default list: it takes long. gnuplot is not in the gpu-kit, so the plots are made
# afterwards with `stereo report $OUT/compare` on a machine that has it.
# Every step runs even after another failed; the script ends with exit 1 and a line naming
# each failed step (build, ctest, each sanitizer run with errors, eval, bench, device, digest).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT="${OUT:-/tmp/stereo-gpu}"
mkdir -p "$OUT"
source scripts/gpu_kit.sh
export STEREO_DATA="${STEREO_DATA:-$PWD/shared-data}"
# No display (the GPU machine has none): the viewer's window tests draw offscreen in an EGL
# context on the GPU instead (docs/viewer.md), which is where the CUDA-GL interop is checked.
if [ -z "${DISPLAY:-}" ]; then export STEREO_VIEW_CONTEXT="${STEREO_VIEW_CONTEXT:-headless}"; fi
# The kit's libraries for the linker too (the install_consumer test links the installed library
# with `pkg-config --static --libs stereo`, whose -lGLEW -lglfw -lEGL -lOpenGL name them).
[ -d "${DEPS:-/opt/stereo-deps}/usr/lib/x86_64-linux-gnu" ] &&
  export LIBRARY_PATH="${DEPS:-/opt/stereo-deps}/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
STEPS="${STEPS:-build test sanitize device eval bench digest}"
has() { [[ " $STEPS " == *" $1 "* ]]; }
bin="${BIN:-build-gpu}"  # BIN: another build folder (tests/test_scripts.sh passes a fake one)
failed=()
fail() { failed+=("$1"); echo "== FAILED: $1"; }

nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt" ||
  fail "nvidia-smi"

if has build; then
  # CMAKE_CUDA_ARCHITECTURES is left to CMakeLists.txt: native on a machine with a GPU.
  # The kit's zlib1g-dev links libz.so to Debian's /lib/.../libz.so.1.2.13, which another
  # distribution lacks; CMake then takes the non-PIC libz.a, which the Python module (a shared
  # object) cannot link. The system's runtime libz.so.1 is the same library.
  zlib=()
  if [ ! -e "${DEPS:-/opt/stereo-deps}/usr/lib/x86_64-linux-gnu/libz.so" ] && [ -e /lib/x86_64-linux-gnu/libz.so.1 ]; then
    zlib=(-DZLIB_LIBRARY=/lib/x86_64-linux-gnu/libz.so.1 -DZLIB_LIBRARY_RELEASE=/lib/x86_64-linux-gnu/libz.so.1)
  fi
  python=()  # the first python3 (the GPU machine's venv with numpy, PyTorch, CuPy) for the module
  command -v python3 >/dev/null && python=(-DPython_EXECUTABLE="$(command -v python3)")
  # The kit's Dear ImGui (for `stereo view`) and stb come with .pc files that say prefix=/usr:
  # copies that name where the kit unpacked them go first on PKG_CONFIG_PATH.
  deps="${DEPS:-/opt/stereo-deps}"
  mkdir -p "$OUT/pkgconfig"
  for pc in imgui stb; do
    [ -f "$deps/usr/lib/x86_64-linux-gnu/pkgconfig/$pc.pc" ] &&
      sed "s|^prefix=/usr|prefix=$deps/usr|" "$deps/usr/lib/x86_64-linux-gnu/pkgconfig/$pc.pc" >"$OUT/pkgconfig/$pc.pc"
  done
  export PKG_CONFIG_PATH="$OUT/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  if ! cmake -S . -B "$bin" -G Ninja -DCMAKE_BUILD_TYPE=Release "${zlib[@]}" "${python[@]}" >"$OUT/configure.log" 2>&1; then
    tail -30 "$OUT/configure.log"; fail "configure"; build_failed=1
  elif ! cmake --build "$bin" -j"$(nproc)" >"$OUT/build.log" 2>&1; then
    grep -E "error|Error" "$OUT/build.log" | head -40; fail "build"; build_failed=1
  else
    grep -E "CUDA architectures|stereo:" "$OUT/configure.log"
    echo "== build ok"
    "$bin"/stereo list | tee "$OUT/list.txt" || fail "list"
  fi
fi
# Every later step runs what the build made; after a failed build that would be a stale binary.
if [ -n "${build_failed:-}" ]; then
  echo "gpu_check: FAILED: ${failed[*]} (later steps not run: they would test an older build)"
  exit 1
fi

# "method" per line for every method with an available cuda backend.
cuda_methods() {
  local listed
  listed=$(bash scripts/available_backends.sh "$bin"/stereo cuda) || return 1
  [ -n "$listed" ] || { echo "gpu_check: no cuda backend is available (see $bin/stereo list)" >&2; return 1; }
  echo "${listed//\/cuda/}"
}

if has test; then
  ctest --test-dir "$bin" --output-on-failure -j"${CTEST_JOBS:-4}" --timeout 900 >"$OUT/ctest.log" 2>&1 || fail "ctest"
  grep -E "tests passed|tests failed|Failed|\*\*\*|Not Run" "$OUT/ctest.log" | tail -30
  grep -hE "^\[(salap|gl|cuda|glcompute|range|adcensus)" "$bin"/Testing/Temporary/LastTest.log 2>/dev/null | sort -u | head -80 >"$OUT/shares.txt"
  # The Python module's suite (its CUDA tests run here: device inputs, out="cuda", PyTorch/CuPy).
  if ls "$bin"/python/stereo/_stereo*.so >/dev/null 2>&1; then
    STEREO_BUILD_DIR="$bin" PYTHONDONTWRITEBYTECODE=1 python3 -m pytest tests/python -q -rs -p no:cacheprovider \
      >"$OUT/pytest.log" 2>&1 || fail "pytest"
    tail -15 "$OUT/pytest.log"
  fi
fi

if has sanitize; then
  # The tests that make an allocation fail on purpose are left out: memcheck counts the
  # intended API error. racecheck, synccheck and initcheck run every method's stage suites
  # (Cuda*Stages, *Fused, *Tiles, *Refine: the kernels with shared memory and barriers, on
  # small inputs; SANITIZE_SUITES names others), one suite per run, each with its own time
  # limit: under racecheck CudaSalapTiles.NarrowTileGivesBitIdenticalCosts alone takes ~80 s on
  # the H100 and CudaSalapFused.ChunkingDoesNotChangeTheResult ~40 s; whole-scene matcher tests
  # take minutes each (racecheck did not finish CudaAdCensusMatcher's v2 scenes in 70 s).
  # A run that times out (exit 124) or finds errors (exit 9) is a failed step.
  filter_out="-*OutOfMemory*:*AllocationFailure*:*Recovers*:*DeviceMemory*"  # the tools change free memory
  timeout "${SANITIZER_TIMEOUT:-240}" compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$bin"/tests/stereo_cuda_tests --gtest_filter="$filter_out" >"$OUT/memcheck.log" 2>&1
  rc=$?
  echo "== memcheck exit $rc : $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
  [ $rc -eq 0 ] || fail "memcheck (exit $rc, $OUT/memcheck.log)"
  suites="${SANITIZE_SUITES:-$("$bin"/tests/stereo_cuda_tests --gtest_list_tests |
                               sed -nE 's/^(Cuda[A-Za-z0-9]*(Stages|Fused|Tiles|Refine))\.$/\1/p')}"
  [ -n "$suites" ] || fail "sanitize: no stage suite in $bin/tests/stereo_cuda_tests"
  for tool in racecheck synccheck initcheck; do
    for suite in $suites; do
      timeout "${SANITIZER_TIMEOUT:-240}" compute-sanitizer --tool $tool --error-exitcode 9 \
        "$bin"/tests/stereo_cuda_tests --gtest_filter="$suite.*$filter_out" >"$OUT/$tool-$suite.log" 2>&1
      rc=$?
      echo "== $tool $suite exit $rc : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool-$suite.log" | tail -1)"
      [ $rc -eq 0 ] || fail "$tool $suite (exit $rc, $OUT/$tool-$suite.log)"
    done
  done
fi

if has device; then
  # --device 0: the CUDA and the EGL device must be the same GPU (UUIDs in the JSON).
  l="$STEREO_DATA/middlebury-v2/tsukuba/left.png" r="$STEREO_DATA/middlebury-v2/tsukuba/right.png"
  for b in cuda gl glcompute; do
    "$bin"/stereo --device 0 run "$l" "$r" -m salap -b $b -d 16 -o /tmp/dev_$b.pfm --json >"$OUT/device_$b.json" 2>&1 ||
      fail "device 0 / $b ($(tail -1 "$OUT/device_$b.json"))"
    echo "device 0 / $b: $(grep -A3 '"device_info"' "$OUT/device_$b.json" | tr -d '\n ' | head -c 300)"
  done
  # An ordinal past the last GPU is one clear error line and exit 1, never a run elsewhere.
  gpus=$(nvidia-smi -L | wc -l)
  "$bin"/stereo --device "$gpus" run "$l" "$r" -m salap -b cuda -d 16 -o /tmp/dev_past.pfm >"$OUT/device_past.txt" 2>&1
  rc=$?
  echo "device $gpus (of $gpus): exit $rc: $(tail -1 "$OUT/device_past.txt")"
  if [ $rc -ne 1 ] || ! grep -q "^stereo: error: " "$OUT/device_past.txt"; then fail "device $gpus of $gpus (exit $rc)"; fi
fi

if has eval; then
  methods="${EVAL_METHODS:-$(cuda_methods)}" || fail "eval (no method list)"
  for m in $methods; do
    "$bin"/stereo eval "$STEREO_DATA/middlebury-v2" -m "$m" -b cuda --out "/tmp/eval_${m}_cuda" \
      >"$OUT/eval_${m}_cuda.txt" 2>&1
    rc=$?
    echo "== eval $m/cuda v2"; tail -8 "$OUT/eval_${m}_cuda.txt"
    [ $rc -eq 0 ] || fail "eval $m/cuda"
  done
fi

if has bench; then
  methods="${BENCH_METHODS:-$(cuda_methods)}" || fail "bench (no method list)"
  for m in $methods; do
    # shellcheck disable=SC2086  # BENCH_ARGS holds several words
    "$bin"/stereo bench -m "$m" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench_$m.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || fail "bench $m"
  done
fi

if has digest; then
  backends="${DIGEST_BACKENDS:-$(bash scripts/available_backends.sh "$bin"/stereo cuda)}" || fail "digest (no backend list)"
  if [ -n "$backends" ]; then
    BACKENDS="$backends" bash scripts/maps_digest.sh "$bin" "$OUT/digest" || fail "digest"
  fi
fi

if has compare; then
  # shellcheck disable=SC2086  # COMPARE_ARGS holds several words
  "$bin"/stereo compare ${COMPARE_ARGS:-} --out "$OUT/compare" >"$OUT/compare.txt" 2>"$OUT/compare_progress.txt" ||
    fail "compare"
  cat "$OUT/compare.txt"
fi

if ((${#failed[@]})); then
  echo "gpu_check: FAILED ${#failed[@]} step(s):"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "gpu_check: every step passed ($STEPS)"
