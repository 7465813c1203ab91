#!/usr/bin/env bash
# One build with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)
# running the unit and contract tests against the test servers, which are
# started and stopped here as scripts/test.sh does.
#   scripts/sanitize.sh [extra ctest arguments]
#   ASAN_BUILD_DIR, ASAN_CXX    build dir (build-asan), compiler (the default c++)
# Warnings are not errors here (the normal build gates them; sanitizers make
# the compiler's flow analysis noisier). Left out: the installed-package consumer (it builds without sanitizers) and
# the 1,000-commit fault run (slow under ASan; its proxy and client code run
# in the other tests).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ASAN_BUILD_DIR:-$root/build-asan}"
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true  # share the cache across checkouts
cd "$root"

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug ${ASAN_CXX:+-DCMAKE_CXX_COMPILER="$ASAN_CXX"} \
  -DCMAKE_CXX_FLAGS="-O1 -fno-omit-frame-pointer $sanitize" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" -DCMAKE_SHARED_LINKER_FLAGS="$sanitize" \
  -DHAREL_WERROR=OFF -DHAREL_BUILD_TOOLS=OFF -DHAREL_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --parallel "$(nproc)"

state="$(mktemp -d)"
trap 'tests/support/start-servers.sh stop "$state"; rm -rf "$state"' EXIT
eval "$(tests/support/start-servers.sh start "$state")"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" \
  -E '^find_package_consumer$|^Faults\.EveryCommit' "$@"
