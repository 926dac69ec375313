#!/usr/bin/env bash
# libFuzzer over every loader (fuzz/): builds build-fuzz/ with clang (STEREO_FUZZ=ON: address,
# undefined and coverage), makes the seed corpora from the shared data (fuzz/make_seeds.cpp:
# small crops of real scenes, at run time; nothing is copied into the repository), then runs
# each target for FUZZ_SECONDS (default 20: a bounded run for CI, about 3 minutes for all
# nine). Longer runs by hand: FUZZ_SECONDS=3600 TARGETS="png pfm" scripts/fuzz.sh.
# A crash, a leak, a hang (> FUZZ_TIMEOUT s on one input) or an allocation above 2 GiB stops a
# target; its input lands in build-fuzz/artifacts/<target>/ and the script exits 1. Each
# target's executions and coverage are printed on one line per target.
# FUZZ_RUNS=N with FUZZ_SEED=S makes a run repeatable (CI: the same N inputs from the same seed
# and seed corpus on every run, FUZZ_SECONDS then only a cap), so CI does not turn red on one
# run and green on the next; longer open-ended runs find what that fixed prefix does not.
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_VERSION="${CLANG_VERSION:-14}"
bash scripts/deps.sh "clang-$CLANG_VERSION" "libclang-rt-$CLANG_VERSION-dev"
CC_BIN="$(command -v "clang-$CLANG_VERSION" || command -v clang)"
CXX_BIN="$(command -v "clang++-$CLANG_VERSION" || command -v clang++)"
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
FUZZ_TIMEOUT="${FUZZ_TIMEOUT:-10}"
FUZZ_RUNS="${FUZZ_RUNS:-}"
FUZZ_SEED="${FUZZ_SEED:-}"
repeatable=()
[ -n "$FUZZ_RUNS" ] && repeatable+=(-runs="$FUZZ_RUNS")
[ -n "$FUZZ_SEED" ] && repeatable+=(-seed="$FUZZ_SEED")
TARGETS="${TARGETS:-png pnm jpeg png16 pfm calib middlebury_v2 middeval3 kitti}"
BUILD=build-fuzz
DATA="${STEREO_DATA:-$PWD/../shared/data}"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
targets=(make_seeds)
for t in $TARGETS; do targets+=("fuzz_$t"); done
# The logs keep the terminal short; a failure prints the end of its log (errexit then stops).
mkdir -p "$BUILD"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$CC_BIN" \
  -DCMAKE_CXX_COMPILER="$CXX_BIN" -DSTEREO_FUZZ=ON -DSTEREO_WITH_GL=OFF -DSTEREO_WITH_CUDA=OFF \
  -DSTEREO_BUILD_TESTS=OFF "${launcher[@]}" >"$BUILD/configure.log" 2>&1 ||
  { tail -30 "$BUILD/configure.log"; echo "fuzz: configure failed ($BUILD/configure.log)"; exit 1; }
cmake --build "$BUILD" -j"${FUZZ_JOBS:-$(nproc)}" --target "${targets[@]}" >"$BUILD/build.log" 2>&1 ||
  { grep -E "error|Error" "$BUILD/build.log" | head -40; echo "fuzz: build failed ($BUILD/build.log)"; exit 1; }

seeds="$BUILD/seeds"
rm -rf "$seeds"
if [ -d "$DATA" ]; then
  "$BUILD/fuzz/make_seeds" "$DATA" "$seeds"
else
  echo "fuzz: no shared data at $DATA (STEREO_DATA): hand-made seeds only"
  "$BUILD/fuzz/make_seeds" /nonexistent "$seeds"
fi

status=0
for t in $TARGETS; do
  corpus="$BUILD/corpus/$t"   # grows across runs; the seeds are read alongside it
  artifacts="$BUILD/artifacts/$t/"
  mkdir -p "$corpus" "$artifacts" "$seeds/$t"
  log="$BUILD/fuzz_$t.log"
  # -rss_limit_mb bounds the whole process; -malloc_limit_mb one allocation: a decoder that
  # believes a corrupt header and allocates gigabytes is a finding.
  if "$BUILD/fuzz/fuzz_$t" "$corpus" "$seeds/$t" -max_total_time="$FUZZ_SECONDS" -timeout="$FUZZ_TIMEOUT" \
      -rss_limit_mb=2560 -malloc_limit_mb=2048 -artifact_prefix="$artifacts" -print_final_stats=1 \
      "${repeatable[@]}" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (input in $artifacts, log $log)"
    status=1
  fi
  execs=$(grep -E "stat::number_of_executed_units" "$log" | awk '{print $2}' || true)
  cov=$(grep -E "^#[0-9]+.*(DONE|pulse|NEW|REDUCE)" "$log" | tail -1 | grep -oE "cov: [0-9]+" || true)
  echo "fuzz_$t: ${execs:-?} executions (${FUZZ_RUNS:+at most $FUZZ_RUNS, seed ${FUZZ_SEED:-random}, }at most ${FUZZ_SECONDS} s), ${cov:-cov: ?}, $result"
  [ "$result" = ok ] || grep -E "ERROR|SUMMARY|==[0-9]+==" "$log" | head -5
done
exit "$status"
