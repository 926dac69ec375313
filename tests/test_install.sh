#!/usr/bin/env bash
# The installed library from outside (ctest `install_consumer`, so scripts/test.sh and CI run it):
# `cmake --install` of this build into a temporary prefix, then
#  - every installed header compiled on its own with only the prefix's include/ on the path, the
#    preprocessor's list of the files it read (-H) holding nothing but include/stereo/ and the
#    files the C++ standard library's own headers read (nothing of the implementation, no
#    nlohmann::json);
#  - examples/cpp configured with find_package(stereo CONFIG) against that prefix alone (not the
#    build tree), built, and run on a synthetic pair; its PFM must equal `stereo run`'s (the
#    installed program) byte for byte, for salap on every backend available here, and the typed
#    example's (stereo::adcensus::Params with three fields set) must equal `stereo run -m
#    adcensus` with the same three --set, on every adcensus backend available here;
#  - the same examples compiled and linked with nothing but `pkg-config --static --cflags --libs
#    stereo`, and compared again. The installed package files must not name the build or source tree.
# Usage: test_install.sh SOURCE_DIR BUILD_DIR [SANITIZERS]
# SANITIZERS: the build's STEREO_SANITIZE (scripts/sanitize.sh): its installed libraries are
# instrumented, so the consumer is compiled and linked with the same -fsanitize.
set -euo pipefail
src="$(cd "${1:?usage: test_install.sh SOURCE_DIR BUILD_DIR}" && pwd)"
build="$(cd "${2:?usage: test_install.sh SOURCE_DIR BUILD_DIR}" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
fail() { echo "FAILED: $*"; exit 1; }
sanitize=()
[ -n "${3:-}" ] && sanitize=("-fsanitize=$3")

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
for f in include/stereo/stereo.h include/stereo/io.h include/stereo/data.h include/stereo/testing.h \
         include/stereo/image_view.h include/stereo/adcensus.h include/stereo/salap.h include/stereo/esaw.h \
         lib/cmake/stereo/stereo-config.cmake lib/pkgconfig/stereo.pc bin/stereo; do
  [ -e "$prefix/$f" ] || fail "the install has no $f"
done
for forbidden in core methods app cuda gl reference; do
  [ ! -e "$prefix/include/stereo/$forbidden" ] || fail "include/stereo/$forbidden is installed: only the public headers are"
done

# The standard library's files: what a translation unit of every standard header this code
# base uses reads. An installed header may read those and include/stereo/ alone.
std_headers="algorithm any array atomic bitset cassert cctype cerrno cfloat charconv chrono climits cmath
  complex condition_variable cstddef cstdint cstdio cstdlib cstring ctime deque exception filesystem
  fstream functional initializer_list iomanip ios iosfwd iostream istream iterator limits list map
  memory mutex new numeric optional ostream queue random ratio regex set sstream stack stdexcept
  streambuf string string_view system_error thread tuple type_traits typeindex typeinfo
  unordered_map unordered_set utility variant vector"
for h in $std_headers; do echo "#include <$h>"; done >"$tmp/std.cpp"
c++ -std=c++20 -fsyntax-only -H "$tmp/std.cpp" 2>&1 >/dev/null | sed -n 's/^\.\+ //p' \
  | while read -r f; do realpath -m "$f"; done | sort -u >"$tmp/std.list"
[ "$(wc -l <"$tmp/std.list")" -gt 50 ] || fail "the standard library's file list is short: $(wc -l <"$tmp/std.list") files"
inc="$(realpath "$prefix/include")"
headers=$(cd "$prefix/include" && find stereo -name '*.h' | sort)
[ "$(echo "$headers" | wc -l)" -ge 15 ] || fail "too few installed headers: $headers"
for h in $headers; do
  echo "#include <$h>" >"$tmp/one.cpp"
  c++ -std=c++20 -fsyntax-only -Wall -Wextra -H -I"$prefix/include" "$tmp/one.cpp" >"$tmp/one.log" 2>&1 \
    || { cat "$tmp/one.log"; fail "<$h> does not compile on its own with only the install's include/"; }
  sed -n 's/^\.\+ //p' "$tmp/one.log" | while read -r f; do realpath -m "$f"; done | sort -u >"$tmp/one.list"
  outside=$(grep -v "^$inc/stereo/" "$tmp/one.list" | comm -23 - "$tmp/std.list" || true)
  [ -z "$outside" ] || fail "<$h> reads files outside include/stereo/ and the standard library: $outside"
  grep -q "^$inc/stereo/" "$tmp/one.list" || [ "$(grep -c '#include "' "$prefix/include/$h")" -eq 0 ] \
    || fail "<$h>: the preprocessor's list holds none of include/stereo/ (is -H read right?)"
done
echo "ok: $(echo "$headers" | wc -l) installed headers read only include/stereo/ and the standard library"

if grep -rlF -e "$build" -e "$src" "$prefix/lib/cmake" "$prefix/lib/pkgconfig"; then
  fail "the installed package names the build or source tree (above)"
fi

"$prefix/bin/stereo" synth --size 96x64 -d 12 --seed 7 --out "$tmp/scene" >/dev/null
left="$tmp/scene/im0.png" right="$tmp/scene/im1.png"

cmake -S "$src/examples/cpp" -B "$tmp/example" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_CXX_FLAGS="${sanitize[*]}" \
      -DCMAKE_EXE_LINKER_FLAGS="${sanitize[*]}" >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "configuring examples/cpp against the install"; }
grep -q "stereo_DIR:PATH=$prefix/" "$tmp/example/CMakeCache.txt" || fail "examples/cpp found a stereo package outside $prefix: $(grep stereo_DIR "$tmp/example/CMakeCache.txt")"
cmake --build "$tmp/example" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "building examples/cpp"; }

pcdir=$(dirname "$(find "$prefix" -name stereo.pc -print -quit)")
# shellcheck disable=SC2046  # pkg-config's flags are words
c++ -std=c++20 -O1 "${sanitize[@]}" "$src/examples/cpp/main.cpp" -o "$tmp/example_pc" \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --static --cflags --libs stereo) >"$tmp/pc.log" 2>&1 \
    || { cat "$tmp/pc.log"; fail "compiling examples/cpp/main.cpp with pkg-config --static --cflags --libs stereo"; }
# shellcheck disable=SC2046
c++ -std=c++20 -O1 "${sanitize[@]}" "$src/examples/cpp/typed_params.cpp" -o "$tmp/typed_pc" \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --static --cflags --libs stereo) >"$tmp/pc.log" 2>&1 \
    || { cat "$tmp/pc.log"; fail "compiling examples/cpp/typed_params.cpp with pkg-config --static --cflags --libs stereo"; }

# A command of the installed tree; one killed by a signal says which signal and what room the
# temporary folder and memory had, before the test fails. (On the GPU machine its bus errors
# named GL processes, which led to the kit being unpacked under the running suite:
# scripts/gpu_kit.sh.)
checked() {
  local rc=0
  "$@" || rc=$?
  if [ "$rc" -gt 128 ]; then
    {
      echo "killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128))): $*"
      df -h "$tmp" /dev/shm 2>/dev/null | sed 's/^/  /'
      grep -E "MemAvailable|Shmem:" /proc/meminfo 2>/dev/null | sed 's/^/  /'
    } >&2
  fi
  return "$rc"
}

backends=$("$prefix/bin/stereo" list | awk '$1 == "salap" && $3 == "yes" {print $2}')
[ -n "$backends" ] || fail "stereo list shows no available salap backend"
for b in $backends; do
  checked "$prefix/bin/stereo" run "$left" "$right" -m salap -b "$b" -d 12 --out "$tmp/run_$b.pfm" >/dev/null
  checked "$tmp/example/stereo_example" "$left" "$right" 12 "$tmp/cmake_$b.pfm" salap "$b"
  checked "$tmp/example_pc" "$left" "$right" 12 "$tmp/pc_$b.pfm" salap "$b" >/dev/null
  cmp "$tmp/run_$b.pfm" "$tmp/cmake_$b.pfm" || fail "salap/$b: the example (find_package) wrote another map than stereo run"
  cmp "$tmp/run_$b.pfm" "$tmp/pc_$b.pfm" || fail "salap/$b: the example (pkg-config) wrote another map than stereo run"
  echo "ok: salap/$b, the installed example's map equals stereo run's"
done
# stereo::adcensus::Params with pi2, aggregation_iterations and refine set gives the map of the
# CLI's --set of the same three, and not the defaults' map (the fields reach the matcher).
typed_set=(--set pi2=4 --set aggregation_iterations=2 --set refine=vote)
backends=$("$prefix/bin/stereo" list | awk '$1 == "adcensus" && $3 == "yes" {print $2}')
[ -n "$backends" ] || fail "stereo list shows no available adcensus backend"
for b in $backends; do
  checked "$prefix/bin/stereo" run "$left" "$right" -m adcensus -b "$b" -d 12 "${typed_set[@]}" --out "$tmp/run_typed_$b.pfm" >/dev/null
  checked "$prefix/bin/stereo" run "$left" "$right" -m adcensus -b "$b" -d 12 --out "$tmp/run_default_$b.pfm" >/dev/null
  checked "$tmp/example/stereo_typed_params" "$left" "$right" 12 "$tmp/typed_$b.pfm" "$b" >"$tmp/typed_$b.txt"
  checked "$tmp/typed_pc" "$left" "$right" 12 "$tmp/typed_pc_$b.pfm" "$b" >/dev/null
  cmp "$tmp/run_typed_$b.pfm" "$tmp/typed_$b.pfm" || fail "adcensus/$b: the typed example (find_package) wrote another map than stereo run with --set"
  cmp "$tmp/run_typed_$b.pfm" "$tmp/typed_pc_$b.pfm" || fail "adcensus/$b: the typed example (pkg-config) wrote another map than stereo run with --set"
  if cmp -s "$tmp/run_default_$b.pfm" "$tmp/typed_$b.pfm"; then
    fail "adcensus/$b: the typed example's map equals the defaults' map: its fields did not reach the matcher"
  fi
  for kv in pi2=4.0 aggregation_iterations=2 refine=vote; do  # values as JSON writes them
    grep -qx "$kv" "$tmp/typed_$b.txt" || fail "adcensus/$b: StereoMatcher::params() lacks $kv: $(tr '\n' ' ' <"$tmp/typed_$b.txt")"
  done
  echo "ok: adcensus/$b, the typed Params (stereo/adcensus.h) give stereo run --set's map"
done

# The errors reach a consumer as one line naming the component and the value.
if "$tmp/example/stereo_example" "$left" "$right" 500 "$tmp/bad.pfm" salap cpu 2>"$tmp/err.txt"; then
  fail "500 levels on a 96-pixel-wide image was accepted"
fi
grep -q "salap/cpu: disparity levels 500" "$tmp/err.txt" || fail "unexpected error text: $(cat "$tmp/err.txt")"
echo "ok: install, find_package(stereo CONFIG), pkg-config"
