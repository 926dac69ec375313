#!/usr/bin/env bash
# `stereo stream` and `stereo eval` under mpirun, on the CPU backend (no GPU needed):
#   stream  mpirun -np 2 writes the very map files one process writes, and its summary counts
#           the same frames of the same size, naming both ranks;
#   eval    mpirun -np 2 gives the same rows (every bad-pixel figure, density, average error)
#           and the same averages as one process; timings are measurements and not compared;
#   failure a corrupt frame in rank 1's block: the run exits non-zero, rank 0 names that frame
#           on one line, and no rank hangs (the whole run is under a time limit).
# Usage: test_mpi.sh stream|eval|failure STEREO_BIN MPI_FOUND(ON|OFF)
# Exit 77 (ctest's SKIP_RETURN_CODE) when the build has no MPI or mpirun is missing.
set -euo pipefail
mode=$1
stereo=$2
mpi_found=$3
if [ "$mpi_found" != "ON" ] && [ "$mpi_found" != "TRUE" ] && [ "$mpi_found" != "1" ]; then
  echo "SKIP: this build has no MPI (install libopenmpi-dev and openmpi-bin, reconfigure: STEREO_WITH_MPI)"
  exit 77
fi
if ! command -v mpirun > /dev/null; then
  echo "SKIP: mpirun not found (Debian: openmpi-bin)"
  exit 77
fi
# In the sanitizer build (scripts/sanitize.sh): Open MPI's own blocks kept past MPI_Finalize are
# suppressed by scripts/lsan_mpi.supp, whose header says how; full unwinding lets those stacks
# reach Open MPI's frames. The options are read only by an instrumented binary.
repo=$(cd "$(dirname "$0")/.." && pwd)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export LSAN_OPTIONS="suppressions=$repo/scripts/lsan_mpi.supp:print_suppressions=0"
# CI runs as root; Open MPI refuses root unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Two ranks on however few cores there are; shared memory only (no network in CI containers).
# plm_rsh_agent false: no ssh is needed (or looked for) on one host.
mpi=(timeout 300 mpirun -np 2 --oversubscribe --mca btl "self,vader" --mca plm_rsh_agent false)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
method=(-m salap -b cpu --set window=9)  # eval: each scene its own range
levels=(-d 12)

fail() {
  echo "FAIL: $*"
  exit 1
}

# A sequence of synthetic pairs (one scene each), named as KITTI names its frames.
make_sequence() {
  local frames=$1
  mkdir -p "$work/left" "$work/right"
  for i in $(seq 0 $((frames - 1))); do
    "$stereo" synth --size 72x48 -d 12 --seed $((100 + i)) --out "$work/scene" > /dev/null
    name=$(printf '%06d_10.png' "$i")
    cp "$work/scene/im0.png" "$work/left/$name"
    cp "$work/scene/im1.png" "$work/right/$name"
  done
}

case "$mode" in
  stream)
    make_sequence 5  # odd: the ranks' blocks differ in size (3 and 2)
    "$stereo" stream "$work/left" "$work/right" "${method[@]}" "${levels[@]}" --out "$work/one" --json > "$work/one.json"
    "${mpi[@]}" "$stereo" stream "$work/left" "$work/right" "${method[@]}" "${levels[@]}" --out "$work/two" --json > "$work/two.json" ||
      fail "mpirun stream exited $?"
    maps=$(find "$work/one" -name '*.png' | wc -l)
    [ "$maps" = 5 ] || fail "one process wrote $maps maps, not 5"
    diff <(ls "$work/one") <(ls "$work/two") || fail "the two runs wrote different file names"
    for f in "$work"/one/*; do
      cmp "$f" "$work/two/$(basename "$f")" || fail "map $(basename "$f") differs between 1 process and 2 ranks"
    done
    python3 - "$work/one.json" "$work/two.json" << 'EOF' || fail "summaries differ"
import json, sys
one, two = (json.load(open(p)) for p in sys.argv[1:3])
for key in ("frames", "width", "height", "levels", "min_disparity", "method", "backend", "params", "written"):
    assert one[key] == two[key], f"{key}: {one[key]} vs {two[key]}"
assert one["ranks"] == 1 and two["ranks"] == 2, (one["ranks"], two["ranks"])
ranks = sorted(d["rank"] for d in two["devices"])
assert ranks == [0, 1], ranks
assert sum(d["frames"] for d in two["devices"]) == 5, two["devices"]
assert two["fps"] > 0 and two["steady_fps"] > 0 and two["latency_ms"]["p99"] > 0, two
print("stream: maps and summary counts identical; ranks", ranks)
EOF
    ;;
  eval)
    # Five scenes of different sizes: the ranks' shares are interleaved (0, 2, 4 and 1, 3).
    for i in 0 1 2 3 4; do
      "$stereo" synth --size $((64 + 8 * i))x$((40 + 4 * i)) -d 12 --seed $((7 + i)) --out "$work/data/s$i" > /dev/null
    done
    "$stereo" eval "$work/data" "${method[@]}" --also-threshold 2 --out "$work/one" --json > "$work/one.json"
    "${mpi[@]}" "$stereo" eval "$work/data" "${method[@]}" --also-threshold 2 --out "$work/two" --json \
      > "$work/two.json" || fail "mpirun eval exited $?"
    for f in "$work"/one/*.pfm "$work"/one/*.png; do
      cmp "$f" "$work/two/$(basename "$f")" || fail "$(basename "$f") differs between 1 process and 2 ranks"
    done
    python3 - "$work/one.json" "$work/two.json" "$work/two/result.json" << 'EOF' || fail "eval results differ"
import json, sys
one, two, written = (json.load(open(p)) for p in sys.argv[1:4])
timed = {"time_ms", "mdes", "timing", "ran_on", "outputs"}
assert len(one["scenes"]) == len(two["scenes"]) == 5
for a, b in zip(one["scenes"], two["scenes"]):
    assert {k: v for k, v in a.items() if k not in timed} == {k: v for k, v in b.items() if k not in timed}, a["name"]
ranks = sorted({row["ran_on"]["rank"] for row in two["scenes"]})
assert ranks == [0, 1], ranks
for key in ("average", "average_of_columns", "paper_average", "also_average", "params", "threshold"):
    assert one[key] == two[key], f"{key}: {one[key]} vs {two[key]}"
assert two == written, "result.json differs from the printed JSON"
print("eval: every figure identical over", len(one["scenes"]), "scenes; ranks", ranks)
EOF
    ;;
  failure)
    make_sequence 4  # rank 0 takes frames 0-1, rank 1 frames 2-3
    bad=000003_10.png
    head -c 100 "$work/left/000000_10.png" > "$work/left/$bad"  # a truncated PNG in rank 1's block
    # Without --preload rank 1 meets the frame while matching; with it, while reading before the
    # start line. Either way no rank may wait for it.
    for preload in "" --preload; do
      rm -rf "$work/out"
      set +e
      # shellcheck disable=SC2086 # $preload: no option or one word
      "${mpi[@]}" "$stereo" stream "$work/left" "$work/right" "${method[@]}" "${levels[@]}" $preload \
        --out "$work/out" > "$work/stdout" 2> "$work/stderr"
      code=$?
      set -e
      cat "$work/stderr"
      [ "$code" != 124 ] || fail "the run hung (killed by the time limit) ${preload}"
      [ "$code" != 0 ] || fail "the run exited 0 with a corrupt frame ${preload}"
      grep -q "rank 1 of 2: stream: frame 3 ($bad)" "$work/stderr" ||
        fail "stderr does not name rank 1's frame 3 ($bad) ${preload}"
      [ "$(grep -c 'stereo: error' "$work/stderr")" = 1 ] || fail "not exactly one error line ${preload}"
      [ -n "$preload" ] && continue  # nothing was matched: the reading failed before the start line
      # The frames before the bad one are complete, on both ranks.
      for f in 000000_10 000001_10 000002_10; do
        [ -s "$work/out/$f.png" ] || fail "map $f.png before the failure is missing"
      done
      [ ! -e "$work/out/000003_10.png" ] || fail "a map was written for the corrupt frame"
    done
    echo "failure: exit $code, rank 1's frame named, maps before it written"
    ;;
  *)
    echo "usage: test_mpi.sh stream|eval|failure STEREO_BIN MPI_FOUND" >&2
    exit 2
    ;;
esac
