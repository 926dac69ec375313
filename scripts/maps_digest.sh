#!/usr/bin/env bash
# Every map a build makes on the shared data, as a digest: `stereo eval` of each available
# method x backend (from `stereo list --json`, or BACKENDS="method/backend ...") over Middlebury v2
# and the MiddEval3 scenes, the figures it prints and an md5 of every disparity map it writes.
# Two builds give the same digest exactly when every map is bit-identical:
#   bash scripts/maps_digest.sh build out/digest-new && diff -r out/digest-old out/digest-new
# Usage: maps_digest.sh BUILD_DIR OUT_DIR  (STEREO_DATA overrides the data folder, which is
# otherwise the build's default, ../shared/data beside the checkout)
# Exits 1 naming what failed: an eval, its figures or digests, no backend, or no data.
set -uo pipefail
build="${1:?usage: maps_digest.sh BUILD_DIR OUT_DIR}"
out="${2:?usage: maps_digest.sh BUILD_DIR OUT_DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
data="${STEREO_DATA:-$here/../../shared/data}"
stereo="$build/stereo"
[ -x "$stereo" ] || { echo "maps_digest: no stereo binary at $stereo" >&2; exit 1; }
sets=()
for set in middlebury-v2 middlebury-v3-quarter; do [ -d "$data/$set" ] && sets+=("$set"); done
((${#sets[@]})) || { echo "maps_digest: no middlebury-v2 or middlebury-v3-quarter under $data (STEREO_DATA)" >&2; exit 1; }
if [ -z "${BACKENDS:-}" ]; then
  BACKENDS=$(bash "$here/available_backends.sh" "$stereo") || exit 1
  [ -n "$BACKENDS" ] || { echo "maps_digest: $stereo lists no available backend" >&2; exit 1; }
fi
# Figures of the maps as computed, comparable with builds that score no other way.
protocol=()
"$stereo" eval --help 2>/dev/null | grep -q -- --protocol && protocol=(--protocol float)
mkdir -p "$out"
failed=()
for mb in $BACKENDS; do
  m=${mb%/*} b=${mb#*/}
  for set in "${sets[@]}"; do
    tag="${m}_${b}_${set}"
    if ! "$stereo" eval "$data/$set" -m "$m" -b "$b" "${protocol[@]}" --out "$out/maps/$tag" >"$out/$tag.txt" 2>&1; then
      echo "maps_digest: $tag failed: $(tail -1 "$out/$tag.txt")"; failed+=("$tag"); continue
    fi
    # the figures (every scene's metrics, no timing) and the maps' digests
    if ! python3 - "$out/maps/$tag/result.json" >"$out/$tag.figures" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("params", json.dumps(r["params"], sort_keys=True))
for s in r["scenes"]:
    print(s["name"], *("%s=%r" % (k, s.get(k)) for k in ("nonocc", "all", "disc", "avg_error", "density", "d1_all")))
PY
    then
      echo "maps_digest: $tag: cannot read $out/maps/$tag/result.json"; failed+=("$tag figures")
    fi
    if ! (cd "$out/maps/$tag" && find . -name '*.pfm' | sort | xargs -r md5sum) >"$out/$tag.md5" ||
        [ ! -s "$out/$tag.md5" ]; then
      echo "maps_digest: $tag: no map digests"; failed+=("$tag digests")
      continue
    fi
    echo "$tag: $(wc -l <"$out/$tag.md5") maps"
  done
done
if ((${#failed[@]})); then
  echo "maps_digest: FAILED: ${failed[*]}"
  exit 1
fi
