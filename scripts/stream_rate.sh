#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu_check.sh has built build-gpu/ (or set BIN): the
# streaming acceptance of issue 32 (docs/streaming.md). For every CUDA method (or METHODS):
#  1. FRAMES (200) frames of SIZE (1920x1080) x LEVELS (256), cycling over SCENES (4) `stereo
#     synth` pairs of different content, through `stereo stream --preload` without writing;
#  2. `stereo bench` at the same size and levels (the algorithm-only rate, same process run);
#  3. the same stream again with --out (PFM): every frame's map compared byte for byte with
#     the map `stereo run` writes for its pair.
# One line per method: steady ms a frame, the stream's mean algorithm ms, bench's algorithm
# ms, the steady rate as a share of bench's algorithm-only rate, and the maps. Exit 1 when a
# share is below MIN_SHARE (0.95), a map differs or a command fails. Work files under $OUT
# (default /tmp/stereo-stream-rate).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BIN="${BIN:-build-gpu}"
OUT="${OUT:-/tmp/stereo-stream-rate}"
SIZE="${SIZE:-1920x1080}"
LEVELS="${LEVELS:-256}"
FRAMES="${FRAMES:-200}"
SCENES="${SCENES:-4}"
MIN_SHARE="${MIN_SHARE:-0.95}"
# Frames of the map check (step 3; default all of them): fewer when time on the GPU is short,
# the sequence tests (tests/test_cuda_sequences.cpp) compare every frame with compute() anyway.
MAP_FRAMES="${MAP_FRAMES:-$FRAMES}"
METHODS="${METHODS:-$(bash scripts/available_backends.sh "$BIN/stereo" cuda | sed 's|/cuda$||' | tr '\n' ' ')}"
source scripts/gpu_kit.sh
stereo="$BIN/stereo"
[ -x "$stereo" ] || { echo "stream_rate: no $stereo (build first, or set BIN)"; exit 1; }
failed=()

# The frames: SCENES synthetic pairs, FRAMES names in the left and right folders cycling over them.
rm -rf "$OUT"
mkdir -p "$OUT/left" "$OUT/right"
for ((s = 0; s < SCENES; s++)); do
  "$stereo" synth --size "$SIZE" -d "$LEVELS" --seed $((100 + s)) --out "$OUT/scene$s" >/dev/null ||
    { echo "stream_rate: stereo synth failed"; exit 1; }
done
mkdir -p "$OUT/map_left" "$OUT/map_right"
for ((i = 0; i < FRAMES; i++)); do
  name=$(printf '%06d.png' "$i")
  s=$((i % SCENES))
  ln -s "$OUT/scene$s/im0.png" "$OUT/left/$name"
  ln -s "$OUT/scene$s/im1.png" "$OUT/right/$name"
  if ((i < MAP_FRAMES)); then
    ln -s "$OUT/scene$s/im0.png" "$OUT/map_left/$name"
    ln -s "$OUT/scene$s/im1.png" "$OUT/map_right/$name"
  fi
done

field() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

for m in $METHODS; do
  log="$OUT/$m"
  if ! "$stereo" stream "$OUT/left" "$OUT/right" -m "$m" -b cuda -d "$LEVELS" --preload --json >"$log.stream.json" 2>"$log.stream.err"; then
    failed+=("$m stream: $(tail -1 "$log.stream.err")"); continue
  fi
  if ! "$stereo" bench -m "$m" -b cuda --size "$SIZE" -d "$LEVELS" --json >"$log.bench.json" 2>"$log.bench.err"; then
    failed+=("$m bench: $(tail -1 "$log.bench.err")"); continue
  fi
  steady=$(field "$log.stream.json" 'j["steady_ms"]')
  alg_stream=$(field "$log.stream.json" 'j["per_frame_ms"]["algorithm"]')
  alg_bench=$(field "$log.bench.json" 'j["algorithm_ms"]')
  share=$(python3 -c "print(f'{$alg_bench / $steady:.3f}')")
  # The maps: the stream's PFMs against `stereo run`'s for each scene.
  maps="maps not checked"
  if "$stereo" stream "$OUT/map_left" "$OUT/map_right" -m "$m" -b cuda -d "$LEVELS" --out "$log.maps" --format pfm \
      >/dev/null 2>"$log.maps.err"; then
    differ=0
    for ((s = 0; s < SCENES; s++)); do
      "$stereo" run "$OUT/scene$s/im0.png" "$OUT/scene$s/im1.png" -m "$m" -b cuda -d "$LEVELS" \
        -o "$log.run$s.pfm" >/dev/null 2>&1 || { differ=$MAP_FRAMES; break; }
    done
    for ((i = 0; i < MAP_FRAMES; i++)); do
      cmp -s "$log.maps/$(printf '%06d.pfm' "$i")" "$log.run$((i % SCENES)).pfm" || differ=$((differ + 1))
    done
    maps="$((MAP_FRAMES - differ))/$MAP_FRAMES maps identical to stereo run"
    [ "$differ" -eq 0 ] || failed+=("$m: $differ of $MAP_FRAMES maps differ from stereo run")
  else
    failed+=("$m stream --out: $(tail -1 "$log.maps.err")")
  fi
  echo "$m/cuda $SIZE x $LEVELS, $FRAMES frames: steady $steady ms a frame; algorithm $alg_stream ms (stream), $alg_bench ms (bench): $share of the algorithm-only rate; $maps"
  python3 -c "import sys; sys.exit(0 if $share >= $MIN_SHARE else 1)" || failed+=("$m: $share < $MIN_SHARE")
done
if ((${#failed[@]})); then
  echo "stream_rate: FAILED:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "stream_rate: every method at >= $MIN_SHARE of its algorithm-only rate, every map as stereo run writes it"
