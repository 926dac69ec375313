#!/usr/bin/env bash
# The backends a build can run here, from `stereo list --json` (its flat "backends" list), one
# "method/backend" per line in registration order, so no script names the methods itself.
#   scripts/available_backends.sh STEREO_BIN [BACKEND ...]   e.g. build-gpu/stereo cuda
# With BACKEND names only those backends are listed. Reads the JSON with python3, or jq where
# python3 is missing; exits non-zero with one line on stderr when the list cannot be read.
set -euo pipefail
stereo="${1:?usage: available_backends.sh STEREO_BIN [BACKEND ...]}"
shift
json=$("$stereo" list --json) || { echo "available_backends: '$stereo list --json' failed" >&2; exit 1; }
if command -v python3 >/dev/null; then
  python3 -c '
import json, sys
wanted = set(sys.argv[1:])
for e in json.load(sys.stdin)["backends"]:
    if e["available"] and (not wanted or e["backend"] in wanted):
        print(e["method"] + "/" + e["backend"])' "$@" <<<"$json"
elif command -v jq >/dev/null; then
  jq -r --arg wanted "$*" '.backends[] | select(.available)
    | select($wanted == "" or (.backend as $b | $wanted | split(" ") | index($b)))
    | .method + "/" + .backend' <<<"$json"
else
  echo "available_backends: neither python3 nor jq is installed to read 'stereo list --json'" >&2
  exit 1
fi
