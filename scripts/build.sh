#!/usr/bin/env bash
# Configures and builds harel into build/ (Ninja, ccache when present).
#   BUILD_DIR, CMAKE_BUILD_TYPE and HAREL_WERROR may be set from the environment.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
# Let ccache share results between checkouts (CI builds a fresh clone each time).
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" \
  -DHAREL_WERROR="${HAREL_WERROR:-OFF}" "$@" >/dev/null
cmake --build "$build" --parallel "$(nproc)"
