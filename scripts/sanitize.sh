#!/usr/bin/env bash
# The CPU and GL tests under AddressSanitizer + UndefinedBehaviorSanitizer: builds
# build-asan/ with -DSTEREO_SANITIZE=address,undefined and the CUDA backends off (nvcc takes no
# -fsanitize; the GPU code is checked by compute-sanitizer, scripts/gpu_soak.sh), runs ctest.
# Mesa's own lifetime allocations are suppressed for
# LeakSanitizer by scripts/lsan.supp (driver libraries only). Run by .ci/run after the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build-asan
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# -O1 -g1: AddressSanitizer's own advice for tests (-O1 keeps the reports' stacks whole), and line
# tables are all a report's file:line needs (NDEBUG as in every other build). Unity build: every
# target's files compile a batch at a time, since this build exists to run the tests under the
# sanitizers, not to check each file alone (scripts/test.sh's build does that). The two halve
# a build from scratch against -O2 -g file by file.
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEREO_SANITIZE=address,undefined \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DSTEREO_WITH_CUDA=OFF -DSTEREO_PCH=ON -DCMAKE_UNITY_BUILD=ON "${launcher[@]}" >/dev/null
# Everything this configuration has (CPU and GL tests, the driver the CLI tests run, the soak
# tool): a test binary left unbuilt would be a failing NOT_BUILT test in ctest.
cmake --build "$BUILD" -j"$(nproc)"
# intercept_tls_get_addr=0: gcc 12's LeakSanitizer tracks the dynamic TLS blocks of dlopen'ed
# libraries (Mesa's) through __tls_get_addr and, at exit, once scanned a bogus block
# ("DTLS 11 at 0x000000001880-0x001800002982") and died in its own tracer ("Tracer caught signal
# 11", "LeakSanitizer has encountered a fatal error") after a GL test had passed, every time that
# test ran under ctest. Without that tracking LSan still scans the stacks, static TLS, globals
# and registers of every thread; only dlopen'ed libraries' TLS goes unscanned, and no leak
# report appears without it across the whole suite.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:intercept_tls_get_addr=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
status=0
if [ -z "${STEREO_DATA:-}" ] && [ -d ../shared/data ]; then  # as scripts/test.sh
  STEREO_DATA="$(cd ../shared/data && pwd)"
  export STEREO_DATA
fi
# ctest `docs` runs the docs' blocks, Python ones among them, which import the Python module: this
# build has none (the interpreter is not instrumented), so the docs are scripts/test.sh's to run.
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)" -LE glfw -E '^docs$' --timeout 900 || status=1
exit "$status"
