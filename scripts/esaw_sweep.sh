#!/usr/bin/env bash
# Fig. 3 of Yu et al. (TCSVT 2010): error versus iterations, the best base per iteration count.
# Runs `stereo eval` over a Middlebury v2 folder for every (iterations, base) pair and prints
# the average of the 12 figures (nonocc / all / disc x 4 scenes) per pair, then the best base
# per iteration count.
#
#   scripts/esaw_sweep.sh [-m esaw|esmp] [-b cpu|cuda] [-i "3 4 ... 10"] [-B "1.5 1.6 ... 3.0"] [DATASET]
#
# Extra `--set key=value` pairs for every run go in ESAW_SWEEP_SET (e.g. "esmp_variant=literal").
# DATASET defaults to middlebury-v2 in $STEREO_DATA, or in the build's default data folder
# (../shared/data beside the checkout); STEREO_BIN names the binary (default build/stereo).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

method=esaw
backend=cpu
iterations="3 4 5 6 7 8 9 10"
bases="1.5 1.7 1.9 2.1 2.3 2.6 2.8 3.0"   # Fig. 3's range, 1.5 to 3
stereo=${STEREO_BIN:-$here/../build/stereo}
while getopts "m:b:i:B:" opt; do
  case $opt in
    m) method=$OPTARG ;;
    b) backend=$OPTARG ;;
    i) iterations=$OPTARG ;;
    B) bases=$OPTARG ;;
    *) echo "usage: $0 [-m esaw|esmp] [-b cpu|cuda] [-i ITERATIONS] [-B BASES] [DATASET]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
dataset=${1:-${STEREO_DATA:-$here/../../shared/data}/middlebury-v2}
[ -d "$dataset" ] || { echo "$0: no data set at $dataset (pass DATASET or set STEREO_DATA)" >&2; exit 1; }
[ -x "$stereo" ] || { echo "$0: no stereo binary at $stereo (build it, or set STEREO_BIN)" >&2; exit 1; }

extra=()
for kv in ${ESAW_SWEEP_SET:-}; do extra+=(--set "$kv"); done

printf "%-10s %-6s %s\n" iterations base "avg of 12"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for t in $iterations; do
  for b in $bases; do
    # The "average" line holds the mean nonocc, all and disc over the scenes.
    avg=$("$stereo" eval -m "$method" -b "$backend" --set iterations="$t" --set base="$b" "${extra[@]}" "$dataset" |
          awk '$1 == "average" { printf "%.2f", ($2 + $3 + $4) / 3 }') ||
      { echo "$0: stereo eval failed (iterations=$t base=$b)" >&2; exit 1; }
    [[ -n $avg ]] || { echo "$0: no average line from stereo eval (iterations=$t base=$b)" >&2; exit 1; }
    printf "%-10s %-6s %s\n" "$t" "$b" "$avg"
    echo "$t $b $avg" >>"$results"
  done
done
echo
echo "best base per iteration count (Fig. 3):"
sort -k1,1n -k3,3g "$results" | awk '$1 != last { printf "  %2d iterations: base %s, avg %s\n", $1, $2, $3; last = $1 }'
