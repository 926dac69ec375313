#!/usr/bin/env bash
# The layering at link level (ctest `link_layers`; tests/test_layout.cpp checks the includes):
# every symbol a library of a lower layer leaves undefined must not be defined only by a library
# above it or beside it. core needs nothing of the project; each backend (stereo_reference,
# stereo_gl, stereo_cuda, stereo_opencv) needs core alone; the methods layer needs core and the
# backends; the device pool and MPI layer (stereo_parallel) needs core alone. A backend that calls a function defined in the methods layer (a paper constant
# computed in info.cpp, say) fails here even though the program links.
# Usage: test_link_layers.sh BUILD_DIR
set -uo pipefail
build="${1:?usage: test_link_layers.sh BUILD_DIR}"
command -v nm >/dev/null || { echo "nm not found (binutils): cannot check"; exit 1; }
lib() { find "$build" -name "lib$1.a" -print -quit; }
# Symbols a library defines strongly (code T, data D/B/R; weak template instantiations, which any
# user of the template may carry, do not count) / leaves undefined.
defined() { nm -g --defined-only "$1" 2>/dev/null | awk 'NF >= 3 && $2 ~ /^[TDBR]$/ {print $3}' | sort -u; }
undefined() { nm -g --undefined-only "$1" 2>/dev/null | awk '{print $NF}' | sort -u; }

declare -A below=(
  [stereo_core]=""
  [stereo_reference]="stereo_core"
  [stereo_gl]="stereo_core"
  [stereo_cuda]="stereo_core"
  [stereo_opencv]="stereo_core"
  [stereo_methods]="stereo_core stereo_reference stereo_gl stereo_cuda stereo_opencv"
  [stereo_parallel]="stereo_core"
)
project=(stereo_core stereo_reference stereo_gl stereo_cuda stereo_opencv stereo_methods stereo_data stereo_app
  stereo_parallel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for l in "${project[@]}"; do
  f=$(lib "$l")
  [ -n "$f" ] && defined "$f" >"$tmp/$l.def"
done
[ -s "$tmp/stereo_core.def" ] || { echo "no libstereo_core.a under $build"; exit 1; }
errors=0
for l in "${!below[@]}"; do
  f=$(lib "$l")
  [ -n "$f" ] || { echo "skip: $l is not built here"; continue; }
  undefined "$f" >"$tmp/$l.undef"
  # What it may use: itself and the layers below it.
  cat "$tmp/$l.def" >"$tmp/allowed"
  for b in ${below[$l]}; do [ -f "$tmp/$b.def" ] && cat "$tmp/$b.def" >>"$tmp/allowed"; done
  sort -u -o "$tmp/allowed" "$tmp/allowed"
  for other in "${project[@]}"; do
    [ "$other" = "$l" ] || [ ! -f "$tmp/$other.def" ] && continue
    # Undefined here, defined by `other`, and not by anything this layer may use.
    bad=$(comm -12 "$tmp/$l.undef" "$tmp/$other.def" | comm -23 - "$tmp/allowed")
    if [ -n "$bad" ]; then
      echo "FAILED: $l uses $(echo "$bad" | wc -l) symbol(s) defined only in $other, a layer it must not depend on:"
      echo "$bad" | head -5 | c++filt | sed 's/^/  /'
      errors=$((errors + 1))
    fi
  done
  echo "ok: $l"
done
exit $((errors > 0))
