#!/usr/bin/env bash
# The scripts' own checks (ctest `scripts`): every script parses (bash -n) and passes the
# linter (shellcheck -S warning) where it is installed; available_backends.sh reads the
# built binary's `list --json`; gpu_check.sh, run against a fake build (a `stereo` whose eval
# or bench fails on request, a fake nvidia-smi), goes on after a failed step and exits 1
# naming it, and exits 0 when nothing failed; maps_digest.sh digests a tiny synthetic scene and
# exits 1 for a backend that does not exist or a data folder that is missing.
# Usage: test_scripts.sh SOURCE_DIR STEREO_BIN
set -uo pipefail
src="${1:?usage: test_scripts.sh SOURCE_DIR STEREO_BIN}"
stereo="${2:?usage: test_scripts.sh SOURCE_DIR STEREO_BIN}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
errors=0
# expect WHAT COMMAND...: COMMAND succeeds.
expect() {
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; errors=$((errors + 1)); fi
}
contains() { grep -qF -- "$2" "$1" || { echo "--- $1 lacks '$2':"; cat "$1"; return 1; }; }
lacks() { ! grep -qF -- "$2" "$1" || { echo "--- $1 has '$2':"; cat "$1"; return 1; }; }

scripts=("$src"/scripts/*.sh "$src"/.ci/run "$src"/tests/test_scripts.sh "$src"/tests/test_install.sh
  "$src"/tests/test_mpi.sh)
for f in "${scripts[@]}"; do expect "bash -n ${f#"$src"/}" bash -n "$f"; done
if command -v shellcheck >/dev/null; then
  expect "shellcheck -S warning" shellcheck -S warning "${scripts[@]}"
else
  echo "shellcheck is not installed: only bash -n checked the scripts"
fi

# ---- available_backends.sh on the real binary
bash "$src/scripts/available_backends.sh" "$stereo" >"$tmp/all.txt"
expect "available_backends lists salap/cpu" contains "$tmp/all.txt" "salap/cpu"
bash "$src/scripts/available_backends.sh" "$stereo" cpu >"$tmp/cpu.txt"
expect "available_backends cpu lists only cpu backends" bash -c "! grep -v '/cpu$' '$tmp/cpu.txt' && [ -s '$tmp/cpu.txt' ]"
expect "available_backends fails for a missing binary" bash -c "! bash '$src/scripts/available_backends.sh' '$tmp/none' 2>/dev/null"

# ---- gpu_check.sh against a fake build: toy has an available cuda backend, gone has none
mkdir -p "$tmp/fake" "$tmp/path"
cat >"$tmp/fake/stereo" <<'EOF'
#!/usr/bin/env bash
case "$1" in
  list) echo '{"methods": [], "backends": [
    {"method": "toy", "backend": "cpu", "summary": "", "available": true, "reason": null},
    {"method": "toy", "backend": "cuda", "summary": "", "available": true, "reason": null},
    {"method": "gone", "backend": "cuda", "summary": "", "available": false, "reason": "no CUDA device"}]}' ;;
  eval | bench)
    [[ " ${FAKE_FAIL:-} " == *" $1 "* ]] && { echo "stereo: error: $1 broke" >&2; exit 1; }
    echo "$1 of $3 ran" ;;
  *) exit 3 ;;
esac
EOF
printf '#!/usr/bin/env bash\necho "name, uuid"\n' >"$tmp/path/nvidia-smi"
chmod +x "$tmp/fake/stereo" "$tmp/path/nvidia-smi"
gpu_check() {  # gpu_check LOG VAR=VALUE...: one run of gpu_check.sh on the fake build
  local log=$1
  shift
  # STEREO_GPU_KIT_READY: never unpack the GPU machine's kit from a test (scripts/gpu_kit.sh).
  env PATH="$tmp/path:$PATH" BIN="$tmp/fake" OUT="$tmp/out" STEREO_GPU_KIT_READY=1 "$@" \
    bash "$src/scripts/gpu_check.sh" >"$log" 2>&1
}
gpu_check "$tmp/eval_fails.txt" STEPS="eval bench" FAKE_FAIL="eval"
expect "gpu_check exits 1 when eval fails" [ $? -eq 1 ]
expect "gpu_check names the failed eval" contains "$tmp/eval_fails.txt" "  eval toy/cuda"
expect "gpu_check goes on to bench" contains "$tmp/eval_fails.txt" "bench of toy ran"
expect "gpu_check runs only available cuda backends" lacks "$tmp/eval_fails.txt" "gone"
gpu_check "$tmp/bench_fails.txt" STEPS="eval bench" FAKE_FAIL="bench"
expect "gpu_check exits 1 when bench fails behind tee" [ $? -eq 1 ]
expect "gpu_check names the failed bench" contains "$tmp/bench_fails.txt" "  bench toy"
gpu_check "$tmp/methods.txt" STEPS="eval" FAKE_FAIL="eval" EVAL_METHODS="a b"
expect "gpu_check exits 1 for EVAL_METHODS failing" [ $? -eq 1 ]
expect "gpu_check names each failed method" contains "$tmp/methods.txt" "FAILED 2 step(s)"
gpu_check "$tmp/passes.txt" STEPS="eval bench"
expect "gpu_check exits 0 when every step passes" [ $? -eq 0 ]
expect "gpu_check says every step passed" contains "$tmp/passes.txt" "every step passed"

# ---- maps_digest.sh on a tiny synthetic scene with the real binary
"$stereo" synth --size 48x32 -d 8 --seed 1 --out "$tmp/data/middlebury-v2/planes" >/dev/null
build=$(dirname "$stereo")
STEREO_DATA="$tmp/data" BACKENDS="salap/cpu" bash "$src/scripts/maps_digest.sh" "$build" "$tmp/digest" >"$tmp/digest.txt" 2>&1
expect "maps_digest exits 0" [ $? -eq 0 ]
expect "maps_digest digests the scene's map" contains "$tmp/digest/salap_cpu_middlebury-v2.md5" "./planes.pfm"
STEREO_DATA="$tmp/data" BACKENDS="salap/cpu salap/nosuch" bash "$src/scripts/maps_digest.sh" "$build" "$tmp/digest2" \
  >"$tmp/digest2.txt" 2>&1
expect "maps_digest exits 1 for a failing backend" [ $? -eq 1 ]
expect "maps_digest names it" contains "$tmp/digest2.txt" "FAILED: salap_nosuch_middlebury-v2"
STEREO_DATA="$tmp/nodata" bash "$src/scripts/maps_digest.sh" "$build" "$tmp/digest3" >"$tmp/digest3.txt" 2>&1
expect "maps_digest exits 1 without data" [ $? -eq 1 ]
expect "maps_digest says where it looked" contains "$tmp/digest3.txt" "under $tmp/nodata"

if ((errors)); then
  echo "test_scripts: $errors check(s) failed"
  exit 1
fi
echo "test_scripts: every check passed"
