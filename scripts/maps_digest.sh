#!/usr/bin/env bash
# Every map a build makes on the shared data, as a digest: `stereo eval` of each available
# method x backend (from `stereo list --json`, or BACKENDS="method/backend ...") over Middlebury v2
# and the MiddEval3 scenes, the figures it prints and an md5 of every disparity map it writes.
# Two builds give the same digest exactly when every map is bit-identical:
#   bash scripts/maps_digest.sh build out/digest-new && diff -r out/digest-old out/digest-new
# Usage: maps_digest.sh BUILD_DIR OUT_DIR  (STEREO_DATA overrides the data folder)
set -uo pipefail
build="${1:?usage: maps_digest.sh BUILD_DIR OUT_DIR}"
out="${2:?usage: maps_digest.sh BUILD_DIR OUT_DIR}"
data="${STEREO_DATA:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data}"
stereo="$build/stereo"
mkdir -p "$out"
if [ -z "${BACKENDS:-}" ]; then
  BACKENDS=$("$stereo" list --json | python3 -c '
import json, sys
for e in json.load(sys.stdin)["backends"]:
    if e["available"]: print(e["method"] + "/" + e["backend"])')
fi
# Figures of the maps as computed, comparable with builds that score no other way.
protocol=()
"$stereo" eval --help 2>/dev/null | grep -q -- --protocol && protocol=(--protocol float)
status=0
for mb in $BACKENDS; do
  m=${mb%/*} b=${mb#*/}
  for set in middlebury-v2 middlebury-v3-quarter; do
    [ -d "$data/$set" ] || continue
    tag="${m}_${b}_${set}"
    if ! "$stereo" eval "$data/$set" -m "$m" -b "$b" "${protocol[@]}" --out "$out/maps/$tag" >"$out/$tag.txt" 2>&1; then
      echo "maps_digest: $tag failed: $(tail -1 "$out/$tag.txt")"; status=1; continue
    fi
    # the figures (every scene's metrics, no timing) and the maps' digests
    python3 - "$out/maps/$tag/result.json" >"$out/$tag.figures" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("params", json.dumps(r["params"], sort_keys=True))
for s in r["scenes"]:
    print(s["name"], *("%s=%r" % (k, s.get(k)) for k in ("nonocc", "all", "disc", "avg_error", "density", "d1_all")))
PY
    (cd "$out/maps/$tag" && find . -name '*.pfm' | sort | xargs md5sum) >"$out/$tag.md5"
    echo "$tag: $(wc -l <"$out/$tag.md5") maps"
  done
done
exit $status
