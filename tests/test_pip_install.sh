#!/usr/bin/env bash
# `pip install .` in a fresh virtual environment, as a user types it (README, Python), reusing the
# configured CMake build folder through STEREO_BUILD_DIR so that nothing is compiled twice; then
# `import stereo` there, away from the source tree, must load the installed copy and match the
# build's module. Offline: --no-build-isolation (the interpreter's setuptools), --no-index.
# Usage: test_pip_install.sh SOURCE_DIR BUILD_DIR [PYTHON]
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
python="${3:-/usr/bin/python3}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" -m venv --system-site-packages "$tmp/v"
(cd "$src" && STEREO_BUILD_DIR="$build" "$tmp/v/bin/pip" install -q --no-build-isolation --no-index --no-deps .) \
  >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; echo "pip_install: pip install . failed" >&2; exit 1; }
cd "$tmp"
"$tmp/v/bin/python" - "$tmp/v" "$build" <<'PY'
import pathlib, sys
import stereo
venv, build = map(pathlib.Path, sys.argv[1:])
where = pathlib.Path(stereo.__file__).resolve()
assert venv.resolve() in where.parents, f"stereo imported from {where}, not from the venv {venv}"
ext = pathlib.Path(stereo._stereo.__file__)
built = build / "python" / "stereo" / ext.name
assert ext.read_bytes() == built.read_bytes(), f"{ext} differs from the build's {built}"
assert (where.parent / "__init__.pyi").is_file(), "the type stubs were not installed"
assert stereo.revision(), "no revision"
print(f"pip_install: import stereo from {where.parent} ({len(stereo.methods())} methods)")
PY
